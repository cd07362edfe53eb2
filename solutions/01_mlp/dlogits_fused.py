dlogits = F.softmax(logits, 1) - F.one_hot(Yb, vocab_size)
dlogits /= n
