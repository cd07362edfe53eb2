dy = w / B
dout = dy @ Wo.T
dWo = out.reshape(-1, hs).T @ dy.reshape(-1, C)
dp = dout @ v.transpose(-2, -1)
dv = p.transpose(-2, -1) @ dout
dscores = p * (dp - (p * dp).sum(-1, keepdim=True))
datt = dscores.masked_fill(future, 0.0)
dq = datt @ k * hs**-0.5
dk = datt.transpose(-2, -1) @ q * hs**-0.5
dWq = (x.transpose(-2, -1) @ dq).sum(0)
dWk = x.reshape(-1, C).T @ dk.reshape(-1, hs)
dWv = x.reshape(-1, C).T @ dv.reshape(-1, hs)
dx = dq @ Wq.T + dk @ Wk.T + dv @ Wv.T
