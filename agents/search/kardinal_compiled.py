"""Kardinal's searches in the compiled core: the ``compiled_search`` and ``compiled_playout`` of its
agents' registry entry (:mod:`agents.games`).

:func:`mcts_root` is ``mcts:N`` (:mod:`agents.search.mcts`) run by the core (``KardinalGame.mcts_root``,
the root's children with their visits and values; ``KardinalGame.mcts_move``, the move: the same UCT,
reward, progressive widening and playout policy, ported from
:class:`agents.baselines.kardinal_greedy.Playout`; the same algorithm, not the same random draws).
The agent calls it for every decision; it answers ``None`` (and the Python search runs, drawing
exactly as before) when the core is not used or the game is neither a plain
:class:`~kardinal_env.kardinal.engine.Game` nor a plain core-backed one
(:class:`~kardinal_env.kardinal.core_game.CoreGame`, searched without a replay). :func:`play_out` is a
game played to its end by the same playout policy in the core, for the playouts at the leaves of
``puct:N`` (:mod:`agents.search.puct`, ``rollouts=``). The core is reached through
:mod:`kardinal_env.kardinal.compiled` (``KARDINAL_ENV_BACKEND`` chooses it).
"""

from __future__ import annotations

import random
from typing import Any

from kardinal_env.kardinal.compiled import core_module, core_position
from kardinal_env.kardinal.core_game import CoreGame
from kardinal_env.kardinal.engine import Game
from kardinal_env.kardinal.notation import format_move

__all__ = ["mcts_root", "play_out"]

_SEED_MASK = (1 << 64) - 1


def mcts_root(
    game: Any,
    rng: random.Random,
    simulations: int = 200,
    exploration: float = 0.7,
    widen_base: float | None = 2.0,
    margin_weight: float = 0.25,
) -> list[tuple[str, int, float]] | None:
    """Kardinal's ``compiled_search``: the root of ``mcts:simulations``'s search of ``game``'s current
    decision, run by the core with Kardinal's playout policy and a generator seeded from one draw of
    ``rng`` (``rng.getrandbits(64)``); the options as :class:`agents.search.mcts.MCTSAgent`'s. A list
    of ``(move, visits, mean reward of the deciding seat)`` for every child the search expanded, in
    expansion order (empty when the decision has one legal move); the search plays the most visited,
    ties: the higher mean, then the first (:meth:`agents.search.mcts.MCTSAgent.select_move`;
    ``KardinalGame.mcts_move`` in the core). ``None``, without touching ``rng``, when the core is not
    used (not built, or ``KARDINAL_ENV_BACKEND=python``) or ``game`` is not a plain
    :class:`~kardinal_env.kardinal.engine.Game` or :class:`~kardinal_env.kardinal.core_game.CoreGame`
    (a subclass may change what the core cannot see): then the caller searches in Python."""
    if type(game) is not Game and type(game) is not CoreGame:
        return None
    module = core_module()
    if module is None:
        return None
    core = game.core if type(game) is CoreGame else core_position(game, module)  # mcts_root searches a copy
    children = core.mcts_root(simulations, rng.getrandbits(64), exploration, widen_base, margin_weight)
    return [(format_move(tuple(code)), int(visits), float(value)) for code, visits, value in children]


def play_out(game: Any, rng: random.Random) -> Any | None:
    """Kardinal's ``compiled_playout``: a copy of the core-backed ``game`` played to its end in the core
    by Kardinal's playout policy (``KardinalGame.playout_move``, the C++ port of
    :class:`agents.baselines.kardinal_greedy.Playout`: the same policy, not the same random draws), the
    ``i``-th move drawing from a generator seeded with ``seed + i`` where ``seed`` is one draw of
    ``rng`` (``rng.getrandbits(64)``). Returns the finished core ``KardinalGame`` (``scores()``,
    ``winners()``, ``num_players``). ``None``, without touching ``rng``, when ``game`` is not a plain
    :class:`~kardinal_env.kardinal.core_game.CoreGame` (a Python game, or a subclass that may change
    what the core cannot see): then the caller plays out in Python. ``game`` is never modified."""
    if type(game) is not CoreGame:
        return None
    core = game.core.clone()
    seed = rng.getrandbits(64)
    while not core.is_over:
        core.play_code(core.playout_move(seed))
        seed = (seed + 1) & _SEED_MASK
    return core
