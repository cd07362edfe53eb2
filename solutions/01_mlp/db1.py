db1 = dhprebn.sum(0)
