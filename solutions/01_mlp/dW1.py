dW1 = embcat.T @ dhprebn
