"""Neural policies of every game: what they share (``base``: the masked distribution and the network
builder a game's agents' entry names), each game's networks (``kardinal_net``, ``koenig_net``, the
generic ``mlp`` of any game without one), checkpoints (``checkpoint``), and the agents that play a
checkpoint (``ppo_agent`` with each game's agent class, ``rllib_agent``). Nothing here imports
``agents.training``. Importing this package does not import torch; its modules do."""
