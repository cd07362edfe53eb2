dscores = p * (dp - (p * dp).sum(-1, keepdim=True))
