dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
