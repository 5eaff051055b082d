"""Library-free helpers shared by the integrations, for every registered game (numpy and the registry only).

* :func:`aec_env` — the PettingZoo AEC environment of a game by name: the ``env()`` of its
  PettingZoo entry point (:func:`kardinal_env.core.registration.pettingzoo_entry`: its own
  environment module or the generic :mod:`kardinal_env.core.generic_env`); ``wrapped=False`` gives
  the unwrapped ``raw_env``.
  Every RL-library adapter builds its environments with it, so each works for any registered game.
* :class:`GameFeaturizer` — what the environment would have shown the deciding seat of a bare game
  (an agent plays through ``select_move(game)``, outside any environment): the observation
  (``GameSpec.make_encoder``), the int8 legal-action mask, the legal action ids and the notation of
  an action id (the game protocol's ``legal_actions`` and ``action_to_string``). The game is found
  from the rules' class (:func:`kardinal_env.core.registry.game_of`); one encoder is built per rule
  set, with the ``env_options`` the featurizer was given (the options the environment was made with
  besides the rules, if the game's encoder takes any).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kardinal_env.core.registration import pettingzoo_entry
from kardinal_env.core.registry import GameSpec, game_of, get_game, resolve

__all__ = ["GameFeaturizer", "aec_env"]


def aec_env(game: str | GameSpec, wrapped: bool = True, **options: Any) -> Any:
    """The PettingZoo AEC environment of ``game`` (a registered game's name or its spec).

    ``options`` go to the environment (``players``, the rule options, ``reward``, env options such as
    Kardinal's ``window``). ``wrapped=True``: ``env(**options)`` with PettingZoo's classic wrappers;
    ``False``: the unwrapped ``raw_env`` (it raises on an illegal action instead of ending the game).
    """
    entry, defaults = pettingzoo_entry(get_game(game))
    module = resolve(entry.partition(":")[0])
    return (module.env if wrapped else module.raw_env)(**defaults, **options)


class GameFeaturizer:
    """Observation, mask, legal actions and decoding of bare games of any registered game.

    ``env_options`` are passed to the game's encoder (``spec.make_encoder(rules, **env_options)``);
    leave them empty for the environment's defaults.
    """

    def __init__(self, **env_options: Any):
        self.env_options = dict(env_options)
        self._cache: dict[Any, Any] = {}
        self._sizes: dict[Any, int] = {}

    def encoder(self, rules: Any) -> Any:
        """The observation encoder of ``rules`` (built once per rule set)."""
        encoder = self._cache.get(rules)
        if encoder is None:
            encoder = self._cache[rules] = game_of(rules).make_encoder(rules, **self.env_options)
        return encoder

    def num_actions(self, rules: Any) -> int:
        size = self._sizes.get(rules)
        if size is None:
            size = self._sizes[rules] = int(game_of(rules).new_game(rules, seed=0).num_actions)
        return size

    def observation_shape(self, rules: Any) -> tuple[int, ...]:
        return tuple(self.encoder(rules).shape)

    def observation(self, game: Any, seat: int | None = None) -> np.ndarray:
        """The observation of ``seat`` (default: the seat to move), as the environment encodes it."""
        seat = _deciding(game) if seat is None else seat
        return self.encoder(game.rules).encode(game, seat)

    def legal_actions(self, game: Any) -> np.ndarray:
        """Action ids of the legal moves of the seat to move (the game's ``legal_actions``; empty once over)."""
        return np.asarray(game.legal_actions(), dtype=np.intp)

    def action_mask(self, game: Any) -> np.ndarray:
        """int8 mask of the seat to move (the environments' convention); all zeros once the game is over."""
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[self.legal_actions(game)] = 1
        return mask

    def decode(self, game: Any, action: int) -> str:
        """Notation of ``action`` for the seat to move."""
        _deciding(game)
        return game.action_to_string(int(action))


def _deciding(game: Any) -> int:
    """The seat to move; ValueError once the game is over (no seat decides)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: no seat is to move")
    return seat
