"""Adapters for third-party RL libraries (see ``docs/integrations.md``).

Nothing here is imported by ``import kardinal_env``: each submodule imports its library, so import
the one you use explicitly:

* ``kardinal_env.integrations.sb3`` — Stable-Baselines3 / sb3-contrib ``MaskablePPO``
  (``pip install "kardinal-env[sb3]"``);
* ``kardinal_env.integrations.rllib`` — Ray RLlib (new API stack): a masking RLModule, a league
  self-play setup and ``register_env("kardinal_v0")`` (``pip install "kardinal-env[rllib]"``);
* ``kardinal_env.integrations.torch_nets`` — torch-only board trunks (a fixed crop around the
  cathedral, a pooled full window) behind the SB3 extractors, usable in any torch library.

TorchRL (``torchrl.envs.PettingZooWrapper``) and Tianshou (``tianshou.env.PettingZooEnv``) take
``kardinal_v0.env()`` as it is; ``docs/integrations.md`` shows how.
``kardinal_env.integrations.common`` (numpy only) turns a :class:`kardinal_env.Game` into the
observation and legal-action mask of any window, for agents that play outside the environment.
"""
