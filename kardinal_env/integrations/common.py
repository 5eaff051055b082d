"""Library-free helpers shared by the integrations, for every registered game (numpy and the registry only).

* :func:`aec_env` — the PettingZoo AEC environment of a game by name: the ``env()`` of its
  PettingZoo entry point (:func:`kardinal_env.core.registration.pettingzoo_entry`: its own
  environment module or the generic :mod:`kardinal_env.core.generic_env`); ``wrapped=False`` gives
  the unwrapped ``raw_env``.
  Every RL-library adapter builds its environments with it, so each works for any registered game.
* :class:`GameFeaturizer` — what the environment would have shown the deciding seat of a bare game
  (an agent plays through ``select_move(game)``, outside any environment): the observation
  (``GameSpec.make_encoder``), the int8 legal-action mask, the legal action ids and the notation of
  an action id (``GameSpec.make_codec``). The game is found from the rules' class
  (:func:`kardinal_env.core.registry.game_of`); one encoder and codec are built per rule set, with
  the ``env_options`` the featurizer was given (the options the environment was made with besides the
  rules, if the game's codec and encoder take any).
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

    ``env_options`` are passed to the game's codec and encoder
    (``spec.make_codec(rules, **env_options)``); leave them empty for the environment's defaults.
    """

    def __init__(self, **env_options: Any):
        self.env_options = dict(env_options)
        self._cache: dict[Any, tuple[Any, Any]] = {}

    def parts(self, rules: Any) -> tuple[Any, Any]:
        """``(encoder, codec)`` of ``rules`` (built once per rule set)."""
        parts = self._cache.get(rules)
        if parts is None:
            spec = game_of(rules)
            parts = (spec.make_encoder(rules, **self.env_options), spec.make_codec(rules, **self.env_options))
            self._cache[rules] = parts
        return parts

    def num_actions(self, rules: Any) -> int:
        return int(self.parts(rules)[1].num_actions)

    def observation_shape(self, rules: Any) -> tuple[int, ...]:
        return tuple(self.parts(rules)[0].shape)

    def observation(self, game: Any, seat: int | None = None) -> np.ndarray:
        """The observation of ``seat`` (default: the seat to move), as the environment encodes it."""
        seat = _deciding(game) if seat is None else seat
        return self.parts(game.rules)[0].encode(game, seat)

    def legal_actions(self, game: Any) -> np.ndarray:
        """Action ids of the legal moves of the seat to move (the codec's ``legal_actions``; empty once over)."""
        return np.asarray(self.parts(game.rules)[1].legal_actions(game), dtype=np.intp)

    def action_mask(self, game: Any) -> np.ndarray:
        """int8 mask of the seat to move (the environments' convention); all zeros once the game is over."""
        return self.parts(game.rules)[1].action_mask(game)

    def decode(self, game: Any, action: int) -> str:
        """Notation of ``action`` for the seat to move."""
        _deciding(game)
        return self.parts(game.rules)[1].decode(game, int(action))


def _deciding(game: Any) -> int:
    """The seat to move; ValueError once the game is over (no seat decides)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: no seat is to move")
    return seat
