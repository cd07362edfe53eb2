demb = dx1.view(n, 2 * groups, n_embd)
