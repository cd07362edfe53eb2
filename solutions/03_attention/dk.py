dk = datt.transpose(-2, -1) @ q * hs**-0.5
