"""Neural policies of every game: ``base`` (what they share), ``kardinal_net``, ``koenig_net``, ``mlp``
(any other game), ``checkpoint``, the agents ``ppo_agent`` and ``rllib_agent``. Importing this package
does not import torch (its modules do) nor ``agents.training``."""
