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
game, players, options  a registered game (``"kardinal"``, ``"kardinal_koenig"``, or any game of the
                        registry), its seat count (default: the game's default) and its rule options
                        by name: every keyword the game's rules class takes (Kardinal: ``preset``,
                        ``shared_pool``, ``exhausted_colour``, ``neutral_build_chips``,
                        ``neutral_touch_chips``, ``window``; K&K: ``discard``, ``board``), or a ready
                        ``rules=`` object; any other keyword goes to the game's codec and encoder
                        (``spec.make_codec(rules, **options)``), as in the generic AEC env
``reward``              ``"win_loss"`` (default) or ``"margin"``; ``chip_shaping`` (Kardinal only) and
                        ``score_shaping`` (the self-play trainer's shaping; below)
``illegal_action``      ``"raise"`` (default) or ``"lose"``: what an action id that is not legal in its
                        game does (below)
Actions                 ``step(actions)``: an integer array of shape ``(N,)``, ``actions[i]`` the action
                        id (``Discrete(A)``, the AEC env's action space) of the seat that is to act in
                        game ``i`` (``current_player[i]``)
``observation``         ``(N, *obs_shape)``: game ``i`` from the point of view of ``current_player[i]``,
                        the AEC env's ``observation`` for that seat (Kardinal: ``uint8 (72, W, W)``,
                        the full window ``W = 53`` by default, 202 KB a game; K&K: ``float32 (494,)``)
``action_mask``         ``(N, A)`` bool: the legal actions of ``current_player[i]`` (never all zero:
                        a game that ended has been reset already)
``current_player``      ``(N,)`` int64: the seat to act in each game
``rewards``             ``(N, players)`` float32: what every seat earned from the step's move (below)
``terminated``          ``(N,)`` bool: game ``i`` ended with this step's move (and was reset)
``truncated``           ``(N,)`` bool: always False (every game ends; no time limit)
``final_observation``   ``(N, *obs_shape)``: where ``terminated[i]``, the final position of the game
                        that ended, seen by the seat whose move ended it; other rows keep older data
``final_info``          ``{i: {"scores", "winners", "move_count", "last_player"}}`` for the games that
                        ended in this step (``scores``/``winners`` as the AEC env's final ``infos``;
                        ``last_player``: the seat whose move ended it, ``final_observation``'s observer;
                        a game ended by forfeit also has ``illegal_action``, below)
``legal_actions(i)``    on request: the legal action ids of game ``i`` (int64, in the engine's order);
                        ``legal_actions()``: a list of all N
======================  ============================================================================

``reset(seed=None)`` and ``step(actions)`` return a :class:`VectorStep` (``observation``,
``action_mask``, ``current_player``, ``rewards``, ``terminated``, ``truncated``, ``info``; ``info``
holds ``final_observation`` and ``final_info``). **The arrays are read-only views of the environment's
own buffers**, allocated once and overwritten in place by the next ``reset``/``step`` (the core backend
rewrites only what changed in each row: the old ones of the mask and of the spatial planes are cleared,
a constant plane is refilled only when its value changed); keep a copy (``np.copy``) of what must
survive, or pass ``copy=True`` to get writable copies. Writing into them raises NumPy's ``ValueError``.
One call at a time: an environment is not meant to be shared by threads (the core refuses a second
call meanwhile).

Rewards
=======

Exactly what the AEC env (``kardinal_v0``, ``kardinal_koenig_v1``, or the generic ``GameEnv``) hands
out, per seat, for the same move: ``rewards[i, s]`` equals the AEC env's ``rewards["player_s"]`` after
the same ``step``. A step plays one move per game, so the sum over steps of a seat's rewards is what
that seat collects through ``last()`` in the AEC loop. That is: ``chip_shaping`` times the chips the
acting seat took with the move (Kardinal; 0 on the move that ends the game; ``chip_shaping=0``, the
default, gives nothing), plus, on the move that ends the game, every seat's terminal reward
(:func:`kardinal_env.core.rewards.terminal_rewards`: ``"win_loss"`` +1 for every winner and -1 for the
others; ``"margin"`` ``clip((own - best other score) / 20, -1, 1)``). Every other entry is 0.

``score_shaping`` (default 0; the AEC envs do not offer it) adds the other term of
:class:`kardinal_env.core.rewards.ShapingTracker`, the self-play trainer's potential-based shaping: the
acting seat also earns ``score_shaping`` times the change of its projected margin
(:func:`~kardinal_env.core.rewards.projected_margins`: its projected final score minus the best other)
that its move caused, the last move included (the chip term comes first, as in the tracker).

Auto-reset
==========

Gymnasium's ``AutoresetMode.SAME_STEP``: when game ``i`` ends in a step, that step's
``rewards[i]`` and ``terminated[i] = True`` belong to the game that ended, its final position goes to
``final_observation[i]`` and its scores to ``final_info[i]``, and the game is reset in the same step:
``observation[i]``, ``action_mask[i]`` and ``current_player[i]`` already show the first decision of
the next game, which the next ``step`` plays. (Not ``NEXT_STEP``: no step is spent on a finished game,
and every row of every step is a real decision.)

Seeds
=====

Game slot ``i`` has its own generator: ``reset(seed=s)`` (or ``VectorEnv(seed=s)`` before the first
``reset``) seeds it with ``random.Random(s + i)`` (a list of N seeds: ``random.Random(seeds[i])``);
``reset()`` without a seed keeps the generators going (never seeded: seeded by the OS). Each game
that starts in slot ``i`` — at a reset or an auto-reset — is dealt, for a game with chance
(``spec.chance``: Kardinal & König), with the seed ``generator.getrandbits(64)``. So the games of slot
``i`` are exactly those of an AEC env after ``reset(seed=s + i)`` and a plain ``reset()`` for each
later game. Kardinal has no chance: its games are all the same start position whatever the seed.

Backends
========

* ``"python"`` — the readable reference, for every registered game: N games of the registry
  (``spec.new_game``), the game's codec (``spec.make_codec``: legal ids, ``decode``) and one encoder per
  game (``spec.make_encoder``), through the game protocol only (:mod:`kardinal_env.core.protocol`).
  ``threads`` does nothing here.
* ``"core"`` — the game stepped in C++: Kardinal (``kardinal_core.KardinalBatch``, cpp/src/kardinal/batch.hpp)
  and Kardinal & König (``kardinal_core.KoenigBatch``, cpp/src/koenig/batch.hpp, with the engine of
  cpp/src/koenig/engine.hpp and the encoder of cpp/src/koenig/observation.hpp). One call checks every
  action, plays every move, auto-resets, and writes observations, masks, seats, rewards and final
  observations into the arrays (the core's own buffers, shared with NumPy), with the GIL released;
  ``threads=k >= 2`` splits the games over ``k`` std::threads (each game's work is independent, so
  the results do not depend on ``k``). Kardinal & König's deals keep the seeds above: this side keeps
  one ``generator.getrandbits(64)`` drawn ahead per slot in the batch's ``next_seed`` array, which the
  batch deals the slot's next game with (the same shuffles in C++ as in Python,
  :mod:`kardinal_env.koenig.shuffle`) and which is refilled for the slots that dealt; ``reset()``
  without a seed uses the drawn-ahead values, a reseeding draws them again, so every game of a slot
  is the python backend's. ``game(i)`` rebuilds game ``i`` in Python (Kardinal: its moves replayed;
  K&K: dealt with its seed, its move ids replayed). Byte for byte the python backend's output
  (``tests/test_vector.py``, ``tests/test_vector_koenig.py``). Needs the compiled core
  (``bash scripts/setup.sh``); a game registered under another name with the same engine and rules
  classes qualifies, any other game or codec/encoder options do not (``ValueError``).
* ``"auto"`` (default) — ``"core"`` when the game is Kardinal or Kardinal & König and the core is
  built and used (see :mod:`kardinal_env.kardinal.compiled` and :mod:`kardinal_env.koenig.compiled`:
  ``KARDINAL_ENV_BACKEND=python`` turns it off), else ``"python"``.

Illegal actions
===============

Every action is checked before any game moves. Actions that are not an integer array of shape
``(N,)`` raise ``TypeError`` (not integers: floats, bools, objects) or ``ValueError`` (another shape),
and an action id outside ``[0, A)`` raises :class:`IllegalActionError` (rule ``"action"``), in every
mode: such a value is a bug of the caller, not a choice among the actions. Nothing is rounded,
clipped or cast from floats. An id of ``[0, A)`` that is not legal in its game depends on
``illegal_action`` (:mod:`kardinal_env.core.illegal`, the rule every environment shares):

* ``"raise"`` (default) — :class:`IllegalActionError` (a ``ValueError``, an
  :class:`~kardinal_env.core.errors.IllegalMoveError`) whose message starts ``game i:`` and carries
  the engine's own message naming the broken rule (``rule``: that rule, ``"action"`` for an id out of
  range; ``index``: the game); every game is left unchanged. When several games have bad actions the
  error names the first with an id out of range, else the first with an illegal move.
* ``"lose"`` — pgx's rule: that game ends by the forfeit of its seat to act, the other games play
  their moves. The slot is treated as any game that ended in the step: ``terminated[i]`` is True,
  ``rewards[i]`` holds the scheme's loss reward for the offender and its win reward for every other
  seat (``win_loss`` and ``margin``: −1 / +1; no shaping term: no move was played),
  ``final_observation[i]`` is the position at the forfeit seen by the offender, ``final_info[i]`` is
  ``{"scores": None, "winners": [the other seats], "illegal_action": {"rule", "message", "action",
  "move", "seat"}, "move_count", "last_player": the offender}``, and the slot's next game is already
  in its rows (its deal: the slot's next seed, as after any game).

**Forfeits on the core backend.** The compiled batch can restart all its games at once but not one
alone, so a slot whose game is forfeited goes on *in Python* until the next ``reset()``: its games are
the registry's (``spec.new_game``, core-backed where the core is built), stepped and encoded as the
python backend does, their rows written into the batch's arrays after each batch step (the batch
meanwhile plays legal moves in a stand-in game of that slot, whose results are discarded);
``reset()`` hands every slot back to the batch. The output is the python backend's, byte for byte
(tests/test_vector.py and tests/test_vector_koenig.py step both in lockstep through forfeits and
resets); such a slot costs what a slot of the python backend costs. A policy that follows the masks
never forfeits, and then nothing of this runs.

Relation to Gymnasium and PettingZoo
====================================

PettingZoo's AEC env (``kardinal_v0``) is one game, stepped agent by agent; this is N such games
stepped at once, one decision each, with the same observations, masks, action ids and rewards
(``tests/test_vector.py`` checks it against N AEC envs). It looks like Gymnasium's ``VectorEnv``
(batched arrays, ``num_envs``, ``single_observation_space``/``single_action_space``,
``observation_space``/``action_space``, same-step auto-reset with ``final_observation``/``final_info``)
but is not a subclass of it: Gymnasium's vector API is single-agent — one reward per sub-env (shape
``(N,)``), an action for one agent that always acts, no action mask and no notion of whose turn it is —
and its wrappers (reward normalisation, episode statistics) would silently treat ``(N, players)``
rewards and turn-based seats wrongly. Here the action of each game belongs to the seat to act
(``current_player``), and every seat's reward comes back each step.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from kardinal_env.core import limits
from kardinal_env.core.checks import is_integral
from kardinal_env.core.env_utils import check_action
from kardinal_env.core.errors import IllegalMoveError, OutOfRangeError, StateError
from kardinal_env.core.generic_env import observation_bounds
from kardinal_env.core.illegal import check_illegal_action, forfeit
from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.core.rewards import ShapingTracker, check_scheme, terminal_rewards

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


class VectorEnv:
    """N games of one registered game stepped together (see the module docstring)."""

    def __init__(
        self,
        game: str | GameSpec = "kardinal",
        num_envs: int = 8,
        players: int | None = None,
        seed: int | Sequence[int] | None = None,
        backend: str = "auto",
        threads: int = 0,
        reward: str = "win_loss",
        chip_shaping: float = 0.0,
        score_shaping: float = 0.0,
        rules: Any = None,
        illegal_action: str = "raise",
        **options: Any,
    ):
        spec = get_game(game)
        num_envs = limits.check_num_envs(num_envs)  # before anything is made per slot
        check_illegal_action(illegal_action)
        if not is_integral(threads) or not 0 <= threads <= limits.THREADS:
            raise ValueError(f"threads must be an integer from 0 to {limits.THREADS}, got {threads!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
        check_scheme(reward)
        chip_shaping, score_shaping = float(chip_shaping), float(score_shaping)
        for name, value in (("chip_shaping", chip_shaping), ("score_shaping", score_shaping)):
            if not np.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        self.spec = spec
        self.num_envs = int(num_envs)
        self.threads = int(threads)
        self.reward_scheme = reward
        self.illegal_action = illegal_action
        self.chip_shaping = chip_shaping
        self.score_shaping = score_shaping
        self.rules, self.env_options = _rules_and_env_options(spec, players, rules, options)
        self.num_players = int(self.rules.players)
        if self.env_options:  # options neither the rules nor the codec and encoder take: say which
            try:
                spec.make_codec(self.rules, **self.env_options)
                spec.make_encoder(self.rules, **self.env_options)
            except TypeError as exc:
                raise ValueError(
                    f"{spec.name}: option(s) {sorted(self.env_options)} are neither rule options nor options "
                    f"of its codec and encoder ({exc})"
                ) from None
        if seed is not None:
            self._check_seed(seed)
        self.backend = _choose_backend(spec, self.rules, self.env_options, backend)
        impl: _PythonBackend | _CoreBackend
        if self.backend == "core":
            impl = _CoreBackend(self)
        else:
            impl = _PythonBackend(self)
        self._impl = impl
        # made once the backend has checked the batch's size (limits.check_batch counts them)
        self._generators = [random.Random() for _ in range(self.num_envs)]
        self._seed_epoch = 0  # counts the reseedings of the generators (the core backend's seeds ahead)
        if seed is not None:
            self._seed(seed)
        self.num_actions = impl.num_actions
        self.observation_shape: tuple[int, ...] = tuple(impl.observation.shape[1:])
        # the arrays (the module docstring): read-only views of the backend's own buffers, written in place
        self.observation: np.ndarray = _read_only(impl.observation)
        self.action_mask: np.ndarray = _read_only(impl.action_mask)
        self.current_player: np.ndarray = _read_only(impl.current_player)
        self.rewards: np.ndarray = _read_only(impl.rewards)
        self.terminated: np.ndarray = _read_only(impl.terminated)
        self.truncated = _read_only(np.zeros(self.num_envs, dtype=bool))
        self.final_observation: np.ndarray = _read_only(impl.final_observation)
        self.final_info: dict[int, dict] = {}
        low, high = observation_bounds(impl.encoder_hint, self.observation.dtype)
        dtype: Any = self.observation.dtype
        self.single_observation_space = spaces.Box(low, high, self.observation_shape, dtype=dtype)
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(low, high, (self.num_envs, *self.observation_shape), dtype=dtype)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.num_actions, dtype=np.int64))
        self._started = False

    # ------------------------------------------------------------------ the API
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
        that end (the module docstring). Bad actions raise before any game moves (an illegal one under
        ``illegal_action="lose"`` ends its game by forfeit instead)."""
        self._require_started("step()")
        self.final_info = self._impl.step(self._check_actions(actions))
        return self._result(copy)

    def legal_actions(self, index: int | None = None) -> Any:
        """The legal action ids (int64, in the engine's order) of game ``index``'s decision (a new
        array), or a list of all N when ``index`` is None."""
        self._require_started("legal_actions()")
        if index is None:
            return self._impl.all_legal()
        return self._impl.legal(self._check_index(index))

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action for every game (a new int64 array of shape ``(N,)``), drawn
        from ``rng`` (default: a new unseeded generator) without scanning the masks: a random policy
        and the benchmark's."""
        self._require_started("random_actions()")
        ids, offsets = self._impl.flat_legal()
        counts = np.diff(offsets)
        draw = (rng if rng is not None else np.random.default_rng()).random(self.num_envs)
        return ids[offsets[:-1] + (draw * counts).astype(np.int64)]

    def game(self, index: int) -> Any:
        """A copy of game ``index`` as the registry's game object: for inspection, rendering, records and
        for agents that read a game (the self-play trainer's baselines). The core backend copies its C++
        game into a core-backed ``Game`` (no replay)."""
        self._require_started("game()")
        return self._impl.game(self._check_index(index))

    def close(self) -> None:
        """Nothing to release (kept for the usual environment API)."""

    def __repr__(self) -> str:
        return (
            f"VectorEnv(game={self.spec.name!r}, num_envs={self.num_envs}, players={self.num_players}, "
            f"backend={self.backend!r}, threads={self.threads})"
        )

    # ------------------------------------------------------------------ helpers
    def _require_started(self, what: str) -> None:
        if not self._started:
            raise StateError(f"call reset() before {what}: no game has started")

    def _check_seed(self, seed: int | Sequence[int]) -> list[int]:
        """The slots' seeds: ``seed + i`` for an integer, else the list itself; every one ``>= 0``
        (Python's ``random.Random`` seeds an int by its absolute value, so ``-1`` and ``1`` would deal
        the same games)."""
        wanted = f"seed must be an integer >= 0 or a list of {self.num_envs} integers >= 0, got {seed!r}"
        if is_integral(seed):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, Sequence) and not isinstance(seed, (str, bytes)):
            seeds = list(seed)
            if len(seeds) != self.num_envs or not all(is_integral(s) for s in seeds):
                raise ValueError(wanted)
            seeds = [int(s) for s in seeds]
        else:
            raise TypeError(wanted)
        if min(seeds) < 0:
            raise ValueError(wanted)
        return seeds

    def _seed(self, seed: int | Sequence[int]) -> None:
        seeds = self._check_seed(seed)
        for generator, s in zip(self._generators, seeds, strict=True):
            generator.seed(int(s))
        self._seed_epoch += 1

    def _check_actions(self, actions: Any) -> np.ndarray:
        """A copy of ``actions`` as a new int64 array, checked: the copy is what is played, so another
        thread writing into the caller's array meanwhile changes nothing."""
        array = np.asarray(actions)
        if array.dtype.kind not in "iu":
            raise TypeError(
                f"actions must be an integer array of shape ({self.num_envs},), one action id per game; "
                f"got dtype {array.dtype}"
            )
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},), one action id per game; got shape {array.shape}"
            )
        array = np.array(array)  # a copy: what is checked below is what is played
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
        info = {"final_observation": self.final_observation, "final_info": self.final_info}
        arrays = (self.observation, self.action_mask, self.current_player, self.rewards, self.terminated)
        if copy:
            arrays = tuple(a.copy() for a in arrays)
            info = {
                "final_observation": self.final_observation.copy(),
                "final_info": {i: dict(v) for i, v in self.final_info.items()},
            }
        truncated = self.truncated.copy() if copy else self.truncated
        return VectorStep(*arrays, truncated, info)

    def _illegal(self, index: int, game: Any, action: int, codec: Any) -> IllegalActionError:
        """The error for an in-range action that is not legal in ``game`` (slot ``index``): the
        engine's own (:meth:`_explain`) with the game's index."""
        exc = self._explain(game, action, codec)
        return IllegalActionError(f"game {index}: {exc}", exc.rule, action, index)

    @staticmethod
    def _explain(game: Any, action: int, codec: Any) -> IllegalMoveError:
        """The engine's error for an in-range action that is not legal in ``game``, naming the broken
        rule (the codec decodes the id, a copy of the game plays it)."""
        try:
            move = codec.decode(game, action)
            game.clone().play(move)
        except IllegalMoveError as exc:
            return exc
        return IllegalMoveError(  # the engine took it: its codec and legal_actions disagree
            f"action {action} ({move!r}) is not among the legal actions of the codec", "action", action
        )


# ---------------------------------------------------------------------- backends


class _PythonBackend:
    """The reference: registry games, the game's codec, one encoder per game (the game protocol).

    ``buffers`` (an object with the arrays ``observation``, ``action_mask``, ``current_player``,
    ``rewards``, ``terminated``, ``final_observation``): play single slots into those arrays instead
    of allocating its own — the core backend's slots that go on in Python after a forfeit; then
    encoders are made per slot when first needed."""

    def __init__(self, env: VectorEnv, buffers: Any = None):
        spec, rules, n = env.spec, env.rules, env.num_envs
        self.env = env
        self.codec = spec.make_codec(rules, **env.env_options)
        self.encoder_hint: Any = spec.make_encoder(rules, **env.env_options)
        self.num_actions = int(self.codec.num_actions)
        probe = spec.new_game(rules, seed=0 if spec.chance else None)
        if env.chip_shaping and not hasattr(probe, "chips_held"):
            raise ValueError(f"chip_shaping needs a game with chips_held(); {spec.name} has none")
        self.encoders: list[Any] = [self.encoder_hint] + [None] * (n - 1)
        if buffers is None:
            first = np.asarray(self.encoder_hint.encode(probe, probe.current_player))
            # two observations, a mask row and (a rough floor) the slot's generator, game and encoder
            limits.check_batch(n, 2 * first.nbytes + self.num_actions + _SLOT_OVERHEAD)
            self.encoders[1:] = [spec.make_encoder(rules, **env.env_options) for _ in range(n - 1)]
        shaping = env.chip_shaping or env.score_shaping
        self.shaping = ShapingTracker(env.chip_shaping, env.score_shaping) if shaping else None
        self.games: list[Any] = [None] * n
        self.legal_ids: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * n
        if buffers is not None:
            self.observation = buffers.observation
            self.final_observation = buffers.final_observation
            self.action_mask = buffers.action_mask
            self.current_player = buffers.current_player
            self.rewards = buffers.rewards
            self.terminated = buffers.terminated
            return
        self.observation = np.zeros((n, *first.shape), dtype=first.dtype)
        self.final_observation = np.zeros_like(self.observation)
        self.action_mask = np.zeros((n, self.num_actions), dtype=bool)
        self.current_player = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, env.num_players), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)

    def encoder(self, i: int) -> Any:
        """Slot ``i``'s encoder (made when first needed)."""
        encoder = self.encoders[i]
        if encoder is None:
            env = self.env
            encoder = self.encoders[i] = env.spec.make_encoder(env.rules, **env.env_options)
        return encoder

    def new_game(self, i: int, seed: int | None = None) -> Any:
        """Slot ``i``'s next game, dealt (a game with chance) with ``seed``, by default the next draw of
        the slot's generator."""
        env = self.env
        if env.spec.chance:
            if seed is None:
                seed = env._generators[i].getrandbits(64)
        else:
            seed = None
        return env.spec.new_game(env.rules, seed=seed)

    def show(self, i: int) -> None:
        """Game ``i``'s current decision into the arrays."""
        game = self.games[i]
        seat = game.current_player
        legal = np.asarray(self.codec.legal_actions(game), dtype=np.int64)
        self.legal_ids[i] = legal
        self.current_player[i] = seat
        self.observation[i] = self.encoder(i).encode(game, seat)
        row = self.action_mask[i]
        row[:] = False
        row[legal] = True

    def reset(self) -> None:
        for i in range(len(self.games)):
            self.games[i] = self.new_game(i)
            self.show(i)
        self.rewards[:] = 0.0
        self.terminated[:] = False

    def step(self, actions: np.ndarray) -> dict[int, dict]:
        env = self.env
        forfeits = set()
        for i, action in enumerate(actions.tolist()):  # every action is checked before any game moves
            if not (self.legal_ids[i] == action).any():
                if env.illegal_action == "raise":
                    raise env._illegal(i, self.games[i], action, self.codec)
                forfeits.add(i)
        final: dict[int, dict] = {}
        for i, action in enumerate(actions.tolist()):
            info = self.lose(i, action) if i in forfeits else self.play(i, action)
            if info is not None:
                final[i] = info
        return final

    def play(self, i: int, action: int) -> dict | None:
        """Play the legal ``action`` in game ``i`` and write the slot's rows; when the game ends, its
        final info (and the slot's next game is started)."""
        env = self.env
        shaping = self.shaping
        game = self.games[i]
        seat = game.current_player
        if shaping is not None:
            shaping.before(game, seat)
        game.play(self.codec.decode(game, action))
        earned = [0.0] * env.num_players
        if shaping is not None:  # the per-move reward of the acting seat
            earned[seat] = shaping.reward(game, seat)
        self.terminated[i] = game.is_over
        final = None
        if game.is_over:  # every seat's terminal reward, added as the AEC env adds it (in float64)
            earned = [e + r for e, r in zip(earned, terminal_rewards(game, env.reward_scheme), strict=True)]
            self.final_observation[i] = self.encoder(i).encode(game, seat)
            final = {
                "scores": game.scores(),
                "winners": game.winners(),
                "move_count": game.move_count,
                "last_player": seat,
            }
            self.games[i] = self.new_game(i)
        self.rewards[i] = earned
        self.show(i)
        return final

    def lose(self, i: int, action: int, next_seed: int | None = None) -> dict:
        """Game ``i`` ends by the forfeit of its seat to act, whose ``action`` (an id of the action
        space) is not legal (:func:`kardinal_env.core.illegal.forfeit`): the slot's rows, its final
        info, and its next game (dealt with ``next_seed``, by default the generator's next draw)."""
        env = self.env
        game = self.games[i]
        seat = game.current_player
        lost = forfeit(env._explain(game, action, self.codec), action, seat, env.num_players, env.reward_scheme)
        self.terminated[i] = True
        self.final_observation[i] = self.encoder(i).encode(game, seat)
        final = {**lost.info(), "move_count": game.move_count, "last_player": seat}
        self.games[i] = self.new_game(i, next_seed)
        self.rewards[i] = lost.rewards
        self.show(i)
        return final

    def legal(self, i: int) -> np.ndarray:
        return self.legal_ids[i].copy()

    def all_legal(self) -> list[np.ndarray]:
        return [ids.copy() for ids in self.legal_ids]

    def flat_legal(self) -> tuple[np.ndarray, np.ndarray]:
        counts = [ids.size for ids in self.legal_ids]
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return np.concatenate(self.legal_ids), offsets

    def game(self, i: int) -> Any:
        return self.games[i].clone()


class _CoreBackend:
    """A game stepped in C++: the game's batch (``kardinal_core.KardinalBatch`` / ``KoenigBatch``, made by
    its :class:`_CoreGame` part) owns the arrays; for a game with chance this side keeps each slot's
    ``next_seed`` one draw ahead of its generator, so every deal is the python backend's."""

    def __init__(self, env: VectorEnv):
        self.env = env
        part_class = _core_game(env.spec, env.rules)
        assert part_class is not None  # _choose_backend picked "core" for a game the core steps
        self.part = part = part_class(env)
        self.batch = batch = part.batch
        self.codec = env.spec.make_codec(env.rules)
        self.encoder_hint: Any = part.encoder_hint
        self.num_actions = int(batch.num_actions)
        self.observation = batch.observation
        self.action_mask = batch.action_mask
        self.current_player = batch.current_player
        self.rewards = batch.rewards
        self.terminated = batch.terminated
        self.final_observation = batch.final_observation
        self._scores = batch.final_scores
        self._winners = batch.final_winners
        self._moves = batch.final_moves
        self._last = batch.final_player
        # the seed of each slot's next deal, drawn from its generator ahead of time (chance games only)
        self._next_seed: np.ndarray | None = batch.next_seed if env.spec.chance else None
        self._drawn_for = -1  # env._seed_epoch of the generators _next_seed was drawn from
        # Forfeits (illegal_action="lose"; the module docstring): the slots that go on in Python until the
        # next reset, each with the last final observation of its own games (the batch's stand-in game of
        # the slot writes its own when it ends), and the python backend that plays them (made when needed).
        self.detached: dict[int, np.ndarray] = {}
        self._python: _PythonBackend | None = None

    def _draw(self, slots: Sequence[int]) -> None:
        generators, seeds = self.env._generators, self._next_seed
        assert seeds is not None
        for i in slots:
            seeds[i] = generators[i].getrandbits(64)

    def reset(self) -> None:
        env = self.env
        slots = range(env.num_envs)
        if self.detached:
            self._reattach()
        if self._next_seed is not None and self._drawn_for != env._seed_epoch:
            self._draw(slots)  # reseeded (or never drawn): the drawn-ahead seeds are stale
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
                raise self.env._illegal(bad, self.game(bad), int(actions[bad]), self.codec)
        return self._step_with_forfeits(actions)

    def _finals(self, ended: list[int]) -> dict[int, dict]:
        """The final infos of the batch's games that ended in ``ended`` (and their slots' next seeds)."""
        if not ended:
            return {}
        if self._next_seed is not None:
            self._draw(ended)  # the slots that dealt a new game: their next seeds
        final: dict[int, dict] = {}
        for i in ended:
            final[i] = {
                "scores": self._scores[i].tolist(),
                "winners": np.flatnonzero(self._winners[i]).tolist(),
                "move_count": int(self._moves[i]),
                "last_player": int(self._last[i]),
            }
        return final

    def _step_with_forfeits(self, actions: np.ndarray) -> dict[int, dict]:
        """A step under ``illegal_action="lose"`` with forfeits now or slots playing in Python (the module
        docstring): the batch plays a legal move in the stand-in game of every such slot, then the
        python backend plays those slots and writes their rows over the batch's."""
        env, batch = self.env, self.batch
        legal = self.action_mask[np.arange(env.num_envs), actions]  # the masks the caller was shown
        losing = [i for i in np.flatnonzero(~legal).tolist() if i not in self.detached]
        python = self._python_slots()
        for i in losing:  # the forfeited game, before the batch moves its slot on
            python.games[i] = self.part.game(i)
        # seeds of the next deals of the newly forfeited slots (drawn ahead; the stand-in may deal with them)
        seeds = {i: None if self._next_seed is None else int(self._next_seed[i]) for i in losing}
        python_slots = [*self.detached, *losing]
        batch_actions = actions.copy()
        for i in python_slots:
            batch_actions[i] = batch.legal_action_ids(i)[0]
        bad = batch.step(batch_actions, env.threads)
        if bad >= 0:  # pragma: no cover - every action given is legal
            raise RuntimeError(f"internal error: the batch refused a legal action in game {bad}")
        ended = np.flatnonzero(self.terminated).tolist()
        stand_ins_ended = {i for i in ended if i in self.detached}
        final = self._finals([i for i in ended if i not in self.detached and i not in seeds])
        for i in list(self.detached):
            action = int(actions[i])
            info = python.play(i, action) if legal[i] else python.lose(i, action)
            if info is not None:
                final[i] = info
                self.detached[i] = self.final_observation[i].copy()
            elif i in stand_ins_ended:  # the stand-in's end wrote over the slot's final observation
                self.final_observation[i] = self.detached[i]
        for i in losing:
            final[i] = python.lose(i, int(actions[i]), seeds[i])
            self.detached[i] = self.final_observation[i].copy()
        return dict(sorted(final.items()))

    def _python_slots(self) -> _PythonBackend:
        if self._python is None:
            self._python = _PythonBackend(self.env, buffers=self)
        return self._python

    def _reattach(self) -> None:
        """Hand the slots that play in Python back to the batch (before its reset): their rows back to
        what the batch last wrote there, which its reset rewrites where they change only; for a game
        with chance, unless the generators are reseeded, the slot's next seed drawn again (the one drawn
        ahead was dealt in Python)."""
        env, batch, python = self.env, self.batch, self._python_slots()
        redraw = self._next_seed is not None and self._drawn_for == env._seed_epoch
        for i in self.detached:
            stand_in = self.part.game(i)
            self.observation[i] = python.encoder(i).encode(stand_in, stand_in.current_player)
            row = self.action_mask[i]
            row[:] = False
            row[batch.legal_action_ids(i)] = True
            if redraw:
                assert self._next_seed is not None
                self._next_seed[i] = env._generators[i].getrandbits(64)
            python.games[i] = None
        self.detached.clear()

    def legal(self, i: int) -> np.ndarray:
        if i in self.detached:
            return self._python_slots().legal(i)
        return self.batch.legal_action_ids(i)

    def flat_legal(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.detached:
            return self.batch.all_legal_action_ids()
        rows = self.all_legal()
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([ids.size for ids in rows], out=offsets[1:])
        return np.concatenate(rows), offsets

    def all_legal(self) -> list[np.ndarray]:
        ids, offsets = self.batch.all_legal_action_ids()
        rows = [ids[offsets[i] : offsets[i + 1]] for i in range(self.env.num_envs)]
        for i in self.detached:
            rows[i] = self._python_slots().legal(i)
        return rows

    def game(self, i: int) -> Any:
        if i in self.detached:
            return self._python_slots().game(i)
        return self.part.game(i)


class _CoreGame:
    """The per-game part of the core backend: makes the game's batch (``batch``), names the encoder
    whose bounds the observation space takes (``encoder_hint``), and rebuilds game ``i`` as the
    registry's game object (``game``)."""

    batch: Any
    encoder_hint: Any = None

    def __init__(self, env: VectorEnv):
        self.env = env

    def game(self, i: int) -> Any:
        raise NotImplementedError


def _batch_class(module: Any, name: str, hint: str) -> Any:
    if not hasattr(module, name):
        raise RuntimeError(f"the compiled core is older than kardinal_env.vector (no {name}); {hint}")
    return getattr(module, name)


class _KardinalCore(_CoreGame):
    """Kardinal: ``KardinalBatch`` from the start position (no chance: every game is the same start)."""

    def __init__(self, env: VectorEnv):
        from kardinal_env.kardinal import compiled

        super().__init__(env)
        start = compiled.core_game(env.rules)  # RuntimeError / ImportError naming how to build the core
        batch_class = _batch_class(compiled.core_module(), "KardinalBatch", compiled.BUILD_HINT)
        self.batch = batch_class(start, env.num_envs, env.reward_scheme, env.chip_shaping, env.score_shaping)

    def game(self, i: int) -> Any:
        from kardinal_env.kardinal.core_game import CoreGame

        # the batch's copy of the game and its history, wrapped (no replay): cheap enough for a baseline's
        # every decision (the trainer's opponents)
        return CoreGame.of_core(self.env.rules, self.batch.game(i), self.batch.history_codes(i))


class _KoenigCore(_CoreGame):
    """Kardinal & König: ``KoenigBatch`` on the core's board; each game is dealt with its slot's
    ``next_seed``; ``game(i)`` wraps the batch's copy of it (its seed and move ids kept for records)."""

    def __init__(self, env: VectorEnv):
        from kardinal_env.koenig import compiled

        super().__init__(env)
        if env.chip_shaping:  # the python backend's error: K&K has no chips
            raise ValueError(f"chip_shaping needs a game with chips_held(); {env.spec.name} has none")
        rules = env.rules
        board = compiled.core_board(rules.compiled)  # RuntimeError / ImportError naming how to build the core
        batch_class = _batch_class(compiled.core_module(), "KoenigBatch", compiled.BUILD_HINT)
        self.batch = batch_class(
            board, rules.players, rules.discard, env.num_envs, env.reward_scheme, env.score_shaping
        )
        self.encoder_hint = env.spec.make_encoder(rules)

    def game(self, i: int) -> Any:
        from kardinal_env.koenig.core_game import CoreGame

        # the batch's copy of the game, its seed and its moves, wrapped (no replay)
        batch = self.batch
        return CoreGame.of_core(self.env.rules, batch.game(i), int(batch.seed(i)), batch.history_ids(i))


# ---------------------------------------------------------------------- set-up helpers

#: Bytes a slot takes besides its arrays, at least (its random.Random alone is about 2.5 KB).
_SLOT_OVERHEAD = 4096


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that refuses writes (``ValueError: assignment destination is read-only``): the
    backends rewrite only what changed in their buffers, so a write by the user would corrupt later steps."""
    view = array.view()
    view.flags.writeable = False
    return view


def _rules_and_env_options(spec: GameSpec, players: int | None, rules: Any, options: dict) -> tuple[Any, dict]:
    """The rules (``rules`` itself, or the rules class called with ``players`` and the options it takes)
    and the remaining options (for the codec and encoder)."""
    rules_class = spec.load("rules_class")
    try:
        names = set(inspect.signature(rules_class).parameters) - {"players", "self"}
    except (TypeError, ValueError):  # pragma: no cover - a rules class without a signature
        names = {o.name for o in spec.rule_options}
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


def _core_game(spec: GameSpec, rules: Any) -> type[_CoreGame] | None:
    """The core backend's part for this game, or None when the core has no batch for it: Kardinal's or
    Kardinal & König's engine and rules (the classes, not the name: a game registered under another
    name with them qualifies)."""
    from kardinal_env.kardinal.engine import Game
    from kardinal_env.kardinal.rules import Rules
    from kardinal_env.koenig.engine import Game as KoenigGame
    from kardinal_env.koenig.rules import Rules as KoenigRules

    game_class = spec.load("game_class")
    if game_class is Game and type(rules) is Rules:
        return _KardinalCore
    if game_class is KoenigGame and type(rules) is KoenigRules:
        return _KoenigCore
    return None


def _core_module(part: type[_CoreGame]) -> Any:
    """The compiled core when it is built and used for the game of ``part`` (None: not built, too old,
    or ``KARDINAL_ENV_BACKEND=python``; one warning when not built)."""
    if part is _KoenigCore:
        from kardinal_env.koenig import compiled as koenig_compiled

        module = koenig_compiled.core_module()
        return module if module is not None and hasattr(module, "KoenigBatch") else None
    from kardinal_env.kardinal import compiled

    module = compiled.core_module()
    return module if module is not None and hasattr(module, "KardinalBatch") else None


def _choose_backend(spec: GameSpec, rules: Any, env_options: dict, backend: str) -> str:
    if backend == "python":
        return "python"
    part = _core_game(spec, rules)
    if backend == "core":
        if part is None or env_options:
            why = f"options {sorted(env_options)}" if env_options and part is not None else spec.name
            raise ValueError(
                f"backend='core' steps Kardinal and Kardinal & König games only, without codec or encoder "
                f"options ({why} has no C++ batch); use backend='python' or 'auto'"
            )
        return "core"
    if part is None or env_options:
        return "python"
    return "core" if _core_module(part) is not None else "python"
