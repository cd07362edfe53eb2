datt = dscores.masked_fill(future, 0.0)
