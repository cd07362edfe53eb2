dxhat = gamma * dy
dx = (
    rstd
    / d
    * (d * dxhat - dxhat.sum(-1, keepdim=True) - xhat * (dxhat * xhat).sum(-1, keepdim=True))
)
