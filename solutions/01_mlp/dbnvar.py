dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
