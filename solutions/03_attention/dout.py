dout = dy @ Wo.T
