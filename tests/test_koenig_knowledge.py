"""What a seat of Kardinal & König may know (``kardinal_env.koenig.knowledge``) and the worlds
``Game.determinize`` deals from it: only possible worlds (before and after the first run-out, where
the new deck's make-up is public), the knowledge checked against the true game, and hidden information
kept hidden (games that differ only in what a seat cannot see give equal knowledge, observations and
worlds)."""

from __future__ import annotations

import copy
import random
from collections import Counter

import numpy as np
import pytest
from koenig_helpers import hidden_twins, play_common_move, random_game

from kardinal_env.core.shuffle import ShuffleRng
from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig.knowledge import SeatKnowledge, card_counts, deal_hidden, deck_counts
from kardinal_env.koenig.observation import ObservationEncoder

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]


def _until_first_run_out(seed: int, players: int = 4, discard: str = "one") -> Game:
    """A random game stopped at the first decision after the deck ran out for the first time."""
    game = Game(Rules(players=players, discard=discard), seed=seed)
    rng = random.Random(seed)
    while not game.runouts:
        game.play(rng.choice(game.legal_moves()))
    return game


def _digits(game: Game, counts: list[int]) -> Counter:
    return Counter({game.board.types[t]: k for t, k in enumerate(counts) if k})


def _check_world(game: Game, knowledge: SeatKnowledge, world: Game) -> None:
    """``world`` is one ``knowledge.seat`` cannot tell apart from ``game``, and a possible one."""
    seat = knowledge.seat
    truth, snap = game.snapshot(), world.snapshot()
    for key in ("display", "pile", "owners", "advisors", "pieces_left", "scores", "history"):
        assert snap[key] == truth[key], key
    if game.current_player == seat or snap["phase"] == truth["phase"]:
        assert snap["current"] == truth["current"] and snap["phase"] == truth["phase"]
    else:  # another seat's choice after a first piece follows its dealt hand
        assert {truth["phase"], snap["phase"]} == {"second", "draw"} and snap["turn"][1] == 1
        assert (snap["phase"] == "second") == any(m.startswith(("K@", "A@")) for m in world.legal_moves())
    if not world.is_over:
        assert world.legal_moves()  # a world is always playable
    assert snap["hands"][seat] == truth["hands"][seat]
    assert [len(h) for h in snap["hands"]] == [len(h) for h in truth["hands"]]
    assert len(snap["deck"]) == len(truth["deck"])
    hidden = lambda s: Counter(sum((s["hands"][o] for o in range(game.num_players) if o != seat), []) + s["deck"])  # noqa: E731
    assert hidden(snap) == hidden(truth) == _digits(game, knowledge.unseen)
    for other, cards in knowledge.known.items():
        assert not Counter(cards) - Counter(snap["hands"][other]), (other, cards, snap["hands"][other])
    if knowledge.new_deck is not None:  # after the first run-out the deck holds cards of the reshuffled pile
        assert not Counter(snap["deck"]) - _digits(game, knowledge.new_deck)
    if knowledge.deck_counts is not None:
        assert Counter(snap["deck"]) == _digits(game, knowledge.deck_counts)
    if game.current_player == seat:
        assert world.legal_moves() == game.legal_moves()


# ---------------------------------------------------------------------- the bug of issue 18
@pytest.mark.parametrize("seed", [5, 11, 23])
def test_worlds_right_after_the_first_run_out_keep_the_public_deck(seed):
    """Right after the first run-out the new deck is the reshuffled discard pile (public) less the cards
    seen taken from it: every one of 200 worlds must have a deck of exactly that make-up. (The ISMCTS
    sampler before issue 18 pooled the deck with the other hands: 195 of 200 worlds of seed 5 put
    cards in the deck that the pile never held.)"""
    game = _until_first_run_out(seed)
    true_deck = Counter(game.snapshot()["deck"])
    for seat in range(game.num_players):
        knowledge = SeatKnowledge(game, seat)
        assert knowledge.new_deck is not None and not any(knowledge.hidden_draws.values())
        assert _digits(game, knowledge.deck_counts) == true_deck  # public, and the truth
        rng = random.Random(seat)
        for _ in range(200):
            world = game.determinize(seat, rng)
            assert Counter(world.snapshot()["deck"]) == true_deck
            _check_world(game, knowledge, world)


@pytest.mark.parametrize("moves_after", [0, 4, 12])
def test_the_public_deck_is_the_pile_less_the_cards_seen_taken(moves_after):
    game = _until_first_run_out(5)
    rng = random.Random(1)
    for _ in range(moves_after):
        game.play(rng.choice(game.legal_moves()))
    first = len(game.rules.deck_cards) - 3 * game.num_players - 2
    for seat in range(game.num_players):
        knowledge = SeatKnowledge(game, seat)
        seen = [card for _, _, card in game.deck_takes(seat)[first:] if card is not None]
        assert _digits(game, knowledge.new_deck) == Counter(game.reshuffle_order) - Counter(seen)
        unseen_draws = sum(1 for _, taker, card in game.deck_takes(seat)[first:] if card is None)
        assert sum(knowledge.hidden_draws.values()) == unseen_draws
        assert sum(knowledge.new_deck) == game.deck_size() + unseen_draws


# ---------------------------------------------------------------------- possible worlds, all game long
@pytest.mark.parametrize("players, discard", [(3, "one"), (4, "any"), (5, "one"), (5, "any")])
def test_worlds_are_possible_all_game_long(players, discard):
    checked = after = hidden_draws = 0
    for seed in range(4):
        game = Game(Rules(players=players, discard=discard), seed=100 * players + seed)
        rng = random.Random(seed)
        while not game.is_over:
            if rng.random() < 0.12:
                for seat in range(players):
                    knowledge = SeatKnowledge(game, seat)
                    for k in range(4):
                        _check_world(game, knowledge, knowledge.deal(random.Random(k)))
                    checked += 1
                    after += knowledge.new_deck is not None
                    hidden_draws += any(knowledge.hidden_draws.values())
            game.play(rng.choice(game.legal_moves()))
    assert checked > 50 and after > 10 and hidden_draws > 5


def test_worlds_play_on_to_the_end():
    """A world reshuffles with its own seed and plays to the end (before and after the run-out)."""
    for moves in (10, 60, 95):
        game = random_game(4, seed=3, moves=moves)
        for k in range(3):
            world = game.determinize(game.current_player, random.Random(k))
            rng = random.Random(k)
            while not world.is_over:
                world.play(rng.choice(world.legal_moves()))
            assert world.runouts == 2


def test_after_unseen_draws_from_the_new_deck_the_deck_is_open():
    game = _until_first_run_out(7)
    rng = random.Random(7)
    while True:
        seat = game.current_player
        observer = (seat + 1) % game.num_players
        if game.phase == "draw" and "draw:deck" in game.legal_moves():
            game.play("draw:deck")
            if game.current_player != observer or not game.deck_size():
                break
        else:
            game.play(rng.choice(game.legal_moves()))
    knowledge = SeatKnowledge(game, observer)
    assert knowledge.hidden_draws[seat] >= 1 and knowledge.deck_counts is None
    decks = {tuple(sorted(knowledge.deal(random.Random(k)).snapshot()["deck"])) for k in range(60)}
    assert len(decks) > 1  # the deck's make-up is no longer known: the worlds differ in it
    for deck in decks:
        assert not Counter(deck) - _digits(game, knowledge.new_deck)


# ---------------------------------------------------------------------- the knowledge against the truth
@pytest.mark.parametrize("seed", range(6))
def test_the_hands_at_the_run_out_match_the_truth(seed):
    """The knowledge's picture of the moment of the first run-out — the other hands' sizes, their known
    cards, and the pool of their hidden cards — is what the true game held then."""
    players = 3 + seed % 3
    game = random_game(players, ("one", "any")[seed % 2], seed=seed, moves=110 + 3 * seed)
    assert game.runouts >= 1
    record = game.to_record()
    first = len(game.rules.deck_cards) - 3 * players - 2
    for seat in range(players):
        knowledge = SeatKnowledge(game, seat).to_dict()
        split = game.deck_takes(seat)[first - 1][0]  # moves played when the first deck ran out
        then = Game(game.rules, deck=record["deck"], reshuffle=record["reshuffle"])
        for move in record["moves"][:split]:
            then.play(move)
        assert then.runouts == 1
        start, sizes = knowledge["start"]
        hidden = [0] * len(knowledge["pool"])
        for other, known in start.items():
            hand = then.hand_counts(other)
            assert sizes[other] == sum(hand) and all(h >= k for h, k in zip(hand, known, strict=True))
            hidden = [a + h - k for a, h, k in zip(hidden, hand, known, strict=True)]
        assert hidden == knowledge["pool"]


def test_known_cards_follow_display_draws_and_spends():
    game = Game(Rules(players=3), seed=2)
    rng = random.Random(3)
    while True:
        drawn = [(s, m) for s, m in game.decision_log() if m.startswith("draw:") and m != "draw:deck"]
        if drawn:
            break
        game.play(rng.choice(game.legal_moves()))
    who, move = drawn[-1]
    card = int(move[5:])
    observer = (who + 1) % 3
    assert card in SeatKnowledge(game, observer).known[who]
    assert SeatKnowledge(game, who).known.get(who) is None  # a seat knows its own hand, not "known cards"
    while game.current_player != who or game.phase != "place":
        game.play(rng.choice(game.legal_moves()))
    count = SeatKnowledge(game, observer).known[who].count(card)
    spend = f"discard:{card}"
    if spend in game.legal_moves():
        game.play(spend)
        assert SeatKnowledge(game, observer).known[who].count(card) == count - 1


# ---------------------------------------------------------------------- hidden information stays hidden
def _same_view(g1: Game, g2: Game, seat: int, encoder: ObservationEncoder) -> None:
    k1, k2 = SeatKnowledge(g1, seat), SeatKnowledge(g2, seat)
    assert k1 == k2 and k1.to_dict() == k2.to_dict()
    assert np.array_equal(encoder.encode(g1, seat), encoder.encode(g2, seat))
    for k in range(5):
        w1, w2 = g1.determinize(seat, random.Random(k)), g2.determinize(seat, random.Random(k))
        assert w1.snapshot() == w2.snapshot()
        assert w1.legal_moves() == w2.legal_moves()


# Deals whose twins stay alike for at least 5 decisions (the deal decides how soon a swapped card shows;
# seeds 1 and 2 of the shared shuffler part after 4).
@pytest.mark.parametrize("seed", [0, 3, 4])
def test_twins_that_differ_only_in_hidden_cards_look_the_same(seed):
    g1, g2 = hidden_twins(seed, observer=0)
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"] and g1.snapshot()["deck"] != g2.snapshot()["deck"]
    encoder = ObservationEncoder(g1.rules)
    rng = random.Random(seed)
    compared = 0
    while not g1.is_over and g1.display() == g2.display() and g1.hand(0) == g2.hand(0):
        _same_view(g1, g2, 0, encoder)
        compared += 1
        if not play_common_move(g1, g2, rng):
            break
    assert compared >= 5


@pytest.mark.parametrize("moves", [20, 75, 100])
def test_a_world_looks_like_the_game_to_its_seat(moves):
    """A dealt world differs from the game only in what the seat cannot see (also after the run-out):
    the seat's knowledge, observation and worlds are the same in both."""
    game = random_game(4, seed=8, moves=moves)
    encoder = ObservationEncoder(game.rules)
    for seat in range(4):
        world = game.determinize(seat, random.Random(seat))
        truth, snap = game.snapshot(), world.snapshot()
        assert (snap["hands"], snap["deck"]) != (truth["hands"], truth["deck"])
        _same_view(game, world, seat, encoder)


def test_the_knowledge_of_a_world_is_its_seat_s():
    """A world dealt for one seat forgets the other seats' own draws: asking it what another seat
    knows after the run-out (when that seat's draws matter) is refused, not answered wrongly."""
    game = random_game(4, seed=9, moves=110)
    assert game.runouts == 1
    drew = {taker for _, taker, _ in game.deck_takes(0)[len(game.rules.deck_cards) - 14 :] if taker > 0}
    assert drew
    world = game.determinize(0, random.Random(0))
    with pytest.raises(ValueError, match="own draws are not known"):
        SeatKnowledge(world, min(drew))
    SeatKnowledge(world, 0)


@pytest.mark.parametrize("moves", [30, 110])
def test_determinize_deals_from_a_shuffle_rng_seeded_from_rng(moves):
    """``determinize(seat, rng)`` takes one ``rng.getrandbits(64)``: the seed of the world's
    ``ShuffleRng``, which deals (``SeatKnowledge.sample``, ``deal_hidden`` of ``deal_data``) and then
    seeds the world's shuffles; a ``ShuffleRng`` may be passed as ``rng`` too."""
    game = random_game(4, seed=12, moves=moves)
    assert (game.runouts > 0) == (moves > 100)
    for seat in range(4):
        knowledge = SeatKnowledge(game, seat)
        for rng in (random.Random(seat), ShuffleRng(seat)):
            probe = copy.deepcopy(rng)
            seed = probe.getrandbits(64)
            world = game.determinize(seat, rng)
            assert rng.getrandbits(64) == probe.getrandbits(64)  # one draw taken, not more
            world_rng = ShuffleRng(seed)
            hands, deck = knowledge.sample(world_rng)
            types = game.board.type_index
            assert {s: sorted(world.hand(s)) for s in hands} == hands
            twin = game.with_hidden(hands, deck, seed=world_rng.next())
            assert twin.snapshot() == world.snapshot()
            assert deal_hidden(knowledge.deal_data(), ShuffleRng(seed)) == (
                {s: [types[t] for t in cards] for s, cards in hands.items()},
                [types[t] for t in deck],
            )


# ---------------------------------------------------------------------- the observation reads it
def test_the_observation_s_card_segments_are_the_knowledge():
    game = random_game(5, "any", seed=4, moves=80)
    encoder = ObservationEncoder(game.rules)
    for seat in range(5):
        parts = encoder.describe(encoder.encode(game, seat))
        counts = card_counts(game, seat)
        for segment, values in zip(("hand", "display", "discard_pile", "unseen"), counts, strict=True):
            assert parts[segment].tolist() == values
        assert counts.unseen == SeatKnowledge(game, seat).unseen
    total = [sum(c) for c in zip(*card_counts(game, 0), strict=True)]
    assert total == deck_counts(game.rules)


def test_bad_seat():
    game = Game(Rules(players=3), seed=0)
    for seat in (-1, 3, True, "0"):
        with pytest.raises(ValueError, match="seat must be 0..2"):
            SeatKnowledge(game, seat)
