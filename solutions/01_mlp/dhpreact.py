dhpreact = (1.0 - h**2) * dh
