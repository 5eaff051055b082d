"""Kardinal & König's searches and heuristic in the compiled core: the ``compiled_ismcts`` of its
agents' registry entry (:mod:`agents.games`), and the core's valuation of the ``heuristic`` agent's
candidates (:mod:`agents.baselines.koenig_heuristic`, :mod:`agents.search.heuristic_rollouts`).

:func:`ismcts_root` is ``ismcts:N`` (and, with a guide, ``gismcts:N`` / ``pismcts:N``) run by the core
(``KoenigGame.ismcts_root``), draw for draw the Python search's; :func:`heuristic_values` values the
heuristic's candidates in the core (``KoenigGame.heuristic_values``, ``cpp/src/koenig/heuristic.hpp``).
Both answer ``None`` when they cannot (the core not used, or a game the core does not see as it is),
and the caller then runs the Python code. The core is reached through
:mod:`kardinal_env.koenig.compiled` (``KARDINAL_ENV_BACKEND`` chooses it).
"""

from __future__ import annotations

import dataclasses
import random
from types import ModuleType
from typing import Any

import numpy as np

from kardinal_env.koenig.compiled import core_module, core_position
from kardinal_env.koenig.core_game import CoreGame
from kardinal_env.koenig.engine import Game
from kardinal_env.koenig.knowledge import SeatKnowledge

__all__ = ["ismcts_root", "heuristic_values", "heuristic_core"]


def _plain(game: Any) -> bool:
    """Whether ``game`` is a plain :class:`Game` or a plain core-backed one (a subclass may change what
    the core cannot see)."""
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
    """``ismcts:simulations``'s search (:class:`agents.search.ismcts.ISMCTSAgent` with its default
    ``rollout_moves=0``; with ``guide``, a :class:`agents.search.heuristic_rollouts.HeuristicGuide`, the
    guided search ``gismcts:simulations``, each node searching the mover's ``widen`` best moves, its
    playouts valued with ``margin_weight``; a guide without ``core_arguments`` is left to the Python
    search) of the seat on turn, run by the core: the root's children as ``(move, visits, mean value of
    the seat on turn)`` in expansion order (the agent plays the most visited; ties: the higher mean, then
    the first); with ``paired`` (and a guide) the paired root (``pismcts:N``), each child as ``(move,
    visits, mean, [the seat's win share per round], [its final margin per round])``, its rounds stopped
    by the paired ``test`` ``(batch, z, t_continue, win_bonus)`` (as ``ISMCTSAgent`` takes them);
    ``widen_visits`` as ``ISMCTSAgent`` takes it (progressive widening of the guide's moves); ``root_moves``
    (action ids): the paired root's children (``None``: the guide's best in the first world). It draws one
    ``rng.getrandbits(64)``, the search's seed, as the Python search does, and hands the core the seat's
    knowledge
    (:meth:`~kardinal_env.koenig.knowledge.SeatKnowledge.deal_data`, no hidden card): the core deals each
    world with the same algorithm (``cpp/src/koenig/worlds.hpp``) on the same
    :class:`~kardinal_env.core.shuffle.ShuffleRng` stream and draws the expansion choices from it, so
    the result is the Python search's, draw for draw (``tests/test_core_koenig.py``). ``None``, without
    touching ``rng``, when the core is not used or ``game`` is neither a plain :class:`Game` nor a
    plain core-backed one (:class:`~kardinal_env.koenig.core_game.CoreGame`, searched on a copy of its
    core); ``ValueError`` when the decision has fewer than two legal moves."""
    if not _plain(game):
        return None
    module = core_module()
    if module is None:
        return None
    seat = game.current_player
    if seat is None or len(game.legal_move_ids()) < 2:
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
    children = core.ismcts_root(
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
    if paired:
        return [
            (names[m], int(v), float(mean), list(shares), list(margins)) for m, v, mean, shares, margins in children
        ]
    return [(names[m], int(visits), float(mean)) for m, visits, mean in children]


def heuristic_core() -> ModuleType | None:
    """The core module when it is used and has the heuristic (``KoenigGame.heuristic_values``), else None;
    quiet (no not-built warning: the heuristic then plays in Python, as a pure-Python install does)."""
    module = core_module()
    if module is None or not hasattr(module.KoenigGame, "heuristic_values"):
        return None
    return module


def heuristic_values(game: Any, weights: Any, replan: int, deck_probs: list[float]) -> list[tuple[int, float]] | None:
    """The ``heuristic`` agent's candidates for the seat on turn, valued by the core
    (``cpp/src/koenig/heuristic.hpp``): ``[(move id, value)]`` as
    :meth:`agents.baselines.koenig_heuristic_plan._Planner.candidates` lists them before its tie-break (the
    same ids in the same order, values equal to about 1e-12: ``tests/test_core_koenig_heuristic.py``).
    ``weights``: a ``HeuristicWeights`` (any dataclass of its 10 fields) or the 10 fields in order;
    ``replan``: a positive int; ``deck_probs``: per card type index, what the seat knows of the deck's
    next card (``deck_probabilities(game, seat)``; only read when the seat may get another turn). The
    core reads the public state and the seat's own hand, nothing else. ``None`` when the core is not
    used (:func:`heuristic_core`, asked quietly), ``game`` is neither a plain :class:`Game` nor a plain
    core-backed one, or it is a determinized world (:meth:`Game.with_hidden`; a Python game is replayed
    into the core, :func:`~kardinal_env.koenig.compiled.core_position`); ``TypeError`` / ``ValueError``
    naming the argument for bad input, ``ValueError`` once the game is over."""
    if not _plain(game):
        return None
    module = heuristic_core()
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
    return [(int(m), float(v)) for m, v in core.heuristic_values(weights, deck_probs, replan)]
