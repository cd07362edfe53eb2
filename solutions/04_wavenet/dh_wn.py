dh = dhflat.view(n, groups, n_hidden)
