dnorm_logits = counts * dcounts
