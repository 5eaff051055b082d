"""Nim: a small third game, written outside the package, that the tests register with one call.

It is the worked example of ``docs/adding-a-game.md`` (whose code block is this file, word for word;
``tests/test_third_game.py`` checks that): a game of perfect information without chance that goes
through the suite's generic tools — registry, environments, replays, evaluation, search, terminal
play, training — without any edit to the package. Its agents (a greedy baseline) are registered
with it, in the agents' registry (:mod:`agents.registry`).

Rules: a pile of ``pile`` stones (12); the players (2 or 3) take turns in seat order, each taking
1 to ``max_take`` (3) stones; whoever takes the last stone wins — or, with ``misere``, loses (then
every other seat shares the win). Scores: 1 for a winner, 0 otherwise. Finishing order: by score,
ties broken by the stones a seat took (more is better), seats still tied share a place.

A move is the number of stones to take as a string (``"1"`` .. ``"3"``). Records:
``{"format": "nim-record/1", "rules": {...}, "moves": [...], "result": {"scores", "winners"} or null}``.

Use::

    import third_game
    with third_game.registered() as spec:   # register() ... unregister()
        game = spec.new_game(spec.rules(players=3, pile="10"))
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from agents.registry import GameAgents, register_agents, unregister_agents
from kardinal_env.core.checks import check_action
from kardinal_env.core.errors import IllegalMoveError, RecordError
from kardinal_env.core.protocol import finishing_order_from_keys
from kardinal_env.core.records import check_move_strings, check_record_fields, check_result, check_result_shape
from kardinal_env.core.registry import GameSpec, Renderers, RuleOption, register_game, unregister_game

FORMAT = "nim-record/1"


class NimRules:
    """``NimRules(players=2, pile=12, max_take=3, misere=False)``; ``pile`` may be a decimal string
    (the command line gives one). A bad option is a ``ValueError`` naming it."""

    def __init__(self, players: int = 2, pile: int | str = 12, max_take: int = 3, misere: bool = False):
        if isinstance(pile, str) and pile.strip().isdigit():
            pile = int(pile)
        for name, value, low, high in (("players", players, 2, 3), ("pile", pile, 1, 99), ("max_take", max_take, 1, 9)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
        if not isinstance(misere, bool):
            raise ValueError(f"misere must be true or false, got {misere!r}")
        self.players, self.pile, self.max_take, self.misere = players, int(pile), max_take, misere

    def to_dict(self) -> dict:
        return {"players": self.players, "pile": self.pile, "max_take": self.max_take, "misere": self.misere}

    @classmethod
    def from_dict(cls, data: object, where: str = "rules") -> NimRules:
        if not isinstance(data, dict) or set(data) != {"players", "pile", "max_take", "misere"}:
            raise RecordError(f"{where}: expected an object with exactly players, pile, max_take, misere")
        try:
            return cls(**data)
        except ValueError as exc:
            raise RecordError(f"{where}: {exc}") from None


class NimGame:
    """One game of Nim, implementing :class:`kardinal_env.core.protocol.GameState`."""

    def __init__(self, rules: NimRules, seed: int | None = None):  # no chance: the seed is ignored
        self.rules = rules
        self.pile = rules.pile
        self.history: list[str] = []
        self.taken = [0] * rules.players
        self.last_taker: int | None = None

    @property
    def num_players(self) -> int:
        return self.rules.players

    @property
    def is_over(self) -> bool:
        return self.pile == 0

    @property
    def move_count(self) -> int:
        return len(self.history)

    @property
    def current_player(self) -> int | None:
        return None if self.is_over else len(self.history) % self.num_players

    # Action ids, the protocol's moves: action k - 1 takes k stones.
    @property
    def num_actions(self) -> int:
        return self.rules.max_take

    def legal_actions(self) -> list[int]:
        return list(range(min(self.rules.max_take, self.pile)))

    def apply_action(self, action: int) -> None:
        self.play(self.action_to_string(action))

    def action_to_string(self, action: int) -> str:
        return str(check_action(action, self.num_actions) + 1)

    def string_to_action(self, move: str) -> int:
        if not isinstance(move, str) or not move.isdigit() or not 1 <= int(move) <= self.num_actions:
            raise IllegalMoveError(
                f"malformed move: {move!r} is not a number from 1 to {self.num_actions}", "malformed move", move
            )
        return int(move) - 1

    def legal_moves(self) -> list[str]:
        return [str(k) for k in range(1, min(self.rules.max_take, self.pile) + 1)]

    def play(self, move: str) -> None:
        if self.is_over:
            raise IllegalMoveError(f"game over: no move after the last stone, got {move!r}", "game over", move)
        if not isinstance(move, str) or not move.isdigit() or not 1 <= int(move) <= self.rules.max_take:
            raise IllegalMoveError(
                f"malformed move: expected a number of stones from 1 to {self.rules.max_take}, got {move!r}",
                "malformed move",
                move,
            )
        if int(move) > self.pile:
            raise IllegalMoveError(f"take at most the pile: {move} stones, {self.pile} left", "pile", move)
        seat = self.current_player
        assert seat is not None
        self.pile -= int(move)
        self.taken[seat] += int(move)
        self.history.append(move)
        self.last_taker = seat

    def scores(self) -> list[int]:
        if not self.is_over:
            return [0] * self.num_players
        return [int((seat == self.last_taker) != self.rules.misere) for seat in range(self.num_players)]

    projected_scores = scores  # the scores if the game ended now

    def winners(self) -> list[int]:  # the protocol: only once the game is over
        if not self.is_over:
            raise RuntimeError("winners() is only defined once the game is over")
        scores = self.scores()
        return [seat for seat, score in enumerate(scores) if score == max(scores)]

    def finishing_order(self) -> list[list[int]]:
        if not self.is_over:
            raise RuntimeError("finishing_order() is only defined once the game is over")
        return finishing_order_from_keys(list(zip(self.scores(), self.taken)))

    def clone(self) -> NimGame:
        other = NimGame(self.rules)
        other.pile, other.history, other.taken, other.last_taker = (
            self.pile,
            list(self.history),
            list(self.taken),
            self.last_taker,
        )
        return other

    def determinize(self, seat: int, rng: random.Random) -> NimGame:
        return self.clone()  # perfect information, no chance: nothing is hidden

    def to_record(self) -> dict:
        result = {"scores": self.scores(), "winners": self.winners()} if self.is_over else None
        return {"format": FORMAT, "rules": self.rules.to_dict(), "moves": list(self.history), "result": result}

    @classmethod
    def from_record(cls, record: object, source: str = "record") -> NimGame:
        record = check_record_fields(record, FORMAT, {"format", "rules", "moves", "result"}, ("rules", "moves"), source)
        game = cls(NimRules.from_dict(record["rules"], where=f"{source}: field 'rules'"))
        for i, move in enumerate(check_move_strings(record["moves"], source)):
            try:
                game.play(move)
            except IllegalMoveError as exc:
                raise RecordError(f"{source}: move {i} ({move!r}): {exc}") from None
        result = check_result_shape(record.get("result"), source)
        over = game.is_over
        check_result(
            result, game.move_count, over, game.scores() if over else None, game.winners() if over else None, source
        )
        return game


class NimEncoder:
    """float32: one-hot of the stones left (``pile + 1``), then one-hot of the seat to move counted
    from the observer (all zero once the game is over)."""

    dtype = np.float32
    low, high = 0.0, 1.0

    def __init__(self, rules: NimRules):
        self.rules = rules
        self.shape = (rules.pile + 1 + rules.players,)

    def encode(self, game: NimGame, observer: int) -> np.ndarray:
        obs = np.zeros(self.shape, dtype=np.float32)
        obs[game.pile] = 1.0
        if game.current_player is not None:
            obs[self.rules.pile + 1 + (game.current_player - observer) % game.num_players] = 1.0
        return obs


def nim_text(game: NimGame, seat: int | None = None) -> str:
    """The text picture: the pile, then whose turn it is or the result."""
    lines = [f"pile: {'o' * game.pile or '-'} ({game.pile} of {game.rules.pile} stones left)"]
    if game.is_over:
        lines.append(f"player {game.last_taker} took the last stone; scores {game.scores()}, winners {game.winners()}")
    else:
        you = " (you)" if seat == game.current_player else ""
        lines.append(f"player {game.current_player}{you} to move: take {', '.join(game.legal_moves())}")
    return "\n".join(lines)


class NimGreedyAgent:
    """Takes the stones that leave a multiple of ``max_take + 1`` (the winning move of two-player
    Nim; shifted by one in misère play) when it can, else a random legal move."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def select_move(self, game: NimGame) -> str:
        take = (game.pile - game.rules.misere) % (game.rules.max_take + 1)
        moves = game.legal_moves()
        return str(take) if str(take) in moves else moves[self.rng.randrange(len(moves))]


SPEC = GameSpec(
    name="nim",
    title="Nim",
    players=(2, 3),
    default_players=2,
    rules_class=NimRules,
    game_class=NimGame,
    record_format=FORMAT,
    observation=NimEncoder,
    renderers=Renderers(text=nim_text),
    env_id="thirdgame/nim-v0",
    gym_id="thirdgame/NimVsBots-v0",
    chance=False,
    perfect_information=True,
    rule_options=(
        RuleOption("pile", "str", "stones in the pile at the start (default 12)"),
        RuleOption("misere", "flag", "whoever takes the last stone loses", default=False),
    ),
)

#: What plays Nim besides the agents of every game (random, mcts:N and ismcts:N play it unlisted).
AGENTS = GameAgents(game="nim", baselines={"greedy": NimGreedyAgent})


def register() -> GameSpec:
    """Register Nim and its agents (a plugin's ``third_game:register``); returns the game's spec."""
    register_agents(AGENTS)
    return register_game(SPEC)


def unregister() -> None:
    unregister_game(SPEC.name)
    unregister_agents(SPEC.name)


@contextmanager
def registered() -> Iterator[GameSpec]:
    """Nim registered for the ``with`` block (tests: ``with registered(): ...`` or a fixture around it)."""
    register()
    try:
        yield SPEC
    finally:
        unregister()
