dbngain = (bnraw * dhpreact).sum((0, 1), keepdim=True)
