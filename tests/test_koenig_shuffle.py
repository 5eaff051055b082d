"""The shared shuffler of Kardinal & König (kardinal_env.core.shuffle): known vectors, and that the
engine deals and reshuffles with it. The compiled core's copy is compared in tests/test_core_koenig.py."""

from __future__ import annotations

import pytest

from kardinal_env.core.shuffle import ShuffleRng, fnv1a64, seed_state
from kardinal_env.koenig import Game, Rules

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane


def test_splitmix64_published_vector():
    """SplitMix64 seeded with 0 (the reference implementation's first outputs)."""
    rng = ShuffleRng(0)
    assert [rng.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_fnv1a64_published_vectors():
    assert fnv1a64("") == 0xCBF29CE484222325
    assert fnv1a64("a") == 0xAF63DC4C8601EC8C
    assert fnv1a64("foobar") == 0x85944171F73967E8


def test_seed_states():
    assert seed_state(5) == 5
    assert seed_state(-1) == 2**64 - 1
    assert seed_state(2**64 + 7) == 7
    assert seed_state(True) == 1
    assert seed_state("foobar") == 0x85944171F73967E8
    assert seed_state(None) != seed_state(None)  # entropy (a collision has probability 2**-64)
    for bad in (1.5, b"x", [1]):
        with pytest.raises(TypeError, match="seed must be"):
            seed_state(bad)  # type: ignore[arg-type]


def test_known_shuffles_and_bounded_draws():
    """Pinned outputs: a change of the generator, the bounded draw or the shuffle fails here."""
    items = list(range(10))
    ShuffleRng(42).shuffle(items)
    assert items == [2, 5, 3, 4, 9, 8, 7, 0, 6, 1]
    items = list(range(10))
    ShuffleRng("kardinal").shuffle(items)
    assert items == [5, 4, 3, 9, 2, 0, 1, 8, 7, 6]
    rng = ShuffleRng(-1)
    assert [rng.below(6) for _ in range(10)] == [0, 5, 4, 4, 2, 3, 0, 3, 0, 2]
    with pytest.raises(ValueError):
        rng.below(0)


def test_known_bits_and_weighted_choices():
    """Pinned outputs of getrandbits (the top bits of one draw) and weighted (one bounded draw over the
    total, the first index whose running total exceeds it): the world dealer and ISMCTS draw with them,
    in Python and in the core (cpp/src/koenig/worlds.hpp), so a change fails here."""
    rng = ShuffleRng(5)
    assert [rng.getrandbits(64) for _ in range(2)] == [7134611160154358618, 13877614986023876344]
    assert [rng.getrandbits(8) for _ in range(4)] == [59, 25, 48, 97] and rng.getrandbits(1) == 1
    a, b = ShuffleRng(6), ShuffleRng(6)
    assert a.getrandbits(64) == b.next() and a.getrandbits(20) == b.next() >> 44
    rng = ShuffleRng(7)
    assert [rng.weighted([3, 0, 5, 2]) for _ in range(12)] == [2, 3, 2, 2, 2, 2, 0, 0, 2, 2, 0, 0]
    a, b = ShuffleRng(8), ShuffleRng(8)
    assert [a.weighted([4, 6]) for _ in range(50)] == [int(b.below(10) >= 4) for _ in range(50)]
    counts = [0, 0, 0]
    for _ in range(6000):
        counts[rng.weighted([1, 0, 2])] += 1
    assert counts[1] == 0 and 1800 < counts[0] < 2200
    for bad in ([], [0, 0], [-1, 2], [1 << 32]):
        with pytest.raises(ValueError):
            rng.weighted(bad)
    for k in (0, 65):
        with pytest.raises(ValueError):
            rng.getrandbits(k)


def test_below_is_uniform_enough_and_in_range():
    rng = ShuffleRng(3)
    counts = [0] * 7
    for _ in range(7000):
        counts[rng.below(7)] += 1
    assert min(counts) > 850 and max(counts) < 1150


def test_from_state_continues_the_same_stream():
    a = ShuffleRng(9)
    a.next()
    b = ShuffleRng.from_state(a.state)
    assert [a.next() for _ in range(5)] == [b.next() for _ in range(5)]


def test_the_engine_deals_with_the_shared_shuffler():
    rules = Rules(players=4)
    order = sorted(rules.deck_cards)
    ShuffleRng(123).shuffle(order)
    assert Game(rules, seed=123).initial_deck == order
    assert Game(rules, seed="x").initial_deck == Game(rules, seed=fnv1a64("x")).initial_deck


def test_the_reshuffle_draws_from_the_same_generator():
    """The discard pile at the first run-out is shuffled by the generator that dealt the deck, next."""
    rules = Rules(players=3)
    game = Game(rules, seed=11)
    rng = ShuffleRng(11)
    rng.shuffle(sorted(rules.deck_cards))  # the deal
    board = rules.compiled
    while True:
        move = game.legal_actions()[-1]
        pile = game.discard_pile() + [board.types[t] for t in board.move_spends[move]]
        game.apply_action(move)
        if game.runouts:
            break
    rng.shuffle(pile)
    assert game.reshuffle_order == pile and len(pile) > 10
