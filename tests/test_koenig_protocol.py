"""Kardinal & König speaks the game protocol (``kardinal_env.core.protocol``): the members, the finishing
order (by score, ties share a place), determinize (worlds the seat cannot tell apart; the knowledge
itself is tested in test_koenig_knowledge.py), the seeded constructor, and the action codec of the
protocol (``kardinal_env.koenig.actions.ActionCodec``, the one K&K mask builder) with its errors."""

from __future__ import annotations

import random

import numpy as np
import pytest
from koenig_helpers import random_game, small_board

from kardinal_env import kardinal_koenig_v1
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.protocol import ActionCodec, GameState, ObservationEncoder, check_protocol
from kardinal_env.core.registry import get_game
from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig.actions import ActionCodec as KoenigCodec

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]


def test_the_game_implements_the_protocol():
    for game in (Game(Rules(players=3)), random_game(4, seed=1, moves=30), random_game(5, seed=2)):
        check_protocol(game)
        assert isinstance(game, GameState)
    world = random_game(4, seed=3, moves=40).determinize(0, random.Random(0))
    check_protocol(world)
    assert isinstance(world, GameState)


def test_finishing_order_by_score_ties_share():
    ties = 0
    for seed in range(24):
        game = random_game(3 + seed % 3, ("one", "any")[seed % 2], seed=seed)
        scores = game.scores()
        order = game.finishing_order()
        assert game.winners() == order[0]
        assert sorted(s for group in order for s in group) == list(range(game.num_players))
        for group in order:
            assert len({scores[s] for s in group}) == 1 and group == sorted(group)
        assert [scores[g[0]] for g in order] == sorted(set(scores), reverse=True)
        ties += any(len(group) > 1 for group in order)
    assert ties  # some game has seats sharing a place


def test_finishing_order_only_once_over():
    with pytest.raises(RuntimeError, match="finishing_order"):
        random_game(4, seed=5, moves=20).finishing_order()


def test_seeded_constructor():
    rules = Rules(players=4)
    assert Game(rules, seed=3).initial_deck == Game(rules, seed=3).initial_deck
    assert get_game("kardinal_koenig").new_game(rules, seed=3).initial_deck == Game(rules, seed=3).initial_deck
    Game(rules, seed=None)  # a fresh shuffle


def test_determinize_keeps_what_the_seat_sees():
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


def test_a_world_keeps_no_hidden_history():
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


# ---------------------------------------------------------------------- the codec
@pytest.mark.parametrize(
    "players, discard, board", [(3, "one", None), (4, "any", None), (5, "one", None), (3, "any", "small")]
)
def test_codec_agrees_with_the_engine_and_the_env(players, discard, board):
    rules = Rules(players=players, discard=discard, board=small_board() if board else None)
    spec = get_game("kardinal_koenig")
    codec, encoder = spec.make_codec(rules), spec.make_encoder(rules)
    assert isinstance(codec, ActionCodec) and isinstance(codec, KoenigCodec)
    assert isinstance(encoder, ObservationEncoder)
    assert codec.num_actions == rules.compiled.num_moves
    if board is None:
        assert codec.num_actions == 390  # the default board (kardinal_koenig_v1's docstring)
    env = kardinal_koenig_v1.raw_env(players=players, discard=discard, board=rules.board)
    env.reset(seed=players)
    rng = random.Random(players)
    out = np.ones(codec.num_actions, dtype=np.int8)
    while not env.game.is_over:
        game = env.game
        seat = game.current_player
        actions = codec.legal_actions(game)
        assert actions.dtype == np.intp
        assert [codec.decode(game, a) for a in actions] == game.legal_moves()
        assert [codec.encode(game, m) for m in game.legal_moves()] == actions.tolist()
        mask = codec.action_mask(game)
        assert mask.dtype == np.int8 and np.array_equal(mask, env.action_mask(env.agent_selection))
        assert np.array_equal(env.legal_actions(), actions)
        assert codec.action_mask(game, seat, out=out) is out and np.array_equal(out, mask)
        assert not codec.action_mask(game, (seat + 1) % players).any()
        assert np.array_equal(encoder.encode(game, seat), env.observe(env.agent_selection)["observation"])
        env.step(int(rng.choice(actions)))
    assert codec.legal_actions(env.game).size == 0 and not codec.action_mask(env.game).any()


def test_codec_errors_name_the_rule():
    rules = Rules(players=4)
    codec = KoenigCodec(rules)
    game = Game(rules, seed=0)
    for action in (-1, codec.num_actions, 2.0, True, "3", None):
        with pytest.raises(IllegalMoveError, match="action") as info:
            codec.decode(game, action)
        assert info.value.rule == "action"
    for move in ("K@NOWHERE/4", "draw", 5, None):
        with pytest.raises(IllegalMoveError, match="malformed move") as info:
            codec.encode(game, move)
        assert info.value.rule == "malformed move"
    assert codec.decode(game, codec.num_actions - 1) == "draw:deck" == codec.decode_action(389)
    with pytest.raises(TypeError, match="kardinal_env.koenig.Rules"):
        KoenigCodec(object())
    with pytest.raises(TypeError):
        get_game("kardinal_koenig").make_codec(rules, window=53)  # K&K's codec takes no options
