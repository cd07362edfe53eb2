dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
