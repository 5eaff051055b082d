"""Library-free helpers shared by the integrations: observation and legal actions of a bare ``Game``.

Agents trained on ``kardinal_v0`` play through ``select_move(game)`` on a plain
:class:`kardinal_env.Game` (the evaluation scripts' protocol). :class:`GameFeaturizer` builds exactly
what the environment would have shown the deciding seat: the ``(72, W, W)`` observation
(:class:`~kardinal_env.kardinal.observation.ObservationEncoder`) and the int8 action mask
(:class:`~kardinal_env.kardinal.actions.ActionCodec`) for ``game.current_player``.

The window is the game's: ``rules.window``, or the lossless ``53`` for the unbounded game
(``window=None``), exactly as ``kardinal_v0.env(window=...)`` would encode it. A network whose
weights do not depend on the window (fully convolutional, like
``kardinal_env.integrations.rllib.KardinalMaskedRLModule``) can therefore play games of any window;
others must check :func:`game_window` against the window they were trained on.
"""

from __future__ import annotations

import numpy as np

from kardinal_env.kardinal.actions import DEFAULT_WINDOW, ActionCodec
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.notation import format_move
from kardinal_env.kardinal.observation import ObservationEncoder
from kardinal_env.kardinal.rules import Rules

__all__ = ["GameFeaturizer", "game_window"]


def game_window(rules: Rules) -> int:
    """The observation window ``kardinal_v0`` uses for ``rules`` (53 for the unbounded game)."""
    return DEFAULT_WINDOW if rules.window is None else rules.window


class GameFeaturizer:
    """Observation / mask / decoding of bare games, one encoder and codec per rule set."""

    def __init__(self):
        self._cache: dict[Rules, tuple[ObservationEncoder, ActionCodec]] = {}

    def _parts(self, rules: Rules) -> tuple[ObservationEncoder, ActionCodec]:
        parts = self._cache.get(rules)
        if parts is None:
            w = game_window(rules)
            parts = self._cache[rules] = (ObservationEncoder(rules, w), ActionCodec(rules, w))
        return parts

    def num_actions(self, rules: Rules) -> int:
        return self._parts(rules)[1].num_actions

    def observation(self, game: Game, seat: int | None = None) -> np.ndarray:
        """The ``(72, W, W)`` uint8 observation of ``seat`` (default: the seat to move)."""
        seat = _deciding(game) if seat is None else seat
        return self._parts(game.rules)[0].encode(game, seat)

    def legal_actions(self, game: Game) -> np.ndarray:
        """Actions of the legal moves of the seat to move, ascending (empty once the game is over)."""
        return self._parts(game.rules)[1].legal_actions(game)

    def action_mask(self, game: Game) -> np.ndarray:
        """int8 mask (``kardinal_v0``'s convention) of the seat to move; all zeros once over.

        Built by :meth:`kardinal_env.kardinal.actions.ActionCodec.action_mask`, the environment's own mask builder.
        """
        return self._parts(game.rules)[1].action_mask(game, game.current_player)

    def decode(self, game: Game, action: int) -> str:
        """Notation of ``action`` for the seat to move."""
        codec = self._parts(game.rules)[1]
        return format_move(codec.decode_code(int(action), _deciding(game)))


def _deciding(game: Game) -> int:
    """The seat to move; ValueError once the game is over (no seat decides)."""
    seat = game.current_player
    if seat is None:
        raise ValueError("the game is over: no seat is to move")
    return seat
