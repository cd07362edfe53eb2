dW1 = (x1.transpose(-2, -1) @ dhpre).sum(0)
