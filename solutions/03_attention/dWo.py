dWo = (out.transpose(-2, -1) @ dy).sum(0)
