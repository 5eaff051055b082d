"""The backends of :class:`kardinal_env.vector.VectorEnv`, and which one a game gets.

:mod:`kardinal_env.vector` is the specification (its docstring: the arrays, rewards, auto-reset, seeds,
backends and illegal actions) and the API: ``VectorEnv`` checks its arguments and every action, then
hands the batch to one backend, which plays it:

* :class:`_PythonBackend` — the reference, for every registered game: N registry games
  (``spec.new_game``) played through the game protocol's action ids, one encoder per game.
* :class:`_CoreBackend` — the game stepped in C++ by the game's batch (``kardinal_core.KardinalBatch``
  / ``KoenigBatch``), which its per-game part makes (:class:`_CoreGame`: :class:`_KardinalCore`,
  :class:`_KoenigCore`); for a game with chance it keeps each slot's next deal's seed drawn ahead of
  the slot's generator. The forfeit handling lives here too: under ``illegal_action="lose"`` a slot
  whose game is forfeited goes on in a :class:`_PythonBackend` that writes into the batch's arrays
  (the slot is *detached*) until the next ``reset()`` hands it back to the batch.
* :func:`_choose_backend` — ``"auto"``, ``"core"`` or ``"python"`` for a game and its rules: the core
  where :func:`_core_game` finds a batch for the game's engine and rules classes and the suite's one
  backend switch (:func:`kardinal_env.core.backend.core_module`) says the core is used.

What a backend offers ``VectorEnv``: ``num_actions``; ``encoder_hint`` (the encoder whose bounds the
observation space takes); the arrays ``observation``, ``action_mask``, ``current_player``, ``rewards``,
``terminated`` and ``final_observation`` (its own buffers, overwritten in place; ``VectorEnv`` hands out
read-only views of them); ``reset()``; ``step(actions)`` (the actions an int64 array already checked to
be ids of the action space; returns the final infos of the games that ended); ``legal(i)``,
``all_legal()``, ``flat_legal()`` (every game's legal ids and their offsets) and ``game(i)``. A backend
reads the environment's settings and its per-slot generators (``env._generators``; ``env._seed_epoch``
counts their reseedings) and explains an illegal action with ``env._illegal`` (the error to raise) or
``env._explain`` (the engine's error, for a forfeit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kardinal_env.core import limits
from kardinal_env.core.backend import core_module
from kardinal_env.core.illegal import forfeit
from kardinal_env.core.registry import GameSpec
from kardinal_env.core.rewards import ShapingTracker, terminal_rewards

if TYPE_CHECKING:
    from kardinal_env.vector import VectorEnv

#: Bytes a slot takes besides its arrays, at least (its random.Random alone is about 2.5 KB).
_SLOT_OVERHEAD = 4096


class _PythonBackend:
    """The reference: registry games played through the game protocol's action ids, one encoder per game.

    ``buffers`` (an object with the arrays ``observation``, ``action_mask``, ``current_player``,
    ``rewards``, ``terminated``, ``final_observation``): play single slots into those arrays instead
    of allocating its own — the core backend's slots that go on in Python after a forfeit; then
    encoders are made per slot when first needed."""

    def __init__(self, env: VectorEnv, buffers: Any = None):
        spec, rules, n = env.spec, env.rules, env.num_envs
        self.env = env
        self.encoder_hint: Any = spec.make_encoder(rules, **env.env_options)
        probe = spec.new_game(rules, seed=0 if spec.chance else None)
        self.num_actions = int(probe.num_actions)
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
        legal = np.asarray(game.legal_actions(), dtype=np.int64)
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
                    raise env._illegal(i, self.games[i], action)
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
        game.apply_action(action)
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
        lost = forfeit(env._explain(game, action), action, seat, env.num_players, env.reward_scheme)
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
                raise self.env._illegal(bad, self.game(bad), int(actions[bad]))
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


class _KardinalCore(_CoreGame):
    """Kardinal: ``KardinalBatch`` from the start position (no chance: every game is the same start)."""

    def __init__(self, env: VectorEnv):
        from kardinal_env.kardinal import compiled

        super().__init__(env)
        start = compiled.core_game(env.rules)  # RuntimeError / ImportError naming how to build the core
        module: Any = compiled.core_module()
        self.batch = module.KardinalBatch(start, env.num_envs, env.reward_scheme, env.chip_shaping, env.score_shaping)

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
        module: Any = compiled.core_module()
        self.batch = module.KoenigBatch(
            board, rules.players, rules.discard, env.num_envs, env.reward_scheme, env.score_shaping
        )
        self.encoder_hint = env.spec.make_encoder(rules)

    def game(self, i: int) -> Any:
        from kardinal_env.koenig.core_game import CoreGame

        # the batch's copy of the game, its seed and its moves, wrapped (no replay)
        batch = self.batch
        return CoreGame.of_core(self.env.rules, batch.game(i), int(batch.seed(i)), batch.history_ids(i))


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


def _choose_backend(spec: GameSpec, rules: Any, env_options: dict, backend: str) -> str:
    if backend == "python":
        return "python"
    part = _core_game(spec, rules)
    if backend == "core":
        if part is None or env_options:
            why = f"options {sorted(env_options)}" if env_options and part is not None else spec.name
            raise ValueError(
                f"backend='core' steps Kardinal and Kardinal & König games only, without encoder "
                f"options ({why} has no C++ batch); use backend='python' or 'auto'"
            )
        return "core"
    if part is None or env_options:
        return "python"
    return "core" if core_module() is not None else "python"
