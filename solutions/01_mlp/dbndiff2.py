dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
