"""Kardinal's one-ply greedy baseline (``greedy``, :class:`GreedyAgent`) and its playout policy (``rollout_move``,
:class:`Playout`), reached through Kardinal's agents' entry (:mod:`agents.games`). Chip values are
:mod:`agents.baselines.kardinal_heuristics`'; ties are broken by the seeded generator.

**GreedyAgent**

* **Build**: the build that takes the most chips this turn (``build_chips``: only chips that reach the builder count,
  substitutes 1); ties: the larger sum of ``chip_weight`` over the chips.
* **Chip** (compensation / substitute): the colour with the highest ``chip_weight``.
* **Cardinal**: the square (or ``C-``) that leaves the next seat the fewest chips with its best build (no build at all
  counts -1), then the fewest builds reaching that best.

**rollout_move** (the fast policy of a search's playouts, e.g. ``mcts:N``)

* **Build**: with probability ``1 - epsilon`` (0.8) the build of highest chip value for the builder (``chip_values``
  with ``seat_weights``), else a random build.
* **Chip**: the colour of highest ``seat_weights`` value (the first of equal ones).
* **Cardinal**: with probability ``cardinal_block`` (1.0) the square shared by most of the next builder's best builds
  by raw chip count (``C-`` if the cardinal already stands there), else random.
* A decision with one legal move takes it without drawing a random number.

It also offers :mod:`agents.search.mcts`'s ``play_out`` and ``order`` (:class:`Playout`).
"""

from __future__ import annotations

import random
from collections import Counter

from agents.base import BaseAgent
from agents.baselines.kardinal_heuristics import (
    build_chips,
    build_value,
    cardinal_block_values,
    chip_values,
    chip_weight,
    seat_weights,
)
from agents.baselines.random import pick_max
from agents.search.common import action_list
from kardinal_env.kardinal.notation import BUILD, CHIP, format_move

__all__ = ["GreedyAgent", "greedy_code", "Playout", "rollout_move"]


def greedy_code(game, rng) -> tuple:
    codes = game.legal_move_codes()
    if len(codes) == 1:
        return codes[0]
    kind = codes[0][0]
    seat = game.current_player
    if kind == CHIP:
        return pick_max([(chip_weight(game, seat, c[2]), c) for c in codes], rng)
    if kind != BUILD:
        return pick_max([((-best, -count), code) for code, best, count in cardinal_block_values(game)], rng)
    weights = {-1: 1.0}  # a substitute chip counts 1
    scored = []
    for code in codes:
        colours: list = []
        chips = build_chips(game, code, colours)
        value = 0.0
        for c in colours:
            if c not in weights:
                weights[c] = chip_weight(game, seat, c)
            value += weights[c]
        scored.append(((chips, value), code))
    return pick_max(scored, rng)


class GreedyAgent(BaseAgent):
    """Kardinal's greedy baseline."""

    name = "greedy"

    def select_move(self, game) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        return format_move(greedy_code(game, self.rng))


def _quick_block(game, codes, rng):
    _seat, builds = game.next_builder(ignore_cardinal=True)
    if not builds:
        return codes[rng.randrange(len(codes))]
    values = chip_values(game, builds, [1.0] * 5)
    best = max(values)
    counts: Counter[int] = Counter()
    for v, b in zip(values, builds, strict=True):
        if v == best:
            counts.update(b[3:5] if b[4] >= 0 else b[3:4])
    target = pick_max([(m, k) for k, m in counts.items()], rng)
    if target == game.cardinal_key:
        return codes[0]  # C- is listed first whenever the cardinal stands somewhere
    for code in codes:
        if code[3] == target:
            return code
    return codes[rng.randrange(len(codes))]


class Playout:
    """Kardinal's playout policy; ``epsilon``: share of random builds, ``cardinal_block``: of blocking moves."""

    def __init__(self, epsilon: float = 0.2, cardinal_block: float = 1.0):
        self.epsilon = epsilon
        self.cardinal_block = cardinal_block
        self._rules = None
        self._weights: list[list[float]] = []

    def weights(self, rules) -> list[list[float]]:
        """:func:`~agents.baselines.kardinal_heuristics.seat_weights` of every seat, cached for the last rules."""
        if rules is not self._rules:
            self._weights = [seat_weights(rules, s) for s in range(rules.players)]
            self._rules = rules
        return self._weights

    def code(self, game, rng: random.Random) -> tuple:
        codes = game.legal_move_codes()
        if len(codes) == 1:
            return codes[0]
        kind = codes[0][0]
        w = self.weights(game.rules)[game.current_player]
        if kind == BUILD and rng.random() >= self.epsilon:
            return pick_max(list(zip(chip_values(game, codes, w), codes, strict=True)), rng)
        if kind == CHIP:
            return max(codes, key=lambda c: w[c[2]])
        if kind not in (BUILD, CHIP) and self.cardinal_block and rng.random() < self.cardinal_block:
            return _quick_block(game, codes, rng)
        return codes[rng.randrange(len(codes))]

    def __call__(self, game, rng: random.Random) -> str:
        if game.is_over:
            raise ValueError("no legal move: the game is over")
        return format_move(self.code(game, rng))

    def play_out(self, game, rng: random.Random) -> None:
        """Play ``game`` to its end with the moves and draws of repeated calls, faster (on move codes)."""
        while not game.is_over:
            game.play_code(self.code(game, rng))

    def order(self, game, actions: list[int]) -> list[int]:
        """The legal ``actions``, most promising first (stable): builds by chip value, chips by colour value, cardinal
        moves as the greedy agent ranks them."""
        if len(actions) < 2:
            return list(actions)
        codes = dict(zip(action_list(game), game.legal_move_codes(), strict=True))
        kind = codes[actions[0]][0]
        w = self.weights(game.rules)[game.current_player]
        if kind == BUILD:
            return sorted(actions, key=lambda a: build_value(game, codes[a], w), reverse=True)
        if kind == CHIP:
            return sorted(actions, key=lambda a: w[codes[a][2]], reverse=True)
        keys = {code: (best, count) for code, best, count in cardinal_block_values(game)}
        return sorted(actions, key=lambda a: keys[codes[a]])


#: Kardinal's playout policy with the default shares (``GameAgents.rollout`` of Kardinal).
rollout_move = Playout()
