dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
dhflat = dlogits @ W2.T
dW2 = hflat.T @ dlogits
db2 = dlogits.sum(0)
dh = dhflat.view(n, groups, n_hidden)
dhpreact = (1 - h**2) * dh
dbngain = (bnraw * dhpreact).sum((0, 1), keepdim=True)
dbnbias = dhpreact.sum((0, 1), keepdim=True)
dbnraw = bngain * dhpreact
dbnvar_inv = (bndiff * dbnraw).sum((0, 1), keepdim=True)
dbnvar = -0.5 * (bnvar + 1e-5) ** -1.5 * dbnvar_inv
dbndiff2 = torch.ones_like(bndiff2) / (n * groups - 1) * dbnvar
dbndiff = bnvar_inv * dbnraw + 2 * bndiff * dbndiff2
dbnmean = -dbndiff.sum((0, 1), keepdim=True)
dhpre = dbndiff.clone() + dbnmean / (n * groups)
dx1 = dhpre @ W1.T
dW1 = (x1.transpose(-2, -1) @ dhpre).sum(0)
demb = dx1.view(n, 2 * groups, n_embd)
dC = torch.zeros_like(C)
dC.index_add_(0, Xb.view(-1), demb.view(-1, n_embd))
