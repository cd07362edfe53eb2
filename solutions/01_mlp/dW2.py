dW2 = h.T @ dlogits
