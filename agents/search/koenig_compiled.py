"""Kardinal & König's search and heuristic in the compiled core (reached through :mod:`kardinal_env.koenig.compiled`):
:func:`ismcts_root`, the ``compiled_ismcts`` of its agents' entry (:mod:`agents.games`), and :func:`heuristic_values`.
Each answers ``None`` where it cannot (the core not used, or a game the core does not see as it is): the caller then
runs the Python code, which gives the same results.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np

from kardinal_env.koenig.compiled import core_module, core_position
from kardinal_env.koenig.core_game import CoreGame
from kardinal_env.koenig.engine import Game
from kardinal_env.koenig.knowledge import SeatKnowledge

__all__ = ["ismcts_root", "heuristic_values", "heuristic_core"]

#: The core module when it is used (else the heuristic and its rollouts play in Python).
heuristic_core = core_module


def _plain(game: Any) -> bool:
    """Whether ``game`` is exactly :class:`Game` or :class:`CoreGame` (a subclass may change what the core sees)."""
    return type(game) is Game or type(game) is CoreGame


def ismcts_root(
    game: Any,
    rng: random.Random,
    simulations: int = 200,
    exploration: float = 0.7,
    scale: float = 8.0,
    guide: Any = None,
    widen: int = 3,
    margin_weight: float = 0.0,
    paired: bool = False,
    test: tuple[int, float, float, float] = (0, 2.5, 0.5, 10.0),
    widen_visits: int = 0,
    root_moves: list[int] | None = None,
) -> list[tuple] | None:
    """:class:`~agents.search.ismcts.ISMCTSAgent`'s search (``rollout_moves=0``; ``test``:
    ``(batch, z, t_continue, win_bonus)``; ``root_moves``: the paired root's action ids) run by the core: the root's
    children ``(move, visits, mean value of the seat on turn[, win shares, margins per round])`` in expansion order.
    Seeded by one ``rng.getrandbits(64)``, the core gets the seat's knowledge
    (:meth:`~kardinal_env.koenig.knowledge.SeatKnowledge.deal_data`, no hidden card): the Python search's worlds, draws
    and result. ``None``, without touching ``rng``, when the core is not used, ``game`` is not plain, or the guide has
    no ``core_arguments``; ``ValueError`` with fewer than two legal moves."""
    if not _plain(game):
        return None
    module = core_module()
    if module is None:
        return None
    seat = game.current_player
    if seat is None or len(game.legal_actions()) < 2:
        raise ValueError("ismcts_root: the decision needs at least two legal moves")
    knowledge = SeatKnowledge(game, seat)
    core = core_position(game, module)
    names = game.board.moves
    weights, replan = None, None
    if guide is not None:
        arguments = getattr(guide, "core_arguments", None)
        if arguments is None:  # a guide the core does not know: the Python search runs it
            return None
        weights, replan = arguments
    children = module.koenig_search.ismcts_root(
        core,
        simulations,
        exploration,
        scale,
        knowledge.deal_data(),
        rng.getrandbits(64),
        weights,
        replan,
        widen,
        margin_weight,
        paired,
        *test,
        widen_visits,
        root_moves,
    )
    # paired: also the win shares and margins per round
    return [(names[m], int(visits), float(mean), *map(list, per_round)) for m, visits, mean, *per_round in children]


def heuristic_values(game: Any, weights: Any, replan: int, deck_probs: list[float]) -> list[tuple[int, float]] | None:
    """The ``heuristic`` agent's candidates for the seat on turn valued by the core (``cpp/src/koenig/heuristic.hpp``):
    ``[(move id, value)]`` as :meth:`agents.baselines.koenig_heuristic_plan._Planner.candidates` lists them (equal to
    about 1e-12). ``weights``: a ``HeuristicWeights`` or its 10 fields in order; ``deck_probs``: per card type, what the
    seat knows of the deck's next card. ``None`` when the core is not used, ``game`` is not plain, or it is a
    determinized world (:meth:`Game.with_hidden`); ``TypeError`` / ``ValueError`` naming the argument for bad input."""
    if not _plain(game):
        return None
    module = core_module()
    if module is None:
        return None
    if dataclasses.is_dataclass(weights) and not isinstance(weights, type):
        weights = [getattr(weights, f.name) for f in dataclasses.fields(weights)]
    if isinstance(deck_probs, np.ndarray):
        deck_probs = deck_probs.tolist()
    if game.compiled:
        core = game.core
    else:
        try:
            _ = game.initial_deck
        except RuntimeError:  # a determinized world (Game.with_hidden): no deck to replay it from
            return None
        core = core_position(game, module)
    return [(int(m), float(v)) for m, v in module.koenig_search.heuristic_values(core, weights, deck_probs, replan)]
