"""The worker side of a tournament: build the participants' agents once, then play games one by one.

Every back-end (:mod:`agents.evaluation.backends`, :mod:`agents.evaluation.distributed`) plays with this module, so a
game's result does not depend on where it is played.

* :class:`Setup` — what every game of a run shares: registry entry, rules (``rules.to_dict()``), seed, participants
  (specs, or agent objects in the calling process only) and the agents' constructor keywords; :meth:`Setup.portable`
  can be sent to another process (whose registry then registers a game it lacks).
* :class:`GameTask` — one game: its number and what to keep (moves, record).
* :class:`Worker` — builds the agents (``agents.load_agent(spec, game=..., seed=i)``); :meth:`Worker.play` plays one
  game. :func:`build_worker`, :meth:`Worker.play_task` and, in a process pool, :func:`init_process` /
  :func:`play_in_process` raise any failure as one :class:`EvaluationError` naming the game.

Seeds and seats (every back-end): game ``g`` of a run seeded ``seed`` is dealt with
``agents.runinfo.game_seed(seed, g)``; participant ``i`` is reset with ``game_seed(seed, g) * 16 + i`` before it;
participant ``(s + g) % participants`` sits at seat ``s``.

A game's result: ``game``, ``seed``, ``agent_seeds``, ``seats`` (participant per seat), ``scores``, ``winners``,
``finishing_order`` (the engine's groups of seats from first place), ``ranks`` (per seat: 1 + the seats placed before
its group), ``num_moves``, ``decisions`` and ``seconds`` (per seat), and ``moves`` / ``record`` when kept.
"""

from __future__ import annotations

import dataclasses
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents import load_agent
from agents.networks.checkpoint import PlayerCountWarning
from agents.runinfo import game_seed
from kardinal_env.core.registry import GameSpec, games, register_game

__all__ = [
    "EvaluationError",
    "Setup",
    "GameTask",
    "Worker",
    "build_worker",
    "init_process",
    "play_in_process",
    "agent_seed",
    "ranks_from_order",
]


class EvaluationError(RuntimeError):
    """A game of the tournament failed (an agent raised, or a worker died); names the game."""


def agent_seed(seed: int, game_index: int, participant: int) -> int:
    return game_seed(seed, game_index) * 16 + participant


def ranks_from_order(order: list[list[int]], players: int) -> list[int]:
    """Per seat, 1 + the number of seats in the groups before its own (``order``: a finishing order)."""
    ranks, placed = [0] * players, 0
    for group in order:
        for seat in group:
            ranks[seat] = placed + 1
        placed += len(group)
    if sorted(s for group in order for s in group) != list(range(players)):
        raise ValueError(f"finishing order {order} does not place each of the {players} seats once")
    return ranks


@dataclass(frozen=True)
class Setup:
    """What every game of a run shares (see the module docstring)."""

    spec: GameSpec
    rules: dict
    seed: int
    participants: tuple[Any, ...]
    agent_kwargs: Mapping[str, Any] = field(default_factory=dict)

    def portable(self) -> Setup:
        """A copy for worker processes: the spec copied without the modules it cached (unpicklable)."""
        if not all(isinstance(p, str) for p in self.participants):
            raise ValueError("agent objects cannot be sent to worker processes; pass agent spec strings")
        return dataclasses.replace(self, spec=dataclasses.replace(self.spec), agent_kwargs=dict(self.agent_kwargs))


@dataclass(frozen=True)
class GameTask:
    """Game number ``index`` of a run; ``keep_moves`` / ``keep_record``: what its result carries."""

    index: int
    keep_moves: bool = True
    keep_record: bool = False


class Worker:
    """The participants' agents of one process; plays the games of a :class:`Setup`."""

    def __init__(self, setup: Setup, torch_threads: int | None = None, adopt: bool = False):
        self.setup = setup
        # adopt (a worker process): the registered game of the spec's name, or the spec registered now
        self.spec = (games().get(setup.spec.name) or register_game(setup.spec)) if adopt else setup.spec
        self.rules = self.spec.rules_from_dict(setup.rules)
        self.agents = [
            load_agent(p, game=self.spec, seed=i, **dict(setup.agent_kwargs)) if isinstance(p, str) else p
            for i, p in enumerate(setup.participants)
        ]
        if torch_threads and "torch" in sys.modules:  # only if a network agent has imported torch
            sys.modules["torch"].set_num_threads(torch_threads)

    def play(self, task: GameTask) -> dict:
        """Play game ``task.index`` and return its result (see the module docstring)."""
        g, seed, n = task.index, self.setup.seed, len(self.agents)
        for i, agent in enumerate(self.agents):
            if callable(getattr(agent, "reset", None)):
                agent.reset(agent_seed(seed, g, i))
        game = self.spec.new_game(self.rules, seed=game_seed(seed, g))
        players = game.num_players
        seats = [(s + g) % n for s in range(players)]
        think, decisions = [0.0] * players, [0] * players
        while not game.is_over:
            seat = game.current_player
            t0 = time.perf_counter()
            move = self.agents[seats[seat]].select_move(game)
            think[seat] += time.perf_counter() - t0
            decisions[seat] += 1
            game.play(move)  # an illegal move raises an error naming the rule
        order = [list(group) for group in game.finishing_order()]
        out: dict[str, Any] = {
            "game": g,
            "seed": game_seed(seed, g),
            "agent_seeds": [agent_seed(seed, g, i) for i in range(n)],
            "seats": seats,
            "scores": list(game.scores()),
            "winners": list(game.winners()),
            "finishing_order": order,
            "ranks": ranks_from_order(order, players),
            "num_moves": game.move_count,
            "decisions": decisions,
            "seconds": [round(t, 4) for t in think],
        }
        if task.keep_moves:
            out["moves"] = list(game.history)
        if task.keep_record:
            out["record"] = game.to_record()
        return out

    def play_task(self, task: GameTask) -> dict:
        try:
            return self.play(task)
        except Exception as exc:
            raise EvaluationError(f"game {task.index}: {type(exc).__name__}: {exc}") from exc


def build_worker(setup: Setup, torch_threads: int | None = None, adopt: bool = False) -> Worker:
    try:
        return Worker(setup, torch_threads, adopt=adopt)
    except Exception as exc:
        raise EvaluationError(f"building the agents failed: {type(exc).__name__}: {exc}") from exc


_PROCESS: dict[str, Any] = {}  # per worker process: "worker" (a Worker) or "error" (why building it failed)


def init_process(setup: Setup, torch_threads: int | None = None) -> None:
    """Build the process's :class:`Worker`; never raises (a pool would restart a failing initializer
    forever): the error is raised by the first :func:`play_in_process`."""
    warnings.filterwarnings("ignore", category=PlayerCountWarning)  # the caller has reported it once
    _PROCESS.clear()
    try:
        _PROCESS["worker"] = build_worker(setup, torch_threads, adopt=True)
    except EvaluationError as exc:
        _PROCESS["error"] = str(exc)


def play_in_process(task: GameTask) -> dict:
    if "worker" not in _PROCESS:
        raise EvaluationError(_PROCESS.get("error", "this process has no worker: init_process was not called"))
    return _PROCESS["worker"].play_task(task)
