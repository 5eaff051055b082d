"""Batched games: :class:`VectorEnv` steps N games of one registered game in one call.

For RL code that wants many games per call (as EnvPool or Gymnasium's vector environments give)::

    from kardinal_env.vector import VectorEnv
    env = VectorEnv("kardinal", num_envs=64, players=4, seed=0)       # backend="auto": the C++ core
    out = env.reset()
    while training:
        actions = policy(out.observation, out.action_mask, out.current_player)   # (64,) action ids
        out = env.step(actions)              # one move in every game; ended games restart at once
        learn(out.rewards, out.terminated, out.info["final_info"])

======================  ============================================================================
game, players, options  a registered game (``"kardinal"``, ``"kardinal_koenig"``, ...), its seat count
                        (default: the game's) and rule options by name (every keyword of the game's
                        rules class: Kardinal ``preset``, ``shared_pool``, ``exhausted_colour``,
                        ``neutral_build_chips``, ``neutral_touch_chips``, ``window``; K&K ``discard``,
                        ``board``), or a ready ``rules=`` object; other keywords go to the game's
                        observation encoder (``spec.make_encoder(rules, **options)``)
``reward``              ``"win_loss"`` (default) or ``"margin"``; ``chip_shaping`` (Kardinal only) and
                        ``score_shaping`` (below)
``illegal_action``      ``"raise"`` (default) or ``"lose"`` (below)
Actions                 ``step(actions)``: an integer array of shape ``(N,)``, ``actions[i]`` the action
                        id (``Discrete(A)``, the AEC env's action space) of the seat to act in game ``i``
``observation``         ``(N, *obs_shape)``: game ``i`` seen by ``current_player[i]``, the AEC env's
                        ``observation`` (Kardinal: ``uint8 (72, W, W)``, ``W = 53`` by default, 202 KB
                        a game; K&K: ``float32 (494,)``)
``action_mask``         ``(N, A)`` bool: the legal actions of ``current_player[i]`` (never all zero)
``current_player``      ``(N,)`` int64: the seat to act in each game
``rewards``             ``(N, players)`` float32: what every seat earned from the step's move (below)
``terminated``          ``(N,)`` bool: game ``i`` ended with this step's move (and was reset)
``truncated``           ``(N,)`` bool: always False (every game ends; no time limit)
``final_observation``   ``(N, *obs_shape)``: where ``terminated[i]``, the final position of the game
                        that ended, seen by the seat whose move ended it; other rows keep older data
``final_info``          ``{i: {"scores", "winners", "move_count", "last_player"}}`` for the games that
                        ended in the step (``scores``/``winners`` as the AEC env's final ``infos``;
                        ``last_player``: the seat whose move ended it; a forfeit adds
                        ``illegal_action``, below)
``legal_actions(i)``    the legal action ids of game ``i`` (int64, the engine's order); no argument: a
                        list of all N
======================  ============================================================================

``reset(seed=None)`` and ``step(actions)`` return a :class:`VectorStep` (``observation``,
``action_mask``, ``current_player``, ``rewards``, ``terminated``, ``truncated``, ``info`` holding
``final_observation`` and ``final_info``). **The arrays are read-only views of the environment's own
buffers**, allocated once and overwritten in place by the next ``reset``/``step`` (the core backend
rewrites only what changed in each row); keep a copy (``np.copy``) of what must survive, or pass
``copy=True`` to get writable copies. Writing into them raises NumPy's ``ValueError``. One call at a
time: an environment is not meant to be shared by threads (the core refuses a second call meanwhile).

Rewards
=======

Exactly what the AEC env (``kardinal_v0``, ``kardinal_koenig_v1``, the generic ``GameEnv``) hands out
for the same move: ``rewards[i, s]`` equals its ``rewards["player_s"]`` after the same ``step``, so a
seat's rewards summed over steps are what it collects through ``last()``. That is ``chip_shaping``
times the chips the acting seat took with the move (Kardinal; 0 on the move that ends the game), plus,
on the move that ends the game, every seat's terminal reward
(:func:`kardinal_env.core.rewards.terminal_rewards`: ``"win_loss"`` +1 for every winner, -1 for the
others; ``"margin"`` ``clip((own - best other score) / 20, -1, 1)``). Every other entry is 0.
``score_shaping`` (default 0; not in the AEC envs) adds the self-play trainer's potential-based term
(:class:`kardinal_env.core.rewards.ShapingTracker`): the acting seat also earns ``score_shaping`` times
the change of its projected margin (:func:`~kardinal_env.core.rewards.projected_margins`) that its move
caused, the last move included (after the chip term, as in the tracker).

Auto-reset
==========

Gymnasium's ``AutoresetMode.SAME_STEP``: when game ``i`` ends in a step, that step's ``rewards[i]``,
``terminated[i] = True``, ``final_observation[i]`` and ``final_info[i]`` belong to the game that ended,
and ``observation[i]``, ``action_mask[i]`` and ``current_player[i]`` already show the first decision of
the next game, which the next ``step`` plays: every row of every step is a real decision.

Seeds
=====

Game slot ``i`` has its own generator: ``reset(seed=s)`` (or ``VectorEnv(seed=s)`` before the first
``reset``) seeds it with ``random.Random(s + i)`` (a list of N seeds: ``random.Random(seeds[i])``;
seeds are integers ``>= 0``); ``reset()`` without a seed keeps the generators going (never seeded:
seeded by the OS). Each game that starts in slot ``i``, at a reset or an auto-reset, is dealt (a game
with chance, ``spec.chance``: Kardinal & König) with the seed ``generator.getrandbits(64)``. So the
games of slot ``i`` are those of an AEC env after ``reset(seed=s + i)`` and a plain ``reset()`` for each
later game. Kardinal has no chance: its games all start from the same position.

Backends
========

* ``"python"``: the readable reference, for every registered game: N games of the registry
  (``spec.new_game``) played through the game protocol (:mod:`kardinal_env.core.protocol`:
  ``legal_actions``, ``apply_action``), one encoder per game (``spec.make_encoder``). ``threads``
  does nothing here.
* ``"core"``: the game stepped in C++ (``kardinal_core.KardinalBatch``, cpp/src/kardinal/batch.hpp;
  ``kardinal_core.KoenigBatch``, cpp/src/koenig/batch.hpp). One call checks every action, plays every
  move, auto-resets and writes every array (the core's own buffers, shared with NumPy) with the GIL
  released; ``threads=k >= 2`` splits the games over ``k`` std::threads (the results do not depend on
  ``k``). Kardinal & König's deals keep the seeds above: each slot's next seed is drawn ahead into the
  batch's ``next_seed`` (the same shuffles in C++ as in Python, :mod:`kardinal_env.core.shuffle`).
  ``game(i)`` copies game ``i`` into a core-backed ``Game``. Byte for byte the python backend's output
  (``tests/test_vector.py``). Needs the compiled core; a game registered under another name with the
  same engine and rules classes qualifies, any other game or encoder options do not (``ValueError``).
* ``"auto"`` (default; ``None`` too): ``"core"`` when the game is Kardinal or Kardinal & König without
  encoder options and the core is used (:func:`kardinal_env.core.backend.core_module`:
  ``KARDINAL_ENV_BACKEND=python`` turns it off), else ``"python"``.

The backends, the forfeit handling below included, are :mod:`kardinal_env.vector_backends`.

Illegal actions
===============

Every action is checked before any game moves. Actions that are not an integer array of shape
``(N,)`` raise ``TypeError`` (floats, bools, objects) or ``ValueError`` (another shape), and an id
outside ``[0, A)`` raises :class:`IllegalActionError` (rule ``"action"``) in every mode: a bug of the
caller, not a choice among the actions. Nothing is rounded, clipped or cast. An id of ``[0, A)`` that
is not legal in its game follows ``illegal_action`` (:mod:`kardinal_env.core.illegal`):

* ``"raise"``: :class:`IllegalActionError` (an :class:`~kardinal_env.core.errors.IllegalMoveError`,
  a ``ValueError``) whose message starts ``game i:`` and carries the engine's message naming the
  broken rule (``rule``; ``index``: the game); no game moves. Of several bad actions it names the first out of
  range, else the first illegal one.
* ``"lose"``: pgx's rule: that game ends by the forfeit of its seat to act, the others play their
  moves. ``terminated[i]`` is True, ``rewards[i]`` is -1 for the offender and +1 for every other seat
  (both schemes; no shaping: no move was played), ``final_observation[i]`` is the position at the
  forfeit seen by the offender, ``final_info[i]`` is ``{"scores": None, "winners": [the other seats],
  "illegal_action": {"rule", "message", "action", "move", "seat"}, "move_count", "last_player": the
  offender}``, and the slot's next game (dealt with the slot's next seed) is already in its rows.

**Forfeits on the core backend.** The batch cannot restart one game alone, so a slot whose game is
forfeited goes on *in Python* until the next ``reset()``, as the python backend plays it, its rows
written over the batch's after each step (the batch plays legal moves in a stand-in game there). The
output stays the python backend's, byte for byte; such a slot costs what a python slot costs. A policy
that follows the masks never forfeits.

Relation to Gymnasium and PettingZoo
====================================

N AEC games stepped at once, one decision each, with the same observations, masks, action ids and
rewards (``tests/test_vector.py`` checks it against N AEC envs). It has Gymnasium's ``VectorEnv``
attributes (``num_envs``, ``single_observation_space``/``single_action_space``,
``observation_space``/``action_space``, same-step auto-reset) but is no subclass: Gymnasium's vector
API is single-agent (one reward per sub-env, no mask, no turns), and its wrappers would treat
``(N, players)`` rewards and turn-based seats wrongly.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from kardinal_env.core import limits
from kardinal_env.core.checks import check_action, is_integral
from kardinal_env.core.errors import IllegalMoveError, OutOfRangeError, StateError
from kardinal_env.core.generic_env import observation_bounds
from kardinal_env.core.illegal import check_illegal_action
from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.core.rewards import check_scheme
from kardinal_env.vector_backends import Arrays, CoreBackend, PythonBackend, choose_backend, explain

__all__ = ["VectorEnv", "VectorStep", "IllegalActionError", "BACKENDS"]

#: The backends :class:`VectorEnv` accepts.
BACKENDS = ("auto", "core", "python")


class IllegalActionError(IllegalMoveError):
    """An action of game ``index`` that is out of range or illegal; the message starts ``game i:`` and
    carries the engine's message, ``rule`` names the broken rule (``"action"``: not an id of the
    action space), ``move`` is the action."""

    def __init__(self, message: str, rule: str, move: object, index: int):
        super().__init__(message, rule, move)
        self.index = index


class VectorStep(NamedTuple):
    """What ``reset`` and ``step`` return (the environment's own arrays unless ``copy=True``)."""

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    info: dict


class VectorEnv(Arrays):
    """N games of one registered game stepped together (see the module docstring)."""

    def __init__(
        self,
        game: str | GameSpec = "kardinal",
        num_envs: int = 8,
        players: int | None = None,
        seed: int | Sequence[int] | None = None,
        backend: str | None = "auto",
        threads: int = 0,
        reward: str = "win_loss",
        chip_shaping: float = 0.0,
        score_shaping: float = 0.0,
        rules: Any = None,
        illegal_action: str = "raise",
        **options: Any,
    ):
        spec = self.spec = get_game(game)
        self.num_envs = limits.check_num_envs(num_envs)  # before anything is made per slot
        self.illegal_action = check_illegal_action(illegal_action)
        if not is_integral(threads) or not 0 <= threads <= limits.THREADS:
            raise ValueError(f"threads must be an integer from 0 to {limits.THREADS}, got {threads!r}")
        self.threads = int(threads)
        backend = "auto" if backend is None else backend
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
        self.reward_scheme = check_scheme(reward)
        self.chip_shaping, self.score_shaping = float(chip_shaping), float(score_shaping)
        for name, value in (("chip_shaping", self.chip_shaping), ("score_shaping", self.score_shaping)):
            if not np.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if self.chip_shaping and not hasattr(spec.load("game_class"), "chips_held"):
            raise ValueError(f"chip_shaping needs a game with chips_held(); {spec.name} has none")
        self.rules, self.env_options = _rules_and_env_options(spec, players, rules, options)
        self.num_players = int(self.rules.players)
        if self.env_options:  # options neither the rules nor the encoder take: say which
            try:
                spec.make_encoder(self.rules, **self.env_options)
            except TypeError as exc:
                raise ValueError(
                    f"{spec.name}: option(s) {sorted(self.env_options)} are neither rule options nor options "
                    f"of its observation encoder ({exc})"
                ) from None
        if seed is not None:
            self._check_seed(seed)
        self.backend = choose_backend(spec, self.rules, self.env_options, backend)
        impl: PythonBackend | CoreBackend = (CoreBackend if self.backend == "core" else PythonBackend)(self)
        self._impl = impl
        # made once the backend has checked the batch's size (limits.check_batch counts them)
        self._generators = [random.Random() for _ in range(self.num_envs)]
        self._seed_epoch = 0  # counts the reseedings of the generators (the core backend's seeds ahead)
        if seed is not None:
            self._seed(seed)
        self._share(impl, read_only=True)
        self.truncated = np.zeros(self.num_envs, dtype=bool)
        self.truncated.flags.writeable = False
        self.final_info: dict[int, dict] = {}
        self.num_actions = impl.num_actions
        self.observation_shape: tuple[int, ...] = tuple(self.observation.shape[1:])
        low, high = observation_bounds(impl.encoder_hint, self.observation.dtype)
        dtype: Any = self.observation.dtype
        self.single_observation_space = spaces.Box(low, high, self.observation_shape, dtype=dtype)
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(low, high, (self.num_envs, *self.observation_shape), dtype=dtype)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions, dtype=np.int64))
        self._started = False

    def reset(self, seed: int | Sequence[int] | None = None, copy: bool = False) -> VectorStep:
        """Start a new game in every slot (seeds: the module docstring) and return the first decisions
        (rewards 0, nothing terminated, ``final_info`` empty)."""
        if seed is not None:
            self._seed(seed)
        self._impl.reset()
        self.final_info = {}
        self._started = True
        return self._result(copy)

    def step(self, actions: Any, copy: bool = False) -> VectorStep:
        """Play ``actions[i]`` for the seat to act in game ``i``, for every game; auto-reset the games
        that end. Bad actions raise before any game moves (an illegal one under
        ``illegal_action="lose"`` ends its game by forfeit instead)."""
        self._require_started("step()")
        self.final_info = self._impl.step(self._check_actions(actions))
        return self._result(copy)

    def legal_actions(self, index: int | None = None) -> Any:
        """The legal action ids (int64, in the engine's order) of game ``index`` (a new array), or a
        list of all N when ``index`` is None."""
        self._require_started("legal_actions()")
        if index is None:
            return self._impl.all_legal()
        return self._impl.legal(self._check_index(index))

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action for every game (a new int64 array of shape ``(N,)``), drawn
        from ``rng`` (default: a new unseeded generator) without scanning the masks."""
        self._require_started("random_actions()")
        ids, offsets = self._impl.flat_legal()
        draw = (rng if rng is not None else np.random.default_rng()).random(self.num_envs)
        return ids[offsets[:-1] + (draw * np.diff(offsets)).astype(np.int64)]

    def game(self, index: int) -> Any:
        """A copy of game ``index`` as the registry's game object (for inspection, rendering, records and
        agents that read a game); the core backend copies its C++ game into a core-backed ``Game``."""
        self._require_started("game()")
        return self._impl.game(self._check_index(index))

    def close(self) -> None:
        """Nothing to release (kept for the usual environment API)."""

    def __repr__(self) -> str:
        return (
            f"VectorEnv(game={self.spec.name!r}, num_envs={self.num_envs}, players={self.num_players}, "
            f"backend={self.backend!r}, threads={self.threads})"
        )

    def _require_started(self, what: str) -> None:
        if not self._started:
            raise StateError(f"call reset() before {what}: no game has started")

    def _check_seed(self, seed: int | Sequence[int]) -> list[int]:
        """The slots' seeds: ``seed + i`` for an integer, else the list itself; every one ``>= 0``
        (``random.Random`` seeds by absolute value: ``-1`` would deal as ``1``)."""
        wanted = f"seed must be an integer >= 0 or a list of {self.num_envs} integers >= 0, got {seed!r}"
        if is_integral(seed):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, Sequence) and not isinstance(seed, (str, bytes)):
            if len(seed) != self.num_envs or not all(is_integral(s) for s in seed):
                raise ValueError(wanted)
            seeds = [int(s) for s in seed]
        else:
            raise TypeError(wanted)
        if min(seeds) < 0:
            raise ValueError(wanted)
        return seeds

    def _seed(self, seed: int | Sequence[int]) -> None:
        for generator, s in zip(self._generators, self._check_seed(seed), strict=True):
            generator.seed(s)
        self._seed_epoch += 1

    def _check_actions(self, actions: Any) -> np.ndarray:
        """A checked int64 copy of ``actions``: the copy is played, so another thread writing into the
        caller's array meanwhile changes nothing."""
        array = np.asarray(actions)
        shape = f"({self.num_envs},), one action id per game"
        if array.dtype.kind not in "iu":
            raise TypeError(f"actions must be an integer array of shape {shape}; got dtype {array.dtype}")
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape {shape}; got shape {array.shape}")
        array = np.array(array)
        outside = np.flatnonzero((array < 0) | (array >= self.num_actions))
        if outside.size:
            i = int(outside[0])
            try:
                check_action(array[i], self.num_actions)
            except IllegalMoveError as exc:
                raise IllegalActionError(f"game {i}: {exc}", exc.rule, array[i].item(), i) from None
        return array.astype(np.int64, copy=False)

    def _check_index(self, index: Any) -> int:
        wanted = f"game index must be an integer from 0 to {self.num_envs - 1}, got {index!r}"
        if not is_integral(index):
            raise TypeError(wanted)
        if not 0 <= index < self.num_envs:
            raise OutOfRangeError(wanted)
        return int(index)

    def _result(self, copy: bool) -> VectorStep:
        arrays = (self.observation, self.action_mask, self.current_player, self.rewards, self.terminated)
        final_observation, final_info = self.final_observation, self.final_info
        if copy:
            arrays = tuple(a.copy() for a in arrays)
            final_observation, final_info = final_observation.copy(), {i: dict(v) for i, v in final_info.items()}
        truncated = self.truncated.copy() if copy else self.truncated
        return VectorStep(*arrays, truncated, {"final_observation": final_observation, "final_info": final_info})

    def _illegal(self, index: int, game: Any, action: int) -> IllegalActionError:
        """The error for an in-range action that is not legal in ``game`` (slot ``index``)."""
        exc = explain(game, action)
        return IllegalActionError(f"game {index}: {exc}", exc.rule, action, index)


def _rules_and_env_options(spec: GameSpec, players: int | None, rules: Any, options: dict) -> tuple[Any, dict]:
    """The rules (``rules`` itself, or the rules class called with ``players`` and the options it takes)
    and the remaining options (for the encoder)."""
    rules_class = spec.load("rules_class")
    names = set(inspect.signature(rules_class).parameters) - {"players", "self"}
    rule_options = {k: v for k, v in options.items() if k in names}
    env_options = {k: v for k, v in options.items() if k not in names}
    if rules is not None:
        if rule_options or players is not None:
            raise ValueError("give either rules= or players and rule options, not both")
        if not isinstance(rules, rules_class):
            raise TypeError(f"rules must be a {rules_class.__qualname__} for {spec.name}, got {type(rules).__name__}")
        return rules, env_options
    given = {k: v for k, v in rule_options.items() if v is not None}
    return rules_class(players=spec.check_players(players), **given), env_options
