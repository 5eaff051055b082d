"""Tianshou (2.x) for every registered game: :class:`TianshouEnv`, Tianshou's ``PettingZooEnv`` with fixed-shape infos.

Imports tianshou (``pip install "kardinal-env[tianshou]"``).

Tianshou's replay buffer fixes the shapes of ``info`` arrays at the first step, and a ``winners`` list is as long as the
tie (``ValueError: shape mismatch``, ``docs/libraries/tianshou.md``). So :class:`TianshouEnv` gives the same ``info`` at
every step: ``scores`` and ``win_share`` (:func:`kardinal_env.core.rewards.win_share`), ``float32`` arrays per seat once
the game is over, zeros before. The observation is ``{"agent_id", "obs", "mask"}``, ``mask`` bool.

:func:`make_env` builds it for a registered game by name: ``make_env("kardinal_koenig", players=3)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tianshou.env import PettingZooEnv

from kardinal_env.core.registry import GameSpec
from kardinal_env.core.rewards import win_share
from kardinal_env.integrations.common import aec_env

__all__ = ["TianshouEnv", "make_env"]


class TianshouEnv(PettingZooEnv):
    """``tianshou.env.PettingZooEnv`` with fixed-shape infos and a ``bool`` mask (the module docstring)."""

    def reset(self, *args: Any, **kwargs: Any) -> tuple[dict, dict]:
        self.env.reset(*args, **kwargs)
        obs, _, _ = self._observe()
        return obs, self._info()

    def step(self, action: Any) -> tuple[dict, list, bool, bool, dict]:
        self.env.step(action)
        obs, terminated, truncated = self._observe()
        for agent_id, reward in self.env.rewards.items():
            self.rewards[self.agent_idx[agent_id]] = reward
        return obs, list(self.rewards), terminated, truncated, self._info()

    def _observe(self) -> tuple[dict, bool, bool]:
        observation, _, terminated, truncated, _ = self.env.last()
        obs = {
            "agent_id": self.env.agent_selection,
            "obs": observation["observation"].copy(),  # kept by the buffer; the env may rewrite its own
            "mask": np.asarray(observation["action_mask"], dtype=bool),
        }
        return obs, bool(terminated), bool(truncated)

    def _info(self) -> dict:
        game = self.env.unwrapped.game
        seats = len(self.agents)
        scores = np.zeros(seats, dtype=np.float32)
        shares = np.zeros(seats, dtype=np.float32)
        if game.is_over:
            scores[:] = game.scores()
            shares[:] = [win_share(game.winners(), seat) for seat in range(seats)]
        return {"scores": scores, "win_share": shares}


def make_env(game: str | GameSpec = "kardinal", **options: Any) -> TianshouEnv:
    """:class:`TianshouEnv` over ``game``'s AEC environment (``options``: ``players``, rule options, ...)."""
    return TianshouEnv(aec_env(game, **options))
