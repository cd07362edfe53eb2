dh = dlogits @ W2.T
