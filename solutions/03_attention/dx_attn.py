dx = dq @ Wq.T + dk @ Wk.T + dv @ Wv.T
