"""The backends of :class:`kardinal_env.vector.VectorEnv`, whose module docstring is the specification.

``VectorEnv`` checks its arguments and every action, then hands the batch to one backend:

* :class:`PythonBackend`: N registry games played through the game protocol's action ids, one
  encoder per game;
* :class:`CoreBackend`: the game's C++ batch (``KardinalBatch`` / ``KoenigBatch``, made by
  :func:`_kardinal_batch` / :func:`_koenig_batch`), each slot's next deal's seed drawn
  ahead for a game with chance; under ``illegal_action="lose"`` a slot whose game is forfeited goes
  on in a :class:`PythonBackend` writing into the batch's arrays (the slot is *detached*) until the
  next ``reset()``.

A backend offers ``num_actions``, ``encoder_hint`` (the encoder whose bounds the observation space
takes), its own buffers :data:`ARRAYS` (overwritten in place), ``reset()``, ``step(actions)`` (ids of
the action space, int64; returns the final infos of the games that ended), ``legal(i)``,
``all_legal()``, ``flat_legal()`` and ``game(i)``. It reads the environment's settings and per-slot
generators (``env._generators``; ``env._seed_epoch`` counts their reseedings) and raises
``env._illegal(i, game, action)`` for an illegal action under ``illegal_action="raise"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from kardinal_env.core import limits
from kardinal_env.core.backend import core_module
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.illegal import forfeit
from kardinal_env.core.registry import GameSpec
from kardinal_env.core.rewards import ShapingTracker, terminal_rewards

if TYPE_CHECKING:
    from kardinal_env.vector import VectorEnv

#: The arrays every backend owns and ``VectorEnv`` hands out as read-only views.
ARRAYS = ("observation", "action_mask", "current_player", "rewards", "terminated", "final_observation")
#: Bytes a slot takes besides its arrays, at least (its random.Random alone is about 2.5 KB).
_SLOT_OVERHEAD = 4096


def explain(game: Any, action: int) -> IllegalMoveError:
    """The engine's error, naming the broken rule, for an in-range ``action`` that is not legal in
    ``game`` (a copy of the game plays it)."""
    try:
        game.clone().apply_action(action)
    except IllegalMoveError as exc:
        return exc
    return IllegalMoveError(  # the engine took it: its legal_actions() and apply_action disagree
        f"action {action} is not among the game's legal actions, yet apply_action played it", "action", action
    )


def _flat(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every game's legal ids in one array, and the ``N + 1`` offsets where each game's start."""
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([ids.size for ids in rows], out=offsets[1:])
    return np.concatenate(rows), offsets


def _show_mask(row: np.ndarray, legal: np.ndarray) -> None:
    row[:] = False
    row[legal] = True


class Arrays:
    """The arrays (:data:`ARRAYS`) of a backend, and of ``VectorEnv``, which holds read-only views of them."""

    observation: np.ndarray
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    final_observation: np.ndarray

    def _share(self, owner: Arrays, read_only: bool = False) -> None:
        """Hold ``owner``'s arrays (``read_only``: views that refuse writes, since the backends rewrite
        only what changed and a write would corrupt later steps)."""
        for name in ARRAYS:
            array = getattr(owner, name)
            if read_only:
                array = array.view()
                array.flags.writeable = False
            setattr(self, name, array)


class PythonBackend(Arrays):
    """The reference: registry games played through the game protocol's action ids, one encoder per game
    (made when first needed). ``buffers``: an object holding the :data:`ARRAYS` to play single slots
    into instead of allocating its own (the core backend's detached slots)."""

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
        # two observations, a mask row and (a rough floor) the slot's generator, game and encoder
        limits.check_batch(n, 2 * first.nbytes + self.num_actions + _SLOT_OVERHEAD)
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
        """Slot ``i``'s next game, dealt (a game with chance) with ``seed``, by default the next draw of
        the slot's generator."""
        spec = self.env.spec
        if spec.chance and seed is None:
            seed = self.env._generators[i].getrandbits(64)
        return spec.new_game(self.env.rules, seed=seed if spec.chance else None)

    def show(self, i: int) -> None:
        """Game ``i``'s current decision into the arrays."""
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
            raise self.env._illegal(i, self.games[i], moves[i])
        final: dict[int, dict] = {}
        for i, action in enumerate(moves):
            info = self.play(i, action) if legal[i] else self.lose(i, action)
            if info is not None:
                final[i] = info
        return final

    def play(self, i: int, action: int) -> dict | None:
        """Play the legal ``action`` in game ``i`` and write the slot's rows; when the game ends, its
        final info (and the slot's next game is started)."""
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
        """Game ``i`` ends by the forfeit of its seat to act, whose ``action`` is not legal
        (:func:`kardinal_env.core.illegal.forfeit`); its next game is dealt with ``next_seed``, by default
        the generator's next draw. Returns the final info."""
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

    def all_legal(self) -> list[np.ndarray]:
        return [ids.copy() for ids in self.legal_ids]

    def flat_legal(self) -> tuple[np.ndarray, np.ndarray]:
        return _flat(self.legal_ids)

    def game(self, i: int) -> Any:
        return self.games[i].clone()


class CoreBackend(Arrays):
    """A game stepped in C++ by its batch, which owns the arrays; for a game with chance this side keeps
    each slot's ``next_seed`` one draw ahead of its generator, so every deal is the python backend's."""

    def __init__(self, env: VectorEnv):
        self.env = env
        make = _core_batch(env.spec, env.rules)
        assert make is not None  # choose_backend picked "core" for a game the core steps
        self.batch, self.encoder_hint, self._game = make(env)
        batch = self.batch
        self.num_actions = int(batch.num_actions)
        self._share(batch)
        # the seed of each slot's next deal, drawn from its generator ahead of time (chance games only)
        self._next_seed: np.ndarray | None = batch.next_seed if env.spec.chance else None
        self._drawn_for = -1  # env._seed_epoch of the generators _next_seed was drawn from
        # Forfeits: the detached slots (they play in Python until the next reset), each with the last final
        # observation of its own games (the batch's stand-in game writes its own when it ends).
        self.detached: dict[int, np.ndarray] = {}
        self._python: PythonBackend | None = None

    def _draw(self, slots: Iterable[int]) -> None:
        generators, seeds = self.env._generators, self._next_seed
        assert seeds is not None
        for i in slots:
            seeds[i] = generators[i].getrandbits(64)

    def reset(self) -> None:
        env, slots = self.env, range(self.env.num_envs)
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
                raise self.env._illegal(bad, self.game(bad), int(actions[bad]))
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
        """A step under ``illegal_action="lose"`` with forfeits now or detached slots: the batch plays a
        legal move in the stand-in game of every such slot, then the python backend plays those slots
        and writes their rows over the batch's."""
        env, batch, python = self.env, self.batch, self._python_slots()
        legal = self.action_mask[np.arange(env.num_envs), actions]  # the masks the caller was shown
        losing = [i for i in np.flatnonzero(~legal).tolist() if i not in self.detached]
        for i in losing:  # the forfeited game, before the batch moves its slot on
            python.games[i] = self._game(i)
        # the next deals' seeds of the newly forfeited slots (drawn ahead; the stand-in may deal with them)
        seeds = {i: None if self._next_seed is None else int(self._next_seed[i]) for i in losing}
        batch_actions = actions.copy()
        for i in [*self.detached, *losing]:
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

    def _python_slots(self) -> PythonBackend:
        if self._python is None:
            self._python = PythonBackend(self.env, buffers=self)
        return self._python

    def _reattach(self) -> None:
        """Hand the detached slots back to the batch (before its reset): their rows back to what the batch
        last wrote there (its reset rewrites only what changes) and, unless the generators were reseeded,
        their next seeds drawn again (the one drawn ahead was dealt in Python)."""
        python = self._python_slots()
        for i in self.detached:
            stand_in = self._game(i)
            self.observation[i] = python.encoder(i).encode(stand_in, stand_in.current_player)
            _show_mask(self.action_mask[i], self.batch.legal_action_ids(i))
            python.games[i] = None
        if self._next_seed is not None and self._drawn_for == self.env._seed_epoch:
            self._draw(self.detached)
        self.detached.clear()

    def legal(self, i: int) -> np.ndarray:
        if i in self.detached:
            return self._python_slots().legal(i)
        return self.batch.legal_action_ids(i)

    def all_legal(self) -> list[np.ndarray]:
        ids, offsets = self.batch.all_legal_action_ids()
        rows = [ids[offsets[i] : offsets[i + 1]] for i in range(self.env.num_envs)]
        for i in self.detached:
            rows[i] = self._python_slots().legal(i)
        return rows

    def flat_legal(self) -> tuple[np.ndarray, np.ndarray]:
        return _flat(self.all_legal()) if self.detached else self.batch.all_legal_action_ids()

    def game(self, i: int) -> Any:
        return self._python_slots().game(i) if i in self.detached else self._game(i)


def _kardinal_batch(env: VectorEnv) -> tuple[Any, Any, Callable[[int], Any]]:
    """Kardinal's ``KardinalBatch`` from the start position (no chance), no encoder hint, and game ``i``:
    the batch's copy and its history wrapped (no replay: cheap enough for a baseline's every decision)."""
    from kardinal_env.kardinal import compiled
    from kardinal_env.kardinal.core_game import CoreGame

    start = compiled.core_game(env.rules)  # RuntimeError / ImportError naming how to build the core
    module: Any = core_module()
    batch = module.KardinalBatch(start, env.num_envs, env.reward_scheme, env.chip_shaping, env.score_shaping)
    return batch, None, lambda i: CoreGame.of_core(env.rules, batch.game(i), batch.history_codes(i))


def _koenig_batch(env: VectorEnv) -> tuple[Any, Any, Callable[[int], Any]]:
    """Kardinal & König's ``KoenigBatch`` on the core's board (each game dealt with its slot's
    ``next_seed``), its encoder, and game ``i``: the batch's copy, its seed and moves wrapped (no replay)."""
    from kardinal_env.koenig import compiled
    from kardinal_env.koenig.core_game import CoreGame

    rules = env.rules
    board = compiled.core_board(rules.compiled)  # RuntimeError / ImportError naming how to build the core
    module: Any = core_module()
    batch = module.KoenigBatch(board, rules.players, rules.discard, env.num_envs, env.reward_scheme, env.score_shaping)
    return (
        batch,
        env.spec.make_encoder(rules),
        lambda i: CoreGame.of_core(rules, batch.game(i), int(batch.seed(i)), batch.history_ids(i)),
    )


def _core_batch(spec: GameSpec, rules: Any) -> Callable[[VectorEnv], tuple[Any, Any, Callable[[int], Any]]] | None:
    """What makes the core's batch for this game, or None: Kardinal's or Kardinal & König's engine and
    rules classes (not the name: a game registered under another name with them qualifies)."""
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


def choose_backend(spec: GameSpec, rules: Any, env_options: dict, backend: str) -> str:
    """``"core"`` or ``"python"`` for ``backend`` (``"auto"``, ``"core"`` or ``"python"``), the game and its
    options (the module docstring of :mod:`kardinal_env.vector`)."""
    if backend == "python":
        return "python"
    part = _core_batch(spec, rules)
    if backend == "core" and (part is None or env_options):
        why = f"options {sorted(env_options)}" if env_options and part is not None else spec.name
        raise ValueError(
            f"backend='core' steps Kardinal and Kardinal & König games only, without encoder "
            f"options ({why} has no C++ batch); use backend='python' or 'auto'"
        )
    if part is None or env_options:
        return "python"
    return "core" if backend == "core" or core_module() is not None else "python"
