dcounts = counts_sum_inv * dprobs
dcounts += torch.ones_like(counts) * dcounts_sum
