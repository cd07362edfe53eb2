dbndiff = bnvar_inv * dbnraw
dbndiff += (2 * bndiff) * dbndiff2
