db2 = dlogits.sum(0)
