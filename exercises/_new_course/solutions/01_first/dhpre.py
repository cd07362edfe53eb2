dhpre = (1 - a**2) * da
