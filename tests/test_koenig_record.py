"""Kardinal & König records (kardinal-koenig-record/1): shape, round trips (finished and partial), every
RecordError, and the replay command line."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from koenig_helpers import random_game, small_board

from kardinal_env.koenig import Game, RecordError, Rules
from kardinal_env.koenig.record import FORMAT

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]


def finished(players=4, discard="one", seed=3, board=None):
    return random_game(players=players, discard=discard, seed=seed, board=board)


def test_record_shape_finished():
    game = finished()
    record = game.to_record()
    assert record["format"] == FORMAT == "kardinal-koenig-record/1"
    assert set(record) == {"format", "rules", "deck", "reshuffle", "moves", "result"}
    assert record["rules"] == {"players": 4, "discard": "one", "board": "default"}
    assert record["deck"] == game.initial_deck and len(record["deck"]) == 50
    assert sorted(record["reshuffle"]) == sorted(game.reshuffle_order)
    assert record["moves"] == game.history
    assert record["result"] == {"scores": game.scores(), "winners": game.winners()}
    json.dumps(record)  # plain JSON


@pytest.mark.parametrize("players, discard", [(3, "one"), (4, "any"), (5, "one"), (5, "any")])
def test_round_trip_finished(players, discard):
    game = finished(players, discard, seed=players)
    record = json.loads(json.dumps(game.to_record()))
    back = Game.from_record(record)
    assert back.snapshot() == game.snapshot()
    assert back.to_record() == record


def test_round_trip_custom_board():
    game = finished(3, "any", seed=2, board=small_board())
    record = json.loads(json.dumps(game.to_record()))
    assert record["rules"]["board"] == small_board()
    assert Game.from_record(record).snapshot() == game.snapshot()


@pytest.mark.parametrize("stop", [0, 1, 7, 60, -1])
def test_partial_record_is_a_game_in_progress(stop):
    full = finished(4, "any", seed=9)
    stop %= len(full.history)  # -1: one move before the end
    game = Game(full.rules, deck=full.initial_deck, reshuffle=full.reshuffle_order)
    for move in full.history[:stop]:
        game.play(move)
    record = json.loads(json.dumps(game.to_record()))
    assert record["result"] is None
    assert record["reshuffle"] == full.reshuffle_order  # carried before the run-out too
    back = Game.from_record(record)
    assert back.snapshot() == game.snapshot()
    assert back.legal_moves() == game.legal_moves()
    assert back.to_record() == record
    for move in full.history[stop:]:  # the carried order is used when the run-out comes
        back.play(move)
    assert back.scores() == full.scores() and back.reshuffle_order == full.reshuffle_order
    # Without 'result' at all it loads as well.
    del record["result"]
    assert Game.from_record(record).snapshot() == game.snapshot()


def test_loaded_partial_record_plays_on_to_the_end():
    full = finished(3, "one", seed=1)
    game = Game.from_record({**full.to_record(), "moves": full.history[:10], "result": None, "reshuffle": None})
    while not game.is_over:
        game.play(game.legal_moves()[-1])
    assert game.is_over


def bad(record, message):
    with pytest.raises(RecordError, match=message):
        Game.from_record(record)


def test_record_errors():
    good = finished(4, "one", seed=5).to_record()

    def edit(**changes):
        r = copy.deepcopy(good)
        r.update(changes)
        return r

    bad([], "expected a JSON object")
    bad(edit(format="kardinal-record/1"), "field 'format' must be 'kardinal-koenig-record/1'")
    bad(edit(extra=1), r"unknown field\(s\) \['extra'\]")
    r = edit()
    del r["deck"]
    bad(r, "missing field 'deck'")
    bad(edit(rules={"players": 9, "discard": "one", "board": "default"}), "field 'rules'.*players must be 3, 4 or 5")
    bad(edit(rules={"players": 4, "board": "nowhere"}), "field 'rules'.*no packaged board")
    bad(edit(deck=good["deck"][:-1]), "field 'deck'.*holds")
    bad(edit(deck=[7] * 50), "field 'deck'.*expected a list of card types")
    bad(edit(moves="K@FR1/4"), "field 'moves' must be a list")
    bad(edit(moves=good["moves"][:3] + [5]), "move 3 must be a string")
    bad(edit(moves=good["moves"][:3] + ["K@XX/4"]), r"move 3 \('K@XX/4'\) is illegal: unknown id")
    bad(edit(result={"scores": [0, 0, 0, 0], "winners": [0, 1, 2, 3]}), "result.scores")
    bad(edit(result={"scores": good["result"]["scores"], "winners": [9]}), "result.winners")
    bad(edit(result={"scores": good["result"]["scores"]}), "exactly 'scores' and 'winners'")
    bad(edit(result=None), "the moves end the game but field 'result' is null")
    bad(
        edit(moves=good["moves"][:20], reshuffle=None),
        "field 'result' is given but the game is not over after 20 moves",
    )
    bad(edit(reshuffle=None), "field 'reshuffle' is null but the deck runs out")
    bad(edit(reshuffle=good["reshuffle"][:-1]), "field 'reshuffle' does not fit the game")
    pile_after_5 = Game.from_record(edit(moves=good["moves"][:5], result=None, reshuffle=None)).discard_pile()
    assert pile_after_5
    lacking = [t for t in good["reshuffle"] if t != pile_after_5[0]]
    bad(
        edit(reshuffle=lacking, moves=good["moves"][:5], result=None),
        r"field 'reshuffle' cannot be the discard pile at the first run-out: it lacks \{type",
    )
    bad(edit(reshuffle=good["deck"] + [0], moves=good["moves"][:5], result=None), "field 'reshuffle'.*more than")


def test_partial_record_before_the_run_out_with_its_reshuffle():
    """A record whose moves stop before the first run-out may carry the reshuffle order: it loads as a
    game in progress that uses the order when the run-out comes (issue 18; it used to be refused)."""
    full = finished(4, "one", seed=5)
    record = full.to_record()
    probe = Game.from_record({**record, "moves": [], "result": None})
    first = 0  # the move that runs the deck out first
    while not probe.runouts:
        probe.play(full.history[first])
        first += 1
    first -= 1
    partial = {**record, "moves": full.history[:first], "result": None}
    game = Game.from_record(partial)
    assert game.runouts == 0 and game.reshuffle_order is None and not game.is_over
    assert game.to_record() == partial  # the order is kept for the run-out
    for move in full.history[first:]:
        game.play(move)
    assert game.reshuffle_order == full.reshuffle_order and game.snapshot() == full.snapshot()
    # Without the order the same moves load too, and the game shuffles for itself at the run-out.
    assert Game.from_record({**partial, "reshuffle": None}).to_record()["reshuffle"] is None


def game_after(record: dict, moves: int) -> Game:
    return Game.from_record({**record, "moves": record["moves"][:moves], "result": None, "reshuffle": None})


def test_a_wrong_reshuffle_of_a_game_in_progress_fails_at_the_run_out():
    full = finished(4, "one", seed=5)
    record = full.to_record()
    wrong = sorted(record["reshuffle"])  # the right cards in another order: fine at the run-out
    game = Game.from_record({**record, "moves": full.history[:5], "result": None, "reshuffle": wrong})
    for move in full.history[5:]:
        if game.runouts:
            break
        game.play(move)
    assert game.reshuffle_order == wrong
    # One card swapped for another type: still cards of the deck holding the pile after 5 moves, but
    # not the pile at the run-out.
    pile, plan, deck = (Counter(x) for x in (game_after(record, 5).discard_pile(), record["reshuffle"], record["deck"]))
    t = next(t for t in plan if plan[t] > pile[t])
    u = next(u for u in deck if u != t and plan[u] < deck[u])
    swapped = list(record["reshuffle"])
    swapped[swapped.index(t)] = u
    short = Game.from_record({**record, "moves": full.history[:5], "result": None, "reshuffle": swapped})
    from kardinal_env.koenig import DeckError

    with pytest.raises(DeckError, match="reshuffle: holds"):
        for move in full.history[5:]:
            short.play(move)


def test_deck_error_from_the_constructor():
    from kardinal_env.koenig import DeckError

    rules = Rules(players=3)
    with pytest.raises(DeckError, match="deck: holds"):
        Game(rules, deck=[0] * 45)
    with pytest.raises(DeckError, match="reshuffle: expected a list"):
        Game(rules, seed=0, reshuffle=["a"])


def test_load_record_file_errors(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{oops")
    with pytest.raises(RecordError, match="not valid JSON"):
        Game.load(str(path))


@pytest.fixture
def replay(cli):
    """``kardinal-replay`` in-process (both games' records; it replaced ``python -m kardinal_env.koenig.cli
    replay``): ``replay(*args)`` gives its exit status, stdout and stderr."""
    from kardinal_env.core.replay import main

    return lambda *args: cli(main, args)


def test_command_line_replay(tmp_path, replay):
    game = finished(3, "one", seed=4)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()))
    out = replay(str(path))
    assert out.returncode == 0, out.stderr
    assert f"record OK: {game.move_count} moves replayed" in out.stdout
    assert f"game over; winners {game.winners()}" in out.stdout
    for s, score in enumerate(game.scores()):
        assert f"seat {s}: score {score:>3}" in out.stdout
    broken = game.to_record()
    broken["moves"][2] = "K@NOWHERE/4"
    path.write_text(json.dumps(broken))
    out = replay(str(path))
    assert out.returncode == 1 and "move 2 ('K@NOWHERE/4') is illegal" in out.stderr
    assert out.stderr.startswith(f"error: {path}")


def test_command_line_replay_of_a_game_in_progress(tmp_path, replay):
    game = random_game(players=5, discard="any", seed=3, moves=25)
    record = game.to_record()
    assert len(record["moves"]) == 25 and record["result"] is None
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(record))
    out = replay(str(path))
    assert out.returncode == 0, out.stderr
    assert "record OK: 25 moves replayed" in out.stdout and f"seat {game.current_player} to decide" in out.stdout
