"""HTML replays of Kardinal & König records (kardinal_env.koenig.replay_html; ``kardinal-replay FILE -o
game.html`` and ``agents.evaluation.tournament --save-games`` write them), without a browser
(tests/test_browser.py opens the pages in Chromium): K&K's own; what every game's page does is in
tests/test_replay_html.py."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter

import pytest
from koenig_helpers import random_game, small_board

from kardinal_env.core.replay_page import embed_json
from kardinal_env.koenig import Game, RecordError, Rules
from kardinal_env.koenig.notation import parse_move
from kardinal_env.koenig.replay_html import replay_data, replay_html

# run again on the Python engines by `pytest --backend python` (tests/conftest.py)
pytestmark = pytest.mark.backends


def _record(players: int = 4, seed: int = 0, **options) -> dict:
    return random_game(players=players, seed=seed, **options).to_record()


def _prefix(record: dict, k: int) -> Game:
    """The record's game after its first ``k`` moves, loaded from a record of those moves alone."""
    full = Game.from_record(record)
    probe = Game(full.rules, deck=record["deck"], reshuffle=record["reshuffle"])
    for move in record["moves"][:k]:
        probe.play(move)
    reshuffle = record["reshuffle"] if probe.runouts else None
    result = record["result"] if probe.is_over else None
    return Game.from_record({**record, "moves": record["moves"][:k], "reshuffle": reshuffle, "result": result})


def _embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert match, "no embedded replay data"
    return json.loads(match.group(1))


# ---------------------------------------------------------------- positions


@pytest.mark.parametrize(
    "players,seed,options",
    [(3, 1, {}), (4, 2, {}), (5, 3, {}), (4, 4, {"discard": "any"}), (3, 5, {"board": small_board()})],
    ids=["3p", "4p", "5p", "discard-any", "small-board"],
)
def test_every_position_matches_the_engine(players, seed, options):
    record = _record(players, seed, **options)
    data = replay_data(record)
    moves = record["moves"]
    assert len(data["positions"]) == len(moves) + 1
    assert data["moves"] == moves and data["result"] == record["result"] and data["players"] == players
    log = Game.from_record(record).decision_log()
    for k, pos in enumerate(data["positions"]):
        game = _prefix(record, k)
        n = game.num_players
        assert pos["owners"] == game.owners(), k
        assert pos["advisors"] == game.advisor_counts(), k
        assert pos["hands"] == [game.hand(s) for s in range(n)], k
        assert pos["pieces"] == [list(game.pieces_left(s)) for s in range(n)], k
        assert pos["display"] == game.display() and pos["deck"] == game.deck_size(), k
        assert pos["discards"] == len(game.discard_pile()), k
        assert pos["scores"] == game.scores() and pos["projected"] == game.projected_scores(), k
        assert pos["interim"] == game.interim_scores() and pos["runouts"] == game.runouts, k
        assert pos["phase"] == game.phase and pos["seat"] == game.current_player, k
        assert pos["country"] == game.turn_country, k
        assert pos["last"] == (moves[k - 1] if k else None), k
        assert pos["mover"] == (log[k - 1][0] if k else None), k
    last = data["positions"][-1]
    assert last["phase"] == "over" and last["scores"] == record["result"]["scores"] == last["projected"]
    assert data["breakdown"] == Game.from_record(record).final_breakdown()


def test_last_move_touched_and_cards_gained():
    record = _record(4, seed=6)
    data = replay_data(record)
    game = Game(Rules.from_dict(record["rules"]), deck=record["deck"], reshuffle=record["reshuffle"])
    kinds = Counter()
    for k, move in enumerate(record["moves"], start=1):
        seat = game.current_player
        before = Counter(game.hand(seat))
        game.play(move)
        pos = data["positions"][k]
        assert pos["gained"] == sorted((Counter(game.hand(seat)) - before).elements()), k
        parsed = parse_move(move)
        kinds[parsed.kind] += 1
        if parsed.kind == "K":
            assert pos["touched"] == {"site": parsed.target} and pos["owners"][_site(record, parsed.target)] == seat
        elif parsed.kind == "A":
            assert pos["touched"] == {"country": parsed.target}
        else:
            assert pos["touched"] is None
        if parsed.kind == "draw":
            assert len(pos["gained"]) == 1
            if parsed.target is not None:
                assert pos["gained"] == [parsed.target]  # a display draw: that card
        else:
            assert pos["gained"] == []
    assert game.scores() == record["result"]["scores"]
    assert data["positions"][0]["touched"] is None and data["positions"][0]["mover"] is None
    assert kinds["K"] and kinds["A"] and kinds["draw"]


def _site(record: dict, site: str) -> int:
    return Rules.from_dict(record["rules"]).compiled.site_index[site]


def test_map_data_is_the_board():
    record = _record(3, seed=7)
    board = Rules.from_dict(record["rules"]).compiled
    data = replay_data(record)["board"]
    assert [s["id"] for s in data["sites"]] == list(board.site_ids)
    assert [c["id"] for c in data["countries"]] == list(board.country_ids)
    assert [tuple(r) for r in data["roads"]] == list(board.roads)
    assert [tuple(a) for a in data["alliances"]] == list(board.alliances)
    layout = board.data["layout"]
    assert all(s["xy"] == layout[s["id"]] for s in data["sites"])
    assert all(c["xy"] == layout[c["id"]] for c in data["countries"])
    assert [c["type"] for c in data["countries"]] == [board.types[board.country_type[c]] for c in range(9)]
    # a board without a layout gets positions for every site and seal all the same
    small = replay_data(_record(3, seed=8, board=small_board()))["board"]
    points = [tuple(s["xy"]) for s in small["sites"]] + [tuple(c["xy"]) for c in small["countries"]]
    assert len(set(points)) == len(points) == 7 + 3


def test_unfinished_records_replay():
    game = random_game(4, seed=9)
    record = game.to_record()
    runout = next(k for k in range(len(record["moves"])) if _prefix(record, k + 1).runouts)
    for k in (0, 5, runout, runout + 3):  # before the deck runs out, and after it (with the reshuffle)
        partial = _prefix(record, k).to_record()
        assert partial["result"] is None and (partial["reshuffle"] is None) == (k <= runout)
        data = replay_data(partial)
        assert data["result"] is None and data["breakdown"] is None and len(data["positions"]) == k + 1
        assert data["positions"][-1]["phase"] != "over"
        assert _embedded(replay_html(partial))["result"] is None


@pytest.mark.parametrize(
    "change,fragment",
    [
        (lambda r: r["moves"].__setitem__(0, "K@XX9/1"), "record: move 0 ('K@XX9/1') is illegal"),
        (lambda r: r.__setitem__("format", "kardinal-record/1"), "field 'format' must be 'kardinal-koenig-record/1'"),
        (lambda r: r["result"].update(scores=[0, 0, 0, 0]), "result.scores [0, 0, 0, 0] != replayed scores"),
        (lambda r: r.pop("deck"), "missing field 'deck'"),
        (lambda r: r["deck"].pop(), "field 'deck'"),
        (lambda r: r.__setitem__("reshuffle", None), "field 'reshuffle' is null but the deck runs out"),
    ],
    ids=["illegal", "format", "result", "no-deck", "short-deck", "no-reshuffle"],
)
def test_bad_records_raise_record_error(change, fragment):
    record = copy.deepcopy(_record(4, seed=10))
    change(record)
    with pytest.raises(RecordError, match=re.escape(fragment)):
        replay_html(record)


# ---------------------------------------------------------------- the page


def test_a_board_name_cannot_break_out_of_the_page():
    board = small_board()
    board["name"] = "</script><b>x</b>"
    page = replay_html(_record(3, seed=12, board=board))
    assert "<b>x</b>" not in page and "</script><b>" not in page
    assert _embedded(page)["board"]["name"] == board["name"]
    assert embed_json(board["name"]) in page


def test_cli_writes_a_koenig_replay(tmp_path, cli):
    from kardinal_env.core.replay import main

    record = _record(4, seed=14)
    path = tmp_path / "kk.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "kk.html"
    result = cli(main, [str(path), "-o", str(out)])
    assert result.returncode == 0, result.stderr
    assert f"record OK: {len(record['moves'])} moves replayed" in result.stdout
    assert f"wrote HTML replay: {out}" in result.stdout
    assert out.read_text(encoding="utf-8") == replay_html(record, source=str(path))


def test_evaluation_saves_koenig_games_with_html_replays(tmp_path):
    from agents.evaluation.tournament import Table, evaluate, write_outputs

    results = evaluate(["greedy", "random"], Table.of("kardinal_koenig", players=3), games=1, seed=2, save_games=1)
    write_outputs(results, tmp_path)
    saved = json.loads((tmp_path / "results.json").read_text())["games"][0]
    assert saved["replay_file"] == "games/game_0000.html"
    record = json.loads((tmp_path / saved["record_file"]).read_text())
    page = (tmp_path / saved["replay_file"]).read_text(encoding="utf-8")
    assert page == replay_html(record, source=str(tmp_path / saved["record_file"]))
    assert _embedded(page)["result"]["scores"] == saved["scores"]
