dq = datt @ k * hs**-0.5
