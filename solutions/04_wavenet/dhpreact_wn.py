dhpreact = (1 - h**2) * dh
