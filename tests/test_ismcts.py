"""``ismcts:N`` for Kardinal & König: it never reads hidden state, its determinizations follow what
the searching seat has seen, and it plays legal moves (and better than random)."""

from __future__ import annotations

import random

import pytest

from agents.search.ismcts import HiddenCardSampler, ISMCTSAgent
from kardinal_env.koenig import Game, Rules


def _twins(seed: int, observer: int, keep: int = 22) -> tuple[Game, Game]:
    """Two games that differ only in what ``observer`` cannot see: two other seats swap a card of
    different types, and the deck below its first ``keep`` cards is in another order."""
    rules = Rules(players=4)
    deck = Game(rules, seed=seed).initial_deck
    others = [s for s in range(4) if s != observer]
    a, b = others[0], others[1]
    for i in range(3):
        for j in range(3):
            if deck[3 * a + i] != deck[3 * b + j]:
                twin = list(deck)
                twin[3 * a + i], twin[3 * b + j] = twin[3 * b + j], twin[3 * a + i]
                rest = twin[keep:]
                random.Random(seed).shuffle(rest)
                return Game(rules, deck=deck), Game(rules, deck=twin[:keep] + rest)
    raise AssertionError("no swappable cards")


@pytest.mark.parametrize("seed", range(3))
def test_same_move_when_only_hidden_state_differs(seed):
    g1, g2 = _twins(seed, observer=0)
    assert g1.snapshot()["hands"] != g2.snapshot()["hands"]
    assert g1.snapshot()["deck"] != g2.snapshot()["deck"]
    rng = random.Random(seed)
    checked = 0
    while not g1.is_over and g1.display() == g2.display() and checked < 6:
        if g1.current_player == 0:
            move1 = ISMCTSAgent(30, seed=seed).select_move(g1)
            move2 = ISMCTSAgent(30, seed=seed).select_move(g2)
            assert move1 == move2
            checked += 1
            g1.play(move1)
            g2.play(move1)
            continue
        common = sorted(set(g1.legal_moves()) & set(g2.legal_moves()))
        if not common:
            break
        move = rng.choice(common)
        g1.play(move)
        g2.play(move)
    assert checked >= 2


def test_determinizations_conserve_cards_and_respect_known_cards():
    game = Game(Rules(players=4), seed=7)
    rng = random.Random(0)
    while game.move_count < 60:
        game.play(rng.choice(game.legal_moves()))
    seat = game.current_player
    sampler = HiddenCardSampler(game, seat)
    truth = game.snapshot()
    for k in range(20):
        world = sampler.sample(random.Random(k))
        snap = world.snapshot()
        assert snap["hands"][seat] == truth["hands"][seat]
        assert snap["display"] == truth["display"] and snap["pile"] == truth["pile"]
        assert sorted(sum((snap["hands"][s] for s in range(4)), []) + snap["deck"]) == sorted(
            sum((truth["hands"][s] for s in range(4)), []) + truth["deck"]
        )
        for s, cards in sampler.known.items():
            hand = list(snap["hands"][s])
            for t in cards:
                hand.remove(t)  # every card known to be in that hand is there
        assert world.legal_moves() == game.legal_moves()


def test_known_cards_follow_display_draws():
    game = Game(Rules(players=3), seed=2)
    rng = random.Random(3)
    # play until another seat takes a display card, then look from a third seat
    while True:
        log = game.decision_log()
        drawn = [(s, m) for s, m in log if m.startswith("draw:") and m != "draw:deck"]
        if drawn:
            break
        game.play(rng.choice(game.legal_moves()))
    who, move = drawn[-1]
    observer = (who + 1) % 3
    sampler = HiddenCardSampler(game, observer)
    assert int(move[5:]) in sampler.known[who]


def test_plays_legal_moves_and_beats_random():
    wins = 0.0
    for g in range(4):
        game = Game(Rules(players=4), seed=300 + g)
        players = [ISMCTSAgent(20, seed=g) if s == 0 else None for s in range(4)]
        rng = random.Random(g)
        while not game.is_over:
            agent = players[game.current_player]
            move = agent.select_move(game) if agent else rng.choice(game.legal_moves())
            assert move in game.legal_moves()
            game.play(move)
        winners = game.winners()
        wins += 1 / len(winners) if 0 in winners else 0
    assert wins >= 3  # measured 8/8 with ismcts:50


def test_bad_arguments():
    with pytest.raises(ValueError, match="positive integer"):
        ISMCTSAgent(0)
    from kardinal_env.kardinal import Game as KardinalGame
    from kardinal_env.kardinal import Rules as KardinalRules

    with pytest.raises(ValueError, match="Kardinal & König"):
        ISMCTSAgent(5).select_move(KardinalGame(KardinalRules(players=2)))


def test_with_hidden_refuses_cards_that_do_not_fit():
    from kardinal_env.koenig import DeckError

    game = Game(Rules(players=3), seed=1)
    snap = game.snapshot()
    with pytest.raises(DeckError, match="must hold"):
        game.with_hidden({}, snap["deck"][1:])
    with pytest.raises(DeckError, match="not the cards they replace"):
        bad = list(snap["deck"])
        bad[0] = next(t for t in (0, 1, 2, 3, 4) if t != bad[0])
        game.with_hidden({}, bad)
