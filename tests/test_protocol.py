"""Every registered game speaks the game protocol (``kardinal_env.core.protocol``), parametrized over the
built-in games and the test-only third game (tests/third_game.py's Nim, registered for the test):

* the members (``check_protocol``) of a new, a half-played and a finished game, a game read back from
  its record and a determinized world;
* the finishing order: every seat once, winners first, each place one ranking key (the game's own:
  Kardinal's score then cathedral touches, K&K's score, Nim's score then stones taken), strictly
  falling from place to place; only once the game is over;
* determinize: a clone for a game of perfect information without chance (its generator untouched);
  the seed: ignored without chance, the same deal with it;
* the action ids (``legal_actions``, ``apply_action``, ``action_to_string``, ``string_to_action``) and
  the registry's observation encoder (``spec.make_encoder``) against the notation and the game's
  environment at every decision of a random game, in rule variants; the errors name the rule.

Then what is one game's own: Kardinal's golden finishing orders, its action space's window, the
game-over and window errors; K&K's worlds that keep what the seat sees and no hidden history, its action
space's size.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import third_game
from koenig_helpers import random_game, small_board

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.generic_env import GameEnv
from kardinal_env.core.protocol import GameState, ObservationEncoder, check_protocol
from kardinal_env.core.registry import GameSpec, get_game

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

GOLDEN = Path(__file__).parent / "golden"
GAMES = ("kardinal", "kardinal_koenig", "nim")

#: Each game's ranking key of a seat: the finishing order sorts the seats by it, equal keys share a place.
KEYS = {
    "kardinal": lambda game, seat: (game.scores()[seat], game.cathedral_touches()[seat]),
    "kardinal_koenig": lambda game, seat: (game.scores()[seat],),
    "nim": lambda game, seat: (game.scores()[seat], game.taken[seat]),
}
#: Rule variants (players, rules keywords, encoder/env options) whose action ids are checked move by move.
VARIANTS = {
    "kardinal": [(2, {}, {}), (4, {"shared_pool": True}, {"window": 53}), (3, {"window": 9}, {"window": 9})],
    "kardinal_koenig": [
        (3, {}, {}),
        (4, {"discard": "any"}, {}),
        (5, {}, {}),
        (3, {"discard": "any", "board": "small"}, {}),
    ],
    "nim": [(2, {}, {}), (3, {"pile": 20, "misere": True}, {})],
}
#: Moves each game refuses as malformed.
MALFORMED = {"kardinal": ["H0@1"], "kardinal_koenig": ["K@NOWHERE/4", "draw", 5, None], "nim": ["x", "0", "4", None]}


@pytest.fixture(params=GAMES)
def spec(request) -> Iterator[GameSpec]:
    if request.param == "nim":
        with third_game.registered() as nim:
            yield nim
    else:
        yield get_game(request.param)


def _rules(spec: GameSpec, players: int, **options):
    if options.get("board") == "small":
        options["board"] = small_board()
    return spec.load("rules_class")(players=players, **options)


def _played(spec: GameSpec, players: int, seed: int, moves: int | None = None, **options):
    game = spec.new_game(_rules(spec, players, **options), seed=seed)
    rng = random.Random(seed)
    while not game.is_over and (moves is None or game.move_count < moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def _env(spec: GameSpec, players: int, rules, options: dict, env_options: dict):
    """The game's own environment (the generic one for a game without), on ``rules``."""
    if spec.env_module is None:
        return GameEnv(game=spec.name, players=players, **options, **env_options)
    raw_env = spec.load("env_module").raw_env
    if spec.name == "kardinal":
        return raw_env(players=players, shared_pool=rules.shared_pool, **env_options)
    return raw_env(players=players, discard=rules.discard, board=rules.board, **env_options)


# ---------------------------------------------------------------- every game


def test_the_game_implements_the_protocol(spec):
    players = spec.players[-1]
    for game in (spec.new_game(spec.rules()), _played(spec, players, 1, moves=9), _played(spec, players, 2)):
        check_protocol(game)
        assert isinstance(game, GameState)
        assert isinstance(spec.from_record(game.to_record()), GameState)
    world = _played(spec, players, 3, moves=12).determinize(0, random.Random(0))
    check_protocol(world)
    assert isinstance(world, GameState)


def test_the_finishing_order_ranks_by_the_games_key(spec):
    key = KEYS[spec.name]
    ties = 0
    for seed in range(24):
        players = spec.players[seed % len(spec.players)]
        options = {
            "kardinal": {"shared_pool": players > 2 and seed % 2 == 0},
            "kardinal_koenig": {"discard": ("one", "any")[seed % 2]},
        }.get(spec.name, {})
        game = _played(spec, players, seed, **options)
        order = game.finishing_order()
        assert game.winners() == order[0]
        assert sorted(s for group in order for s in group) == list(range(players))
        for group in order:  # one key per place, strictly falling from place to place
            assert len({key(game, s) for s in group}) == 1 and group == sorted(group)
        assert [key(game, g[0]) for g in order] == sorted({key(game, g[0]) for g in order}, reverse=True)
        ties += any(len(group) > 1 for group in order)
    if spec.name != "kardinal":  # (Kardinal's shared places: the golden games below)
        assert ties  # some game has seats sharing a place


def test_finishing_order_only_once_over(spec):
    with pytest.raises(RuntimeError, match="finishing_order"):
        _played(spec, spec.players[-1], 8, moves=3).finishing_order()


def test_determinize_and_the_seed(spec):
    rules = spec.rules(spec.players[-1])
    if spec.chance:  # the same seed deals the same game
        a, b = spec.new_game(rules, seed=3), spec.new_game(rules, seed=3)
        assert a.to_record() == b.to_record() and a.legal_moves() == b.legal_moves()
        spec.new_game(rules, seed=None)  # a fresh deal
    else:  # the seed is accepted and ignored
        for seed in (None, 0, 12345):
            assert spec.new_game(rules, seed=seed).legal_moves() == spec.new_game(rules).legal_moves()
    if not spec.perfect_information or spec.chance:
        return  # K&K's worlds: below
    game = _played(spec, spec.players[-1], 9, moves=5)
    moves = game.move_count
    rng = random.Random(1)
    state = rng.getstate()
    world = game.determinize(1, rng)
    assert rng.getstate() == state  # nothing to deal
    assert world is not game and world.to_record() == game.to_record()
    assert world.legal_moves() == game.legal_moves() and world.current_player == game.current_player
    world.play(world.legal_moves()[0])
    assert world.move_count == moves + 1 and game.move_count == moves


@pytest.mark.parametrize(
    "spec, variant", [(name, k) for name in GAMES for k in range(len(VARIANTS[name]))], indirect=["spec"]
)
def test_action_ids_and_encoder_agree_with_the_notation_and_the_env(spec, variant):
    players, options, env_options = VARIANTS[spec.name][variant]
    rules = _rules(spec, players, **options)
    encoder = spec.make_encoder(rules, **env_options)
    assert isinstance(encoder, ObservationEncoder)
    env = _env(spec, players, rules, options, env_options)
    env.reset(seed=players)
    assert env.num_actions == env.game.num_actions
    rng = random.Random(players)
    while not env.game.is_over:
        game, agent = env.game, env.agent_selection
        seat = game.current_player
        actions = [int(a) for a in game.legal_actions()]
        assert len(set(actions)) == len(actions) and all(0 <= a < game.num_actions for a in actions)
        assert [game.action_to_string(a) for a in actions] == game.legal_moves()
        assert [game.string_to_action(m) for m in game.legal_moves()] == actions
        seen = env.observe(agent)
        assert np.flatnonzero(seen["action_mask"]).tolist() == sorted(actions)
        assert env.legal_actions().tolist() == actions
        assert not env.action_mask(env.possible_agents[(seat + 1) % players]).any()
        assert np.array_equal(encoder.encode(game, seat), seen["observation"])
        twin = game.clone()
        action = rng.choice(actions)
        twin.play(game.action_to_string(action))
        env.step(action)
        assert env.game.to_record() == twin.to_record()  # apply_action plays what play(notation) plays
    assert len(env.game.legal_actions()) == 0 and not env.action_mask(env.possible_agents[0]).any()


def test_action_errors_name_the_rule(spec):
    game = spec.new_game(spec.rules(), seed=0)
    before = game.to_record()
    for action in (-1, game.num_actions, 1.5, True, "3", None, 2**70):
        for call in (game.action_to_string, game.apply_action):
            with pytest.raises(IllegalMoveError, match="action") as info:
                call(action)
            assert info.value.rule == "action"
    for move in MALFORMED[spec.name]:
        with pytest.raises(IllegalMoveError, match="malformed move") as info:
            game.string_to_action(move)
        assert info.value.rule == "malformed move"
    legal = set(int(a) for a in game.legal_actions())
    for action in (a for a in range(game.num_actions) if a not in legal):
        try:
            move = game.action_to_string(action)
        except IllegalMoveError:
            continue  # an id without a move here (Kardinal: a yard leaving the window)
        with pytest.raises(IllegalMoveError) as by_id:
            game.apply_action(action)
        with pytest.raises(IllegalMoveError) as by_name:
            game.play(move)
        assert by_id.value.rule == by_name.value.rule != "action" and str(by_id.value) == str(by_name.value)
        break
    assert game.to_record() == before  # nothing was played
    over = _played(spec, spec.default_players, 1)
    with pytest.raises(IllegalMoveError) as info:
        over.apply_action(0)
    assert (
        info.value.rule in ("game over", "pile")
        and over.to_record() == _played(spec, spec.default_players, 1).to_record()
    )


# ---------------------------------------------------------------- Kardinal's own
#: Golden games (tests/golden) and their finishing orders, worked out by hand from test_golden.FACTS
#: (scores, cathedral touches): a tie on score is broken by the touches, a tie on both shares a place.
FINISHING = {
    "english_2p_tiebreak": [[0], [1]],  # 33-33, touches 3-1
    "english_2p_shared_win": [[0, 1]],  # 32-32, touches 2-2
    "english_3p_tiebreak": [[1], [2], [0]],  # 20 21 21, touches 1 2 0
    "german_3p": [[2], [0], [1]],  # 19 14 21
    "english_4p_three_winners": [[0, 1, 2], [3]],  # 20 20 20 16, touches 1 1 1 0
    "english_4p_shared_pool": [[2], [0], [1], [3]],  # 6 5 7 4
}


@pytest.mark.parametrize("name", sorted(FINISHING))
def test_kardinal_finishing_order_of_the_golden_games(name):
    from kardinal_env.kardinal import Game

    game = Game.from_record(json.loads((GOLDEN / f"{name}.json").read_text()))
    order = game.finishing_order()
    assert order == FINISHING[name]
    assert game.winners() == order[0]


def test_kardinal_action_space_frames_the_rules_window():
    """A window variant's action space and encoder need no window argument: they frame the rules'
    window (the lossless 53 for the unbounded game); a window that contradicts the rules is refused."""
    from kardinal_env.kardinal import Game, Rules
    from kardinal_env.kardinal.actions import ActionCodec

    spec = get_game("kardinal")
    for rules, window in (
        (Rules(players=2), 53),
        (Rules(players=4, shared_pool=True), 53),
        (Rules(players=3, window=9), 9),
    ):
        assert Game(rules).num_actions == ActionCodec(rules, window=window).num_actions == 17 * window * window + 5
    variant = Rules(players=2, window=9)
    assert spec.make_encoder(variant).shape == (72, 9, 9)
    with pytest.raises(ValueError, match="differs from the rules' window 9"):
        ActionCodec(variant, window=11)


def test_kardinal_window_and_game_over_errors():
    from kardinal_env.kardinal import Game, Rules

    with pytest.raises(IllegalMoveError) as info:
        Game(Rules(players=2, window=9)).string_to_action("H0@20,0")
    assert info.value.rule == "window"
    over = _played(get_game("kardinal"), 2, 1)
    for call, arg in ((over.action_to_string, 0), (over.apply_action, 0), (over.string_to_action, "C-")):
        with pytest.raises(IllegalMoveError) as info:
            call(arg)
        assert info.value.rule == "game over"


# ---------------------------------------------------------------- Kardinal & König's own


def test_koenig_seeded_constructor_deals_the_same_deck():
    from kardinal_env.koenig import Game, Rules

    rules = Rules(players=4)
    assert Game(rules, seed=3).initial_deck == Game(rules, seed=3).initial_deck
    assert get_game("kardinal_koenig").new_game(rules, seed=3).initial_deck == Game(rules, seed=3).initial_deck


def test_koenig_determinize_keeps_what_the_seat_sees():
    from kardinal_env.koenig import Game

    game = random_game(4, seed=6, moves=70)
    seat = game.current_player
    for k in range(5):
        world = game.determinize(seat, random.Random(k))
        assert isinstance(world, Game) and world is not game
        assert world.hand(seat) == game.hand(seat) and world.display() == game.display()
        assert world.history == game.history and world.legal_moves() == game.legal_moves()
        assert world.discard_pile() == game.discard_pile() and world.deck_size() == game.deck_size()
        while not world.is_over:  # a world plays on to the end, reshuffles included
            world.play(world.legal_moves()[-1])
    with pytest.raises(ValueError, match="seat must be 0..3"):
        game.determinize(4, random.Random(0))


def test_koenig_a_world_keeps_no_hidden_history():
    game = random_game(4, seed=7, moves=90)
    assert game.runouts >= 1
    world = game.determinize(1, random.Random(1))
    with pytest.raises(RuntimeError, match="determinized world"):
        world.initial_deck  # noqa: B018
    with pytest.raises(RuntimeError, match="no record"):
        world.to_record()
    assert world.reshuffle_order is None and world.snapshot()["reshuffled"] is None
    # Seat 2's hand was dealt: its past draws are not known in the world, not even to seat 2.
    own = [card for _, taker, card in game.deck_takes(2) if taker == 2]
    assert own and None not in own
    assert {card for _, taker, card in world.deck_takes(2) if taker == 2} == {None}
    assert [c for _, t, c in world.deck_takes(1) if t in (1, -1)] == [
        c for _, t, c in game.deck_takes(1) if t in (1, -1)
    ]


def test_koenig_action_space_is_the_boards_move_table():
    from kardinal_env.koenig import Game, Rules

    for players, board in ((3, None), (4, None), (5, None), (3, small_board())):
        rules = Rules(players=players, board=board)
        game = Game(rules, seed=0)
        assert game.num_actions == rules.compiled.num_moves
        if board is None:
            assert game.num_actions == 390  # the default board (kardinal_koenig_v1's docstring)
            assert game.action_to_string(389) == "draw:deck" and game.string_to_action("draw:deck") == 389
    with pytest.raises(TypeError):
        get_game("kardinal_koenig").make_encoder(Rules(players=4), window=53)  # K&K's encoder takes no options
