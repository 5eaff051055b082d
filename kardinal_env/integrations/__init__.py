"""Adapters for third-party RL libraries, for every registered game (see ``docs/libraries/``, one page per library).

Nothing here is imported by ``import kardinal_env``: each submodule imports its library, so import
the one you use explicitly:

* ``kardinal_env.integrations.sb3`` — Stable-Baselines3 / sb3-contrib ``MaskablePPO``: the
  observation-only view of a game's single-agent env (``ObservationOnly``, for ``MlpPolicy``),
  self-play and vs-bots envs, an agent for trained policies, Kardinal's board extractors
  (``pip install "kardinal-env[sb3]"``);
* ``kardinal_env.integrations.tianshou`` — Tianshou's ``PettingZooEnv`` with fixed-shape infos
  (``pip install "kardinal-env[tianshou]"``);
* ``kardinal_env.integrations.rllib`` — Ray RLlib (new API stack): masking RLModules (convolutional
  for Kardinal's board, an MLP for flat observations), a league self-play setup and the game
  environments registered by name (``pip install "kardinal-env[rllib]"``); ``rllib_train`` is the
  code of ``scripts/train_rllib.py``;
* ``kardinal_env.integrations.torch_nets`` — torch-only trunks for Kardinal's board (a fixed crop
  around the cathedral, a pooled full window) behind the SB3 extractors, usable in any torch library.

TorchRL (``torchrl.envs.PettingZooWrapper``) takes a game's environment (``kardinal_v0.env()``,
``kardinal_koenig_v1.env()``) as it is; ``docs/libraries/torchrl.md`` shows how.
``kardinal_env.integrations.common`` (numpy and the registry only) builds a game's AEC environment
by name (``aec_env``) and turns a bare game into the observation, legal-action mask and action ids
the game's environment would give (``GameFeaturizer``), for agents that play outside an environment.
The adapters find a game through the registry (``kardinal_env.core.registry``), never by comparing
its name.
"""
