"""Adapters for third-party RL libraries, for every registered game (``docs/libraries/``, one page per library).

Nothing here is imported by ``import kardinal_env``; import the submodule of the library you use: ``sb3``
(Stable-Baselines3 / sb3-contrib ``MaskablePPO``), ``tianshou``, ``rllib`` (Ray RLlib's new API stack; ``rllib_train``
is the code of ``scripts/train_rllib.py``, ``sb3_cost`` that of ``scripts/sb3_cost.py``) and ``torch_nets`` (torch-only
trunks for Kardinal's board). TorchRL takes a game's environment as it is. ``common`` builds a game's AEC environment by
name and featurizes bare games for agents. The adapters find a game through the registry, never by its name.
"""
