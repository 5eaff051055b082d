"""Batched games: :class:`VectorEnv` steps N games of one registered game in one call (as EnvPool or Gymnasium's vector
environments do)::

    from kardinal_env.vector import VectorEnv
    env = VectorEnv("kardinal", num_envs=64, players=4, seed=0)       # backend="auto": the C++ core
    out = env.reset()
    while training:
        actions = policy(out.observation, out.action_mask, out.current_player)   # (64,) action ids
        out = env.step(actions)              # one move in every game; ended games restart at once
        learn(out.rewards, out.terminated, out.info["final_info"])

======================  ================================================================================================
game, players, options  a registered game, its seat count (default: the game's) and rule options by name (every keyword
                        of its rules class, e.g. Kardinal's ``window``), or a ready ``rules=`` object; other keywords go
                        to the game's observation encoder
``reward``              ``"win_loss"`` (default) or ``"margin"``; ``chip_shaping`` (Kardinal only) and ``score_shaping``
                        (below)
``illegal_action``      ``"raise"`` (default) or ``"lose"`` (below)
Actions                 ``step(actions)``: an integer array of shape ``(N,)``, ``actions[i]`` the action id
                        (``Discrete(A)``, the AEC env's action space) of the seat to act in game ``i``
``observation``         ``(N, *obs_shape)``: game ``i`` seen by ``current_player[i]``, the AEC env's ``observation``
                        (Kardinal: ``uint8 (72, W, W)``, ``W = 53`` by default, 202 KB a game; K&K: ``float32 (494,)``)
``action_mask``         ``(N, A)`` bool: the legal actions of ``current_player[i]`` (never all zero)
``current_player``      ``(N,)`` int64: the seat to act in each game
``rewards``             ``(N, players)`` float32: what every seat earned from the step's move (below)
``terminated``          ``(N,)`` bool: game ``i`` ended with this step's move (and was reset)
``truncated``           ``(N,)`` bool: always False (every game ends; no time limit)
``final_observation``   ``(N, *obs_shape)``: where ``terminated[i]``, the final position of the game that ended, seen by
                        the seat whose move ended it; other rows keep older data
``final_info``          ``{i: {"scores", "winners", "move_count", "last_player"}}`` for the games that ended in the step
                        (the AEC env's final ``infos``; ``last_player``: the seat whose move ended it; a forfeit adds
                        ``illegal_action``, below)
``legal_actions(i)``    the legal action ids of game ``i`` (int64, the engine's order); no argument: all N
======================  ================================================================================================

``reset(seed=None)`` and ``step(actions)`` return a :class:`VectorStep` (``info`` holds ``final_observation`` and
``final_info``). **The arrays are read-only views of the environment's own buffers**, overwritten in place by the next
``reset``/``step``: copy what must survive, or pass ``copy=True``. Writing into them raises NumPy's ``ValueError``. Not
to be shared by threads (the core refuses a second call meanwhile).

It has Gymnasium's ``VectorEnv`` attributes (``num_envs``, ``single_observation_space``, ``observation_space``, ...) but
is no subclass: Gymnasium's vector API is single-agent (one reward per sub-env, no mask, no turns).

Rewards
=======

Exactly the AEC env's: ``rewards[i, s]`` is its ``rewards["player_s"]`` after the same move (Kardinal's
``chip_shaping``, and every seat's terminal reward on the last move, :mod:`kardinal_env.core.rewards`; else 0).
``score_shaping`` (default 0; not in the AEC envs) adds :class:`~kardinal_env.core.rewards.ShapingTracker`'s term: the
acting seat also earns ``score_shaping`` times the change of its projected margin, the last move included.

Auto-reset
==========

Gymnasium's ``AutoresetMode.SAME_STEP``: when game ``i`` ends in a step, that step's ``rewards[i]``, ``terminated[i] =
True``, ``final_observation[i]`` and ``final_info[i]`` belong to the game that ended, and ``observation[i]``,
``action_mask[i]`` and ``current_player[i]`` already show the first decision of the next game: every row of every step
is a real decision.

Seeds
=====

Slot ``i`` has its own generator: ``reset(seed=s)`` (or ``VectorEnv(seed=s)``) seeds it with ``random.Random(s + i)`` (a
list of N seeds: ``random.Random(seeds[i])``; seeds are integers ``>= 0``); ``reset()`` without a seed keeps the
generators going (never seeded: seeded by the OS). Each game with chance (``spec.chance``) that starts in slot ``i`` is
dealt with ``generator.getrandbits(64)``, so the games of slot ``i`` are those of an AEC env after ``reset(seed=s + i)``
and a plain ``reset()`` for each later game. Kardinal has no chance: its games all start from the same position.

Backends
========

* ``"python"``: the reference, for every registered game: N registry games played by action id, one encoder per game.
  Ignores ``threads``.
* ``"core"``: the game stepped in C++ (``kardinal_core.KardinalBatch``, ``KoenigBatch``): one call checks every action,
  plays every move, auto-resets and writes every array (shared with NumPy) with the GIL released; ``threads=k >= 2``
  splits the games over ``k`` std::threads (results do not depend on ``k``). Same seeds and deals as above; ``game(i)``
  copies game ``i`` into a core-backed ``Game``. Byte for byte the python backend's output, forfeits included (a
  forfeited slot plays on in Python until the next ``reset()``). Needs the compiled core and Kardinal's or K&K's engine
  and rules classes (under any name); other games or encoder options: ``ValueError``.
* ``"auto"`` (default; ``None`` too): ``"core"`` where it applies and the core is used
  (:func:`kardinal_env.core.backend.core_module`; ``KARDINAL_ENV_BACKEND=python`` turns it off), else ``"python"``.

Illegal actions
===============

Every action is checked before any game moves: not an integer array of shape ``(N,)``: ``TypeError`` (floats, bools,
objects) or ``ValueError`` (another shape); an id outside ``[0, A)``: :class:`IllegalActionError` (rule ``"action"``) in
every mode, nothing rounded, clipped or cast. An in-range id not legal in its game follows ``illegal_action``
(:mod:`kardinal_env.core.illegal`, which specifies the forfeit and its report):

* ``"raise"``: :class:`IllegalActionError` (an :class:`~kardinal_env.core.errors.IllegalMoveError`, a ``ValueError``)
  whose message starts ``game i:`` and carries the engine's message naming the broken rule (``rule``; ``index``: the
  game); no game moves. Of several bad actions it names the first out of range, else the first illegal one.
* ``"lose"``: that game ends by forfeit of its seat to act, the others play their moves: ``terminated[i]``,
  ``rewards[i]`` -1 for the offender and +1 for every other seat (no shaping), ``final_observation[i]`` the position
  seen by the offender, ``final_info[i]`` the forfeit's report plus ``move_count`` and ``last_player`` (the offender);
  the slot's next game is already in its rows.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from kardinal_env.core import limits
from kardinal_env.core.backend import core_module
from kardinal_env.core.checks import check_action, is_integral
from kardinal_env.core.errors import IllegalMoveError, OutOfRangeError, StateError
from kardinal_env.core.generic_env import observation_bounds
from kardinal_env.core.illegal import check_illegal_action, forfeit
from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.core.rewards import ShapingTracker, check_scheme, terminal_rewards

__all__ = ["VectorEnv", "VectorStep", "IllegalActionError", "BACKENDS"]

#: The backends :class:`VectorEnv` accepts.
BACKENDS = ("auto", "core", "python")


def explain(game: Any, action: int) -> IllegalMoveError:
    """The engine's error (naming the broken rule) for an in-range ``action`` not legal in ``game``."""
    try:
        game.clone().apply_action(action)
    except IllegalMoveError as exc:
        return exc
    return IllegalMoveError(  # the engine took it: its legal_actions() and apply_action disagree
        f"action {action} is not among the game's legal actions, yet apply_action played it", "action", action
    )


def _flat(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every game's legal ids in one array, and the ``N + 1`` offsets where each game's ids start."""
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([ids.size for ids in rows], out=offsets[1:])
    return np.concatenate(rows), offsets


def _show_mask(row: np.ndarray, legal: np.ndarray) -> None:
    row[:] = False
    row[legal] = True


class Arrays:
    """The arrays (:data:`ARRAYS`, these annotations) a backend owns; ``VectorEnv`` holds read-only views of them."""

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    final_observation: np.ndarray

    def _share(self, owner: Arrays, read_only: bool = False) -> None:
        """Hold ``owner``'s arrays (``read_only``: backends rewrite only what changed: a write corrupts later steps)."""
        for name in ARRAYS:
            array = getattr(owner, name)
            if read_only:
                array = array.view()
                array.flags.writeable = False
            setattr(self, name, array)


ARRAYS = tuple(Arrays.__annotations__)


class IllegalActionError(IllegalMoveError):
    """An out-of-range or illegal action of game ``index`` (the module docstring); ``move``: the action."""

    def __init__(self, message: str, rule: str, move: object, index: int):
        super().__init__(message, rule, move)
        self.index = index

    @classmethod
    def of(cls, index: int, exc: IllegalMoveError, action: int) -> IllegalActionError:
        return cls(f"game {index}: {exc}", exc.rule, action, index)


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
        rules, self.env_options = _rules_and_env_options(spec, players, rules, options)
        self.rules, self.num_players = rules, int(rules.players)
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
        make = None if backend == "python" else _core_batch(spec, rules)
        if backend == "core" and (make is None or self.env_options):
            why = f"options {sorted(self.env_options)}" if self.env_options and make is not None else spec.name
            raise ValueError(
                f"backend='core' steps Kardinal and Kardinal & König games only, without encoder "
                f"options ({why} has no C++ batch); use backend='python' or 'auto'"
            )
        self._impl: PythonBackend | CoreBackend
        if make is None or self.env_options or (backend == "auto" and core_module() is None):
            self.backend, self._impl = "python", PythonBackend(self)
        else:
            self.backend, self._impl = "core", CoreBackend(self, make)
        # made once the backend has checked the batch's size (limits.check_batch counts them)
        self._generators = [random.Random() for _ in range(self.num_envs)]
        self._seed_epoch = 0  # counts the reseedings of the generators (the core backend's seeds ahead)
        if seed is not None:
            self._seed(seed)
        self._share(self._impl, read_only=True)
        self.truncated = np.zeros(self.num_envs, dtype=bool)
        self.truncated.flags.writeable = False
        self.final_info: dict[int, dict] = {}
        self.num_actions = self._impl.num_actions
        self.observation_shape: tuple[int, ...] = tuple(self.observation.shape[1:])
        low, high = observation_bounds(self._impl.encoder_hint, self.observation.dtype)
        dtype: Any = self.observation.dtype
        self.single_observation_space = spaces.Box(low, high, self.observation_shape, dtype=dtype)
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(low, high, (self.num_envs, *self.observation_shape), dtype=dtype)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions, dtype=np.int64))
        self._started = False

    def reset(self, seed: int | Sequence[int] | None = None, copy: bool = False) -> VectorStep:
        """Start a new game in every slot and return the first decisions (rewards 0, nothing terminated)."""
        if seed is not None:
            self._seed(seed)
        self._impl.reset()
        self.final_info = {}
        self._started = True
        return self._result(copy)

    def step(self, actions: Any, copy: bool = False) -> VectorStep:
        """Play ``actions[i]`` in every game ``i``; auto-reset the games that end (the module docstring)."""
        self._require_started("step()")
        self.final_info = self._impl.step(self._check_actions(actions))
        return self._result(copy)

    def legal_actions(self, index: int | None = None) -> Any:
        """The legal action ids (a new int64 array) of game ``index``, or a list of all N (``None``)."""
        self._require_started("legal_actions()")
        if index is None:
            ids, offsets = self._impl.flat_legal()
            return np.split(ids, offsets[1:-1])
        return self._impl.legal(self._check_index(index))

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action for every game (a new ``(N,)`` int64 array), drawn from ``rng``."""
        self._require_started("random_actions()")
        ids, offsets = self._impl.flat_legal()
        draw = (rng if rng is not None else np.random.default_rng()).random(self.num_envs)
        return ids[offsets[:-1] + (draw * np.diff(offsets)).astype(np.int64)]

    def game(self, index: int) -> Any:
        """A copy of game ``index`` as the registry's game object (core backend: a core-backed ``Game``)."""
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
        """The slots' seeds: ``seed + i``, or the list; each ``>= 0`` (``random.Random(-1)`` deals as ``Random(1)``)."""
        wanted = f"seed must be an integer >= 0 or a list of {self.num_envs} integers >= 0, got {seed!r}"
        if is_integral(seed):
            seed = [int(seed) + i for i in range(self.num_envs)]
        elif not isinstance(seed, Sequence) or isinstance(seed, (str, bytes)):
            raise TypeError(wanted)
        if len(seed) != self.num_envs or not all(is_integral(s) and s >= 0 for s in seed):
            raise ValueError(wanted)
        return [int(s) for s in seed]

    def _seed(self, seed: int | Sequence[int]) -> None:
        for generator, s in zip(self._generators, self._check_seed(seed), strict=True):
            generator.seed(s)
        self._seed_epoch += 1

    def _check_actions(self, actions: Any) -> np.ndarray:
        """A checked int64 copy of ``actions`` (a thread writing the caller's array meanwhile changes nothing)."""
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
                raise IllegalActionError.of(i, exc, array[i].item()) from None
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


def _rules_and_env_options(spec: GameSpec, players: int | None, rules: Any, options: dict) -> tuple[Any, dict]:
    """The rules (``rules``, or the rules class called with ``players`` and its options) and the encoder's options."""
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


# VectorEnv checks arguments and actions, then hands the batch to PythonBackend or CoreBackend. A backend owns the
# ARRAYS and offers num_actions, encoder_hint (bounds of the observation space), reset(), step(actions) -> the final
# infos, legal(i), flat_legal() and game(i); it reads the env's settings and per-slot generators (env._seed_epoch
# counts their reseedings).


class PythonBackend(Arrays):
    """The reference backend; ``buffers``: an object whose :data:`ARRAYS` it writes (detached slots), else its own."""

    def __init__(self, env: VectorEnv, buffers: Arrays | None = None):
        spec, rules, n = env.spec, env.rules, env.num_envs
        self.env = env
        self.encoder_hint = spec.make_encoder(rules, **env.env_options)
        self.encoders: list[Any] = [self.encoder_hint] + [None] * (n - 1)
        probe = spec.new_game(rules, seed=0 if spec.chance else None)
        self.num_actions = int(probe.num_actions)
        shaping = env.chip_shaping or env.score_shaping
        self.shaping = ShapingTracker(env.chip_shaping, env.score_shaping) if shaping else None
        self.games: list[Any] = [None] * n
        self.legal_ids: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * n
        if buffers is not None:
            self._share(buffers)
            return
        first = np.asarray(self.encoder_hint.encode(probe, probe.current_player))
        # two observations, a mask row and 4 KB, a floor for the slot's generator (2.5 KB alone), game and encoder
        limits.check_batch(n, 2 * first.nbytes + self.num_actions + 4096)
        self.observation = np.zeros((n, *first.shape), dtype=first.dtype)
        self.final_observation = np.zeros_like(self.observation)
        self.action_mask = np.zeros((n, self.num_actions), dtype=bool)
        self.current_player = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, env.num_players), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)

    def encoder(self, i: int) -> Any:
        encoder = self.encoders[i]
        if encoder is None:
            encoder = self.encoders[i] = self.env.spec.make_encoder(self.env.rules, **self.env.env_options)
        return encoder

    def new_game(self, i: int, seed: int | None = None) -> Any:
        """Slot ``i``'s next game, dealt with ``seed`` (default: the slot generator's next draw)."""
        spec = self.env.spec
        if spec.chance and seed is None:
            seed = self.env._generators[i].getrandbits(64)
        return spec.new_game(self.env.rules, seed=seed if spec.chance else None)

    def show(self, i: int) -> None:
        game = self.games[i]
        seat = game.current_player
        self.legal_ids[i] = legal = np.asarray(game.legal_actions(), dtype=np.int64)
        self.current_player[i] = seat
        self.observation[i] = self.encoder(i).encode(game, seat)
        _show_mask(self.action_mask[i], legal)

    def reset(self) -> None:
        for i in range(len(self.games)):
            self.games[i] = self.new_game(i)
            self.show(i)
        self.rewards[:] = 0.0
        self.terminated[:] = False

    def step(self, actions: np.ndarray) -> dict[int, dict]:
        moves = actions.tolist()
        legal = [bool((ids == action).any()) for ids, action in zip(self.legal_ids, moves, strict=True)]
        if self.env.illegal_action == "raise" and not all(legal):  # checked before any game moves
            i = legal.index(False)
            raise IllegalActionError.of(i, explain(self.games[i], moves[i]), moves[i])
        final: dict[int, dict] = {}
        for i, action in enumerate(moves):
            info = self.play(i, action) if legal[i] else self.lose(i, action)
            if info is not None:
                final[i] = info
        return final

    def play(self, i: int, action: int) -> dict | None:
        """Play the legal ``action`` in game ``i``, write its rows; the final info if the game ended (restarted)."""
        env, shaping, game = self.env, self.shaping, self.games[i]
        seat = game.current_player
        if shaping is not None:
            shaping.before(game, seat)
        game.apply_action(action)
        earned = [0.0] * env.num_players
        if shaping is not None:  # the per-move reward of the acting seat
            earned[seat] = shaping.reward(game, seat)
        if game.is_over:  # every seat's terminal reward, added as the AEC env adds it (in float64)
            terminal = terminal_rewards(game, env.reward_scheme)
            ended = {"scores": game.scores(), "winners": game.winners()}
            return self._end(i, seat, [e + r for e, r in zip(earned, terminal, strict=True)], ended)
        self.terminated[i] = False
        self.rewards[i] = earned
        self.show(i)
        return None

    def lose(self, i: int, action: int, next_seed: int | None = None) -> dict:
        """Game ``i`` ends by forfeit of the seat to act (:func:`kardinal_env.core.illegal.forfeit`), its next game
        dealt with ``next_seed`` (default: the generator's next draw); the final info."""
        game = self.games[i]
        seat = game.current_player
        lost = forfeit(explain(game, action), action, seat, self.env.num_players, self.env.reward_scheme)
        return self._end(i, seat, lost.rewards, lost.info(), next_seed)

    def _end(self, i: int, seat: int, rewards: Any, info: dict, next_seed: int | None = None) -> dict:
        """Game ``i`` ended by ``seat``'s move or forfeit: the slot's rows, its next game, its final info."""
        game = self.games[i]
        self.terminated[i] = True
        self.final_observation[i] = self.encoder(i).encode(game, seat)
        self.rewards[i] = rewards
        self.games[i] = self.new_game(i, next_seed)
        self.show(i)
        return {**info, "move_count": game.move_count, "last_player": seat}

    def legal(self, i: int) -> np.ndarray:
        return self.legal_ids[i].copy()

    def flat_legal(self) -> tuple[np.ndarray, np.ndarray]:
        return _flat(self.legal_ids)

    def game(self, i: int) -> Any:
        return self.games[i].clone()


class CoreBackend(Arrays):
    """A game stepped in C++ by its batch, which owns the arrays; for a game with chance this side keeps each slot's
    ``next_seed`` one draw ahead of its generator, so every deal is the python backend's."""

    def __init__(self, env: VectorEnv, make: Callable[[VectorEnv], tuple[Any, Any, Callable[[int], Any]]]):
        self.env = env
        self.batch, self.encoder_hint, self._game = make(env)
        self.num_actions = int(self.batch.num_actions)
        self._share(self.batch)
        # the seed of each slot's next deal, drawn from its generator ahead of time (chance games only)
        self._next_seed: np.ndarray | None = self.batch.next_seed if env.spec.chance else None
        self._drawn_for = -1  # env._seed_epoch of the generators _next_seed was drawn from
        # detached (forfeited) slots, in Python until the next reset, each with its games' last final observation
        self.detached: dict[int, np.ndarray] = {}

    def _draw(self, slots: Iterable[int]) -> None:
        generators, seeds = self.env._generators, self._next_seed
        assert seeds is not None
        for i in slots:
            seeds[i] = generators[i].getrandbits(64)

    def reset(self) -> None:
        env, slots = self.env, range(self.env.num_envs)
        if self._next_seed is not None:  # stale seeds: all if reseeded or never drawn, else those dealt in Python
            self._draw(slots if self._drawn_for != env._seed_epoch else self.detached)
        for i in self.detached:  # hand the slot back to the batch, its rows as the batch last wrote them
            stand_in = self._game(i)
            self.observation[i] = self.python.encoder(i).encode(stand_in, stand_in.current_player)
            _show_mask(self.action_mask[i], self.batch.legal_action_ids(i))
            self.python.games[i] = None
        self.detached.clear()
        self.batch.reset(env.threads)
        if self._next_seed is not None:
            self._draw(slots)
            self._drawn_for = env._seed_epoch

    def step(self, actions: np.ndarray) -> dict[int, dict]:
        if not self.detached:
            bad = self.batch.step(actions, self.env.threads)
            if bad < 0:
                return self._finals(np.flatnonzero(self.terminated).tolist())
            if self.env.illegal_action == "raise":  # nothing moved: explain with the Python engine's error
                raise IllegalActionError.of(bad, explain(self.game(bad), int(actions[bad])), int(actions[bad]))
        return self._step_with_forfeits(actions)

    def _finals(self, ended: list[int]) -> dict[int, dict]:
        """The final infos of the batch's games that ended in ``ended`` (and their slots' next seeds)."""
        if not ended:
            return {}
        if self._next_seed is not None:
            self._draw(ended)  # the slots that dealt a new game: their next seeds
        b = self.batch
        scores, winners, moves, last = b.final_scores, b.final_winners, b.final_moves, b.final_player
        return {
            i: {
                "scores": scores[i].tolist(),
                "winners": np.flatnonzero(winners[i]).tolist(),
                "move_count": int(moves[i]),
                "last_player": int(last[i]),
            }
            for i in ended
        }

    def _step_with_forfeits(self, actions: np.ndarray) -> dict[int, dict]:
        """A step with forfeits or detached slots: the batch plays stand-ins there, the python backend the real ones."""
        env, batch, python = self.env, self.batch, self.python
        legal = self.action_mask[np.arange(env.num_envs), actions]  # the masks the caller was shown
        seeds: dict[int, int | None] = {}  # the newly forfeited slots' next deals' seeds (drawn ahead)
        for i in np.flatnonzero(~legal).tolist():
            if i not in self.detached:  # the forfeited game, before the batch moves its slot on (and may deal)
                python.games[i] = self._game(i)
                seeds[i] = None if self._next_seed is None else int(self._next_seed[i])
        python_slots = [*self.detached, *seeds]
        batch_actions = actions.copy()
        for i in python_slots:
            batch_actions[i] = batch.legal_action_ids(i)[0]
        bad = batch.step(batch_actions, env.threads)
        if bad >= 0:  # pragma: no cover - every action given is legal
            raise RuntimeError(f"internal error: the batch refused a legal action in game {bad}")
        ended = np.flatnonzero(self.terminated).tolist()
        stand_ins_ended = {i for i in ended if i in self.detached}
        final = self._finals([i for i in ended if i not in self.detached and i not in seeds])
        for i in python_slots:
            action = int(actions[i])
            info = python.play(i, action) if legal[i] else python.lose(i, action, seeds.get(i))
            if info is not None:
                final[i] = info
                self.detached[i] = self.final_observation[i].copy()
            elif i in stand_ins_ended:  # the stand-in's end wrote over the slot's final observation
                self.final_observation[i] = self.detached[i]
        return dict(sorted(final.items()))

    @cached_property
    def python(self) -> PythonBackend:
        return PythonBackend(self.env, buffers=self)

    def legal(self, i: int) -> np.ndarray:
        return self.python.legal(i) if i in self.detached else self.batch.legal_action_ids(i)

    def flat_legal(self) -> tuple[np.ndarray, np.ndarray]:
        ids, offsets = self.batch.all_legal_action_ids()
        if not self.detached:
            return ids, offsets
        rows = np.split(ids, offsets[1:-1])
        for i in self.detached:
            rows[i] = self.python.legal_ids[i]
        return _flat(rows)

    def game(self, i: int) -> Any:
        return self.python.game(i) if i in self.detached else self._game(i)


def _kardinal_batch(env: VectorEnv) -> tuple[Any, Any, Callable[[int], Any]]:
    """Kardinal's ``KardinalBatch``, no encoder hint, and game ``i``: the batch's copy wrapped (no replay)."""
    from kardinal_env.kardinal import compiled
    from kardinal_env.kardinal.core_game import CoreGame

    start = compiled.core_game(env.rules)  # RuntimeError / ImportError naming how to build the core
    module: Any = core_module()
    batch = module.KardinalBatch(start, env.num_envs, env.reward_scheme, env.chip_shaping, env.score_shaping)
    return batch, None, lambda i: CoreGame.of_core(env.rules, batch.game(i), batch.history_codes(i))


def _koenig_batch(env: VectorEnv) -> tuple[Any, Any, Callable[[int], Any]]:
    """K&K's ``KoenigBatch`` (dealing ``next_seed``), its encoder, and game ``i``: the batch's copy wrapped."""
    from kardinal_env.koenig import compiled
    from kardinal_env.koenig.core_game import CoreGame

    rules = env.rules
    board = compiled.core_board(rules.compiled)  # RuntimeError / ImportError naming how to build the core
    module: Any = core_module()
    batch = module.KoenigBatch(board, rules.players, rules.discard, env.num_envs, env.reward_scheme, env.score_shaping)
    encoder = env.spec.make_encoder(rules)
    return batch, encoder, lambda i: CoreGame.of_core(rules, batch.game(i), int(batch.seed(i)), batch.history_ids(i))


def _core_batch(spec: GameSpec, rules: Any) -> Callable[[VectorEnv], tuple[Any, Any, Callable[[int], Any]]] | None:
    """What makes the core's batch for this game (by its engine and rules classes, not its name), or None."""
    from kardinal_env.kardinal.engine import Game
    from kardinal_env.kardinal.rules import Rules
    from kardinal_env.koenig.engine import Game as KoenigGame
    from kardinal_env.koenig.rules import Rules as KoenigRules

    game_class = spec.load("game_class")
    if game_class is Game and type(rules) is Rules:
        return _kardinal_batch
    if game_class is KoenigGame and type(rules) is KoenigRules:
        return _koenig_batch
    return None
