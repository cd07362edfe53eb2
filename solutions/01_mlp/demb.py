demb = dembcat.view(emb.shape)
