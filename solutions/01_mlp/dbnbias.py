dbnbias = dhpreact.sum(0, keepdim=True)
