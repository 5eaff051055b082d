"""Kardinal & König property tests over random games (hypothesis).

Every decision's legal-move list is checked against a naive second reading of the rules computed
from the public queries only; and at every step: cards and pieces are conserved, every listed move
is accepted, moves not listed are rejected without changing the state, records round-trip (from a
partial record too) and clones are independent.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from koenig_helpers import small_board

from kardinal_env.koenig import Game, IllegalMoveError, Rules
from kardinal_env.koenig.scoring import alliance_points, chain_points, cloister_points

# run again on the Python engines by `pytest --backend python` (tests/conftest.py)
pytestmark = pytest.mark.backends

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=25)
RULE_NAMES = {
    "malformed move", "unknown id", "game over", "phase", "payment", "one country", "two pieces", "three cards",
    "empty country", "advisor limit", "supply", "site", "discard", "end", "draw",
}  # fmt: skip

games = st.tuples(
    st.sampled_from([3, 4, 5]),
    st.sampled_from(["one", "any"]),
    st.integers(0, 2**32 - 1),
    st.booleans(),
)


def make(spec) -> tuple[Game, random.Random]:
    players, discard, seed, small = spec
    rules = Rules(players=players, discard=discard, board=small_board() if small else None)
    return Game(rules, seed=seed), random.Random(seed)


def reference_moves(game: Game) -> set[str]:
    """The legal moves, read off the rules with nothing but the public queries."""
    b = game.rules.board
    if game.is_over:
        return set()
    seat = game.current_player
    hand = Counter(game.hand(seat))
    named = {c: card["type"] for card in b["cards"] for c in card["countries"]}
    owners = dict(zip([s for c in b["countries"] for s in c["sites"]], game.owners()))
    cids = [c["id"] for c in b["countries"]]
    cl, ad = game.cloister_counts(), game.advisor_counts()
    k_left, a_left = game.pieces_left(seat)

    def placements(country, budget):
        i = cids.index(country)
        pays = [str(named[country])] if hand[named[country]] and budget >= 1 else []
        pays += [f"{t}{t}" for t, k in hand.items() if k >= 2 and budget >= 2]
        out = set()
        for pay in pays:
            if k_left:
                sites = next(c["sites"] for c in b["countries"] if c["id"] == country)
                out |= {f"K@{s}/{pay}" for s in sites if owners[s] is None}
            if a_left and sum(cl[i]) and sum(ad[i]) + 1 <= max(cl[i]):
                out.add(f"A@{country}/{pay}")
        return out

    phase = game.phase
    if phase == "place":
        out = set().union(*(placements(c, 3) for c in cids))
        return out | {f"discard:{t}" for t in hand}
    if phase == "second":
        out = placements(game.turn_country, 3 - game.cards_this_turn)
        return out | {"end"} if out else out
    if phase == "discard":
        return {"end"} | {f"discard:{t}" for t in hand}
    out = {f"draw:{t}" for t in game.display()}
    return out | {"draw:deck"} if game.deck_size() else out


def check_conservation(game: Game) -> None:
    snap = game.snapshot()
    cards = Counter(snap["deck"]) + Counter(snap["display"]) + Counter(snap["pile"])
    for hand in snap["hands"]:
        cards += Counter(hand)
    assert cards == Counter(game.rules.deck_cards)
    assert game.deck_size() + len(game.display()) + len(game.discard_pile()) + sum(
        game.hand_size(s) for s in range(game.num_players)
    ) == len(game.rules.deck_cards)
    owners = game.owners()
    for s in range(game.num_players):
        k_left, a_left = game.pieces_left(s)
        assert owners.count(s) + k_left == 20 and k_left >= 0
        assert sum(row[s] for row in game.advisor_counts()) + a_left == 8 and a_left >= 0
        assert 0 <= game.hand_size(s) <= 3
    for row_cl, row_ad in zip(game.cloister_counts(), game.advisor_counts()):
        assert sum(row_ad) <= max(row_cl)  # the advisor limit holds at all times
    assert (game.current_player is None) == game.is_over == (game.phase == "over")
    assert len(game.display()) <= 2


def check_scoring_now(game: Game) -> None:
    """The engine's cached scoring equals the pure scoring functions on the public state."""
    b = game.board
    owners = [-1 if o is None else o for o in game.owners()]
    cl = [0] * game.num_players
    for row in game.cloister_counts():
        cl = [a + p for a, p in zip(cl, cloister_points(row))]
    expected = {
        "cloisters": cl,
        "alliances": alliance_points(game.advisor_counts(), b.alliances),
        "chains": chain_points(owners, b.adjacency, game.num_players),
    }
    assert game.scoring_now() == expected


@settings(**SETTINGS)
@given(games)
def test_legal_moves_match_the_reference_and_state_is_conserved(spec):
    game, rng = make(spec)
    while not game.is_over:
        moves = game.legal_moves()
        assert len(moves) == len(set(moves)), "a move listed twice"
        assert set(moves) == reference_moves(game), (game.phase, game.history[-3:])
        assert [game.board.moves[i] for i in game.legal_actions()] == moves
        game.play(rng.choice(moves))
        check_conservation(game)
        check_scoring_now(game)
    assert game.legal_moves() == []
    assert game.runouts == 2
    assert sum(game.scores()) >= 0 and game.winners()


@settings(**SETTINGS)
@given(games, st.integers(0, 2**16))
def test_every_listed_move_accepted_and_others_rejected_unchanged(spec, salt):
    game, rng = make(spec)
    table = game.board.moves
    junk = ["", "K@", "K@FR1/", "A@FR/12", "draw:", "discard:", "end ", "draw:99", "K@FR1/4/4", "K@@/4"]
    step = 0
    while not game.is_over:
        moves = game.legal_moves()
        if step % 3 == 0:  # every listed move is accepted
            for move in moves:
                clone = game.clone()
                clone.play(move)
                assert clone.move_count == game.move_count + 1
        before = game.snapshot()
        unlisted = [m for m in table if m not in moves]
        for move in random.Random(salt + step).sample(unlisted, min(6, len(unlisted))) + [rng.choice(junk)]:
            try:
                game.play(move)
            except IllegalMoveError as exc:
                assert exc.rule in RULE_NAMES and str(exc).startswith(exc.rule)
            else:
                raise AssertionError(f"{move!r} is not listed but was accepted")
            assert game.snapshot() == before
        game.play(rng.choice(moves))
        step += 1


@settings(**SETTINGS)
@given(games, st.floats(0, 1))
def test_records_round_trip_also_partial(spec, where):
    game, rng = make(spec)
    full = game.clone()
    while not full.is_over:
        full.play(rng.choice(full.legal_moves()))
    stop = int(where * full.move_count)
    partial = Game(game.rules, deck=full.initial_deck, reshuffle=full.reshuffle_order)
    for move in full.history[:stop]:
        partial.play(move)
    for g in (partial, full):
        record = json.loads(json.dumps(g.to_record()))
        back = Game.from_record(record)
        assert back.snapshot() == g.snapshot()
        assert back.to_record() == record
    if partial.runouts:  # past the reshuffle everything is fixed by the record: it plays on identically
        back = Game.from_record(partial.to_record())
        for move in full.history[stop:]:
            back.play(move)
        assert back.snapshot() == full.snapshot()


@settings(**SETTINGS)
@given(games, st.floats(0, 1))
def test_clones_are_independent(spec, where):
    game, rng = make(spec)
    for _ in range(int(where * 120)):
        if game.is_over:
            break
        game.play(rng.choice(game.legal_moves()))
    before = game.snapshot()
    clone = game.clone()
    assert clone.snapshot() == before
    crng = random.Random(1)
    moves = []
    while not clone.is_over:
        move = crng.choice(clone.legal_moves())
        moves.append(move)
        clone.play(move)
    assert game.snapshot() == before  # the original did not move
    for move in moves:  # and the same moves give the same game, shuffles included
        game.play(move)
    assert game.snapshot() == clone.snapshot()
