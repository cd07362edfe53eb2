dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
