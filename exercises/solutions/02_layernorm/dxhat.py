dxhat = gamma * dy
