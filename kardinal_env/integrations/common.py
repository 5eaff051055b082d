"""Library-free helpers shared by the integrations, for every registered game (numpy and the registry only).

* :func:`aec_env` — a game's PettingZoo AEC environment by name (the ``env()`` of its PettingZoo entry point,
  :func:`kardinal_env.core.registration.pettingzoo_entry`; ``wrapped=False``: the ``raw_env``). Every RL-library adapter
  builds its environments with it.
* :class:`GameFeaturizer` — what the environment would show the deciding seat of a bare game (for agents playing
  ``select_move(game)``): the observation, the int8 legal-action mask and the notation of an action id.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kardinal_env.core.registration import pettingzoo_entry
from kardinal_env.core.registry import GameSpec, game_of, get_game, resolve

__all__ = ["GameFeaturizer", "aec_env"]


def aec_env(game: str | GameSpec, wrapped: bool = True, **options: Any) -> Any:
    """The PettingZoo AEC environment of ``game`` made with ``options`` (``players``, rule options, ``reward``, env
    options); ``wrapped=False``: the unwrapped ``raw_env`` (it raises on an illegal action)."""
    entry, defaults = pettingzoo_entry(get_game(game))
    module = resolve(entry.partition(":")[0])
    return (module.env if wrapped else module.raw_env)(**defaults, **options)


class GameFeaturizer:
    """Observation, mask and decoding of bare games (``env_options`` go to the encoder; empty: the env's defaults)."""

    def __init__(self, **env_options: Any):
        self.env_options = dict(env_options)
        self._cache: dict[Any, Any] = {}

    def encoder(self, rules: Any) -> Any:
        """The observation encoder of ``rules`` (built once per rule set)."""
        encoder = self._cache.get(rules)
        if encoder is None:
            encoder = self._cache[rules] = game_of(rules).make_encoder(rules, **self.env_options)
        return encoder

    def observation(self, game: Any, seat: int | None = None) -> np.ndarray:
        """The observation of ``seat`` (default: the seat to move), as the environment encodes it."""
        seat = _deciding(game) if seat is None else seat
        return self.encoder(game.rules).encode(game, seat)

    def action_mask(self, game: Any) -> np.ndarray:
        """int8 mask of the seat to move; all zeros once the game is over."""
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[np.asarray(game.legal_actions(), dtype=np.intp)] = 1
        return mask

    def decode(self, game: Any, action: int) -> str:
        """Notation of ``action`` for the seat to move."""
        _deciding(game)
        return game.action_to_string(int(action))


def _deciding(game: Any) -> int:
    """The seat to move; ValueError once the game is over."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: no seat is to move")
    return seat
