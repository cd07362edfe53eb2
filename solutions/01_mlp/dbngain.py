dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
