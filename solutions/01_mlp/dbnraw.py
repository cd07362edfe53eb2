dbnraw = bngain * dhpreact
