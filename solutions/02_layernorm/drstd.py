drstd = (xc * dxhat).sum(-1, keepdim=True)
