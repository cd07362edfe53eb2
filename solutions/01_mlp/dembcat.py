dembcat = dhprebn @ W1.T
