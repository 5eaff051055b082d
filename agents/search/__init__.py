"""Tree search over the game protocol: ``mcts`` (UCT with playouts), ``ismcts`` (information-set MCTS on
determinizations), ``puct`` (PUCT guided by a trained network's prior and value)."""
