dbnmeani = (-dbndiff).sum(0, keepdim=True)
