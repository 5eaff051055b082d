"""Neural policies: the networks of each game (``kardinal_net``, ``koenig_net``, the generic ``mlp``),
checkpoints (``checkpoint``), and the agents that play a checkpoint (``ppo_agent``, ``rllib_agent``).
Importing this package does not import torch; its modules do."""
