dp = dout @ v.transpose(-2, -1)
