dlogits = F.softmax(logits, 1)
dlogits[range(n), Yb] -= 1
dlogits /= n
