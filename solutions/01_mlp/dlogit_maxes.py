dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
