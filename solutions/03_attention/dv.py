dv = p.transpose(-2, -1) @ dout
