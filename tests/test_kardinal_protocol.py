"""Kardinal speaks the game protocol (``kardinal_env.core.protocol``): the members, the finishing order
with the cathedral tie-break, determinize (a clone: perfect information, no chance), the seed that is
accepted and ignored, and the action codec of the protocol (``spec.make_codec``) with its errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from kardinal_env import kardinal_v0
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.protocol import ActionCodec, GameState, ObservationEncoder, check_protocol
from kardinal_env.core.registry import get_game
from kardinal_env.kardinal import Game, Rules

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

GOLDEN = Path(__file__).parent / "golden"

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


def _random_game(players: int, seed: int, moves: int | None = None, **options) -> Game:
    game = Game(Rules(players=players, **options))
    rng = random.Random(seed)
    while not game.is_over and (moves is None or game.move_count < moves):
        game.play(rng.choice(game.legal_moves()))
    return game


def test_the_game_implements_the_protocol():
    for game in (Game(Rules(players=2)), _random_game(3, seed=1, moves=9), _random_game(4, seed=2)):
        check_protocol(game)
        assert isinstance(game, GameState)
    assert isinstance(Game.from_record(Game(Rules(players=2)).to_record()), GameState)


@pytest.mark.parametrize("name", sorted(FINISHING))
def test_finishing_order_of_the_golden_games(name):
    game = Game.from_record(json.loads((GOLDEN / f"{name}.json").read_text()))
    order = game.finishing_order()
    assert order == FINISHING[name]
    assert game.winners() == order[0]


@pytest.mark.parametrize("players, seed", [(2, 3), (3, 4), (4, 5), (3, 6), (4, 7)])
def test_finishing_order_follows_score_then_cathedral(players, seed):
    game = _random_game(players, seed, shared_pool=players > 2 and seed % 2 == 0)
    order = game.finishing_order()
    assert sorted(s for group in order for s in group) == list(range(players))
    assert game.winners() == order[0]
    keys = [(game.scores()[s], game.cathedral_touches()[s]) for s in range(players)]
    for group in order:  # one key per group, strictly falling from group to group
        assert len({keys[s] for s in group}) == 1 and group == sorted(group)
    assert [keys[g[0]] for g in order] == sorted({keys[g[0]] for g in order}, reverse=True)


def test_finishing_order_only_once_over():
    game = _random_game(3, seed=8, moves=12)
    with pytest.raises(RuntimeError, match="finishing_order"):
        game.finishing_order()


def test_determinize_is_an_independent_clone():
    game = _random_game(3, seed=9, moves=15)
    rng = random.Random(1)
    state = rng.getstate()
    world = game.determinize(1, rng)
    assert rng.getstate() == state  # nothing to deal
    assert world is not game and world.to_record() == game.to_record()
    assert world.legal_moves() == game.legal_moves() and world.current_player == game.current_player
    world.play(world.legal_moves()[0])
    assert world.move_count == game.move_count + 1 and game.move_count == 15


def test_the_seed_is_accepted_and_ignored():
    rules = Rules(players=3, preset="german")
    for seed in (None, 0, 12345):
        assert Game(rules, seed=seed).legal_moves() == Game(rules).legal_moves()
    assert get_game("kardinal").new_game(rules, seed=7).legal_moves() == Game(rules).legal_moves()


# ---------------------------------------------------------------------- the codec
@pytest.mark.parametrize(
    "rules, options",
    [
        (Rules(players=2), {}),
        (Rules(players=4, shared_pool=True), {"window": 53}),
        (Rules(players=3, window=9), {"window": 9}),
    ],
)
def test_registry_codec_and_encoder(rules, options):
    spec = get_game("kardinal")
    codec = spec.make_codec(rules, **options)
    encoder = spec.make_encoder(rules, **options)
    assert isinstance(codec, ActionCodec) and isinstance(encoder, ObservationEncoder)
    window = options.get("window", 53)
    assert codec.num_actions == 17 * window * window + 5
    env = kardinal_v0.raw_env(players=rules.players, shared_pool=rules.shared_pool, window=window)
    env.reset()
    game = Game(rules)
    rng = random.Random(rules.players)
    out = np.ones(codec.num_actions, dtype=np.int8)
    while not game.is_over:
        seat = game.current_player
        actions = codec.legal_actions(game)
        assert [codec.decode(game, a) for a in actions] == game.legal_moves()
        assert [codec.encode(game, m) for m in game.legal_moves()] == actions.tolist()
        mask = codec.action_mask(game)
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == sorted(actions.tolist())
        assert codec.action_mask(game, seat, out=out) is out and np.array_equal(out, mask)
        assert not codec.action_mask(game, (seat + 1) % rules.players).any()
        assert np.array_equal(encoder.encode(game, seat), env.encoder.encode(game, seat))
        game.play(rng.choice(game.legal_moves()))
    assert codec.legal_actions(game).size == 0 and not codec.action_mask(game).any()


def test_codec_errors_name_the_rule():
    codec = get_game("kardinal").make_codec(Rules(players=2))
    game = Game(Rules(players=2))
    for action in (-1, codec.num_actions, 1.5, True, "3", None):
        with pytest.raises(IllegalMoveError, match="action") as info:
            codec.decode(game, action)
        assert info.value.rule == "action"
    with pytest.raises(IllegalMoveError) as info:
        codec.encode(game, "H0@1")
    assert info.value.rule == "malformed move"
    small = get_game("kardinal").make_codec(Rules(players=2, window=9), window=9)
    with pytest.raises(IllegalMoveError) as info:
        small.encode(Game(Rules(players=2, window=9)), "H0@20,0")
    assert info.value.rule == "window"
    over = _random_game(2, seed=1)
    with pytest.raises(IllegalMoveError) as info:
        codec.decode(over, 0)
    assert info.value.rule == "game over"
    with pytest.raises(IllegalMoveError) as info:
        codec.encode(over, "C-")
    assert info.value.rule == "game over"


def test_codec_and_encoder_frame_the_rules_own_window_by_default():
    """A window variant's codec and encoder need no window argument: they frame the rules' window
    (the lossless 53 for the unbounded game); a window that contradicts the rules is refused."""
    from kardinal_env.core.registry import get_game

    spec = get_game("kardinal")
    variant = Rules(players=2, window=9)
    assert spec.make_codec(variant).window == 9 and spec.make_encoder(variant).shape == (72, 9, 9)
    assert spec.make_codec(Rules(players=2)).window == 53
    with pytest.raises(ValueError, match="differs from the rules' window 9"):
        spec.make_codec(variant, window=11)
