dprobs = (1.0 / probs) * dlogprobs
