dhprebn = dbndiff.clone()
dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
