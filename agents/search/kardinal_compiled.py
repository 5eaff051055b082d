"""Kardinal's searches in the compiled core, the ``compiled_search`` and ``compiled_playout`` of its agents' entry
(:mod:`agents.games`): :func:`mcts_root` is ``mcts:N`` (:mod:`agents.search.mcts`) run by the core (the same UCT,
reward, widening and playout policy, ported from :class:`agents.baselines.kardinal_greedy.Playout`; not the same random
draws), :func:`play_out` plays a game to its end with that policy, for ``puct:N``'s leaf playouts.
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
    """Kardinal's ``compiled_search``: :meth:`agents.search.mcts.MCTSAgent.root_statistics` searched by the core, seeded
    with ``rng.getrandbits(64)``. ``None``, without touching ``rng``, when the core is not used or ``game`` is not a
    plain :class:`~kardinal_env.kardinal.engine.Game` or its ``CoreGame``."""
    if type(game) is not Game and type(game) is not CoreGame:
        return None
    module = core_module()
    if module is None:
        return None
    core = game.core if type(game) is CoreGame else core_position(game, module)  # mcts_root searches a copy
    seed = rng.getrandbits(64)
    children = module.kardinal_search.mcts_root(core, simulations, seed, exploration, widen_base, margin_weight)
    return [(format_move(tuple(code)), int(visits), float(value)) for code, visits, value in children]


def play_out(game: Any, rng: random.Random) -> Any | None:
    """Kardinal's ``compiled_playout``: the finished core game (``scores()``, ``winners()``, ``num_players``) of a copy
    of ``game`` played out by ``kardinal_search.playout_move``, move ``i`` seeded with ``rng.getrandbits(64) + i``.
    ``None``, without touching ``rng``, unless ``game`` is a plain core-backed game."""
    if type(game) is not CoreGame:
        return None
    module = core_module("core")  # a core-backed game: the core is loaded
    assert module is not None  # "core" raises instead
    playout_move = module.kardinal_search.playout_move
    core = game.core.clone()
    seed = rng.getrandbits(64)
    while not core.is_over:
        core.play_code(playout_move(core, seed))
        seed = (seed + 1) & _SEED_MASK
    return core
