"""Kardinal & König boards: the default board's sourced facts, board loading (name, path, dict), every
malformed-board error, and the Rules options that depend on the board."""

from __future__ import annotations

import copy
import json
from collections import deque

import pytest
from koenig_helpers import DEFAULT_BOARD, small_board

from kardinal_env.koenig import BoardError, Game, Rules, RulesError, board_names, load_board
from kardinal_env.koenig.board import BOARDS_DIR, compile_board, validate_board

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane


# ------------------------------------------------------------------------------- the default board
def test_default_board_is_packaged_and_default():
    assert "default" in board_names()
    assert (BOARDS_DIR / "default.json").is_file()
    assert Rules(players=4).board == DEFAULT_BOARD == load_board(None) == load_board("default")


def test_default_board_sourced_facts():
    b = DEFAULT_BOARD
    names = {c["id"]: c["name"] for c in b["countries"]}
    assert names == {
        "EN": "England", "AR": "Aragon", "FR": "France", "LO": "Lorraine", "BU": "Burgundy",
        "IT": "Italy", "SW": "Swabia", "BA": "Bavaria", "FN": "Franconia",
    }  # fmt: skip
    cards = {c["type"]: (sorted(c["countries"]), c["count"]) for c in b["cards"]}
    assert cards == {
        0: (["AR", "FN"], 13),
        1: (["BA", "BU"], 12),
        2: (["IT", "LO"], 11),
        3: (["EN", "SW"], 10),
        4: (["FR"], 9),
    }
    sites = {c["id"]: c["sites"] for c in b["countries"]}
    assert len(sites["FR"]) == 8 and len(sites["SW"]) == 4
    assert 50 <= sum(len(s) for s in sites.values()) <= 56
    alliances = {frozenset(a) for a in b["alliances"]}
    assert len(b["alliances"]) == len(alliances) == 15
    for a, c in [("AR", "IT"), ("EN", "LO"), ("SW", "FN"), ("SW", "BU"), ("SW", "BA"), ("FN", "BA"), ("BA", "IT")]:
        assert frozenset((a, c)) in alliances
    for a, c in [("SW", "IT"), ("SW", "LO"), ("BU", "LO")]:
        assert frozenset((a, c)) not in alliances


def test_default_board_no_road_across_the_sea():
    country_of = {s: c["id"] for c in DEFAULT_BOARD["countries"] for s in c["sites"]}
    for a, b in DEFAULT_BOARD["roads"]:
        pair = {country_of[a], country_of[b]}
        assert "EN" not in pair or pair == {"EN"}, (a, b)  # England is an island
        assert pair != {"AR", "IT"}


def test_default_board_roads_connect_each_country_and_the_continent():
    country_of = {s: c["id"] for c in DEFAULT_BOARD["countries"] for s in c["sites"]}
    adj = {s: set() for s in country_of}
    for a, b in DEFAULT_BOARD["roads"]:
        adj[a].add(b)
        adj[b].add(a)

    def reach(start, allowed):
        seen, todo = {start}, deque([start])
        while todo:
            for w in adj[todo.popleft()]:
                if w not in seen and w in allowed:
                    seen.add(w)
                    todo.append(w)
        return seen

    for c in DEFAULT_BOARD["countries"]:
        assert reach(c["sites"][0], set(c["sites"])) == set(c["sites"]), c["id"]
    continent = {s for s, c in country_of.items() if c != "EN"}
    assert reach("FR1", continent) == continent


def test_default_board_says_what_is_reconstructed():
    source = DEFAULT_BOARD["source"]
    assert "SOURCED" in source and "RECONSTRUCTED" in source
    assert "layout" in DEFAULT_BOARD and len(DEFAULT_BOARD["layout"]) == 54 + 9


def test_compiled_default_board_move_table():
    b = Rules(players=3).compiled
    assert (b.num_countries, b.num_sites, b.num_types) == (9, 54, 5)
    assert b.pay_stride == 6 and b.num_moves == 54 * 6 + 9 * 6 + 1 + 5 + 5 + 1
    assert b.moves[0] == "K@EN1/3" and b.moves[1] == "K@EN1/00" and b.moves[5] == "K@EN1/44"
    assert b.moves[b.advisor_base] == "A@EN/3" and b.moves[b.end_id] == "end"
    assert b.moves[b.discard_base] == "discard:0" and b.moves[b.draw_base + 4] == "draw:4"
    assert b.moves[b.deck_id] == "draw:deck" == b.moves[-1]
    assert all(b.move_index[m] == i for i, m in enumerate(b.moves))


# ----------------------------------------------------------------------------------------- loading
def test_load_from_path_and_dict(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(small_board()))
    rules = Rules(players=3, board=str(path))
    assert rules.board == small_board() and rules.compiled.name == "small"
    assert Rules(players=3, board=path) == rules == Rules(players=3, board=small_board())
    assert hash(rules) == hash(Rules(players=3, board=small_board()))
    assert rules != Rules(players=3)
    assert rules.to_dict() == {"players": 3, "discard": "one", "board": small_board()}
    assert Rules(players=3).to_dict() == {"players": 3, "discard": "one", "board": "default"}
    game = Game(rules, seed=0)
    assert game.deck_size() == 16 - 11


def test_the_caller_s_dict_is_copied():
    data = small_board()
    rules = Rules(players=3, board=data)
    data["countries"][0]["sites"].append("X9")
    assert "X9" not in rules.board["countries"][0]["sites"]


def test_a_modified_default_is_written_as_a_dict():
    data = copy.deepcopy(DEFAULT_BOARD)
    data["roads"] = data["roads"][:-1]
    assert Rules(players=4, board=data).to_dict()["board"] == data


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no-such-board", "no packaged board"),
        ("/no/such/file.json", "no/such/file.json"),
        (42, "board must be None"),
    ],
)
def test_bad_board_spec(spec, message):
    with pytest.raises(BoardError, match=message):
        load_board(spec)
    with pytest.raises(RulesError, match=message):
        Rules(players=3, board=spec)


def test_board_file_not_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(BoardError, match="not valid JSON"):
        load_board(str(path))


def test_board_file_not_utf8(tmp_path):
    """A board file in another encoding is a BoardError naming the file, not a raw UnicodeDecodeError."""
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(small_board() | {"source": "Königreich"}, ensure_ascii=False).encode("latin-1"))
    with pytest.raises(BoardError, match=r"board file '.*latin1\.json': not UTF-8 text"):
        load_board(str(path))
    with pytest.raises(RulesError, match=r"^board file '.*latin1\.json': not UTF-8 text"):
        Rules(players=3, board=str(path))


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"format": "kardinal-koenig-board/1"}, "board: missing key 'name'"),
        ("no-such-board", "board 'no-such-board': no packaged board"),
        ("/no/such/file.json", "board file '/no/such/file.json'"),
    ],
)
def test_board_errors_name_the_board_once(spec, message):
    with pytest.raises(RulesError) as info:
        Rules(players=3, board=spec)
    assert str(info.value).startswith(message) and "board: board" not in str(info.value)
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"players": 3, "board": spec})
    assert str(info.value).startswith(f"rules: {message}")


def test_board_file_errors_name_the_file_once(tmp_path):
    data = small_board()
    data["countries"][1]["sites"] = []
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RulesError) as info:
        Rules(players=3, board=str(path))
    assert str(info.value) == f"board: {path}: countries[1]: country 'Y' has no sites (needs a non-empty list)"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_layout_coordinates_must_be_finite(bad, tmp_path):
    data = small_board()
    data["layout"] = {k: [0, 0] for k in ["X", "Y", "Z", "X1", "X2", "X3", "X4", "Y1", "Y2", "Z1"]}
    data["layout"]["Y2"] = [1.5, bad]
    with pytest.raises(BoardError, match=r"board: layout\['Y2'\]: coordinates must be finite numbers"):
        validate_board(data)
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(data))  # JSON's NaN / Infinity literals, which json.load accepts
    with pytest.raises(RulesError, match=r"layout\['Y2'\]: coordinates must be finite"):
        Rules(players=3, board=str(path))


def _mutate(fn):
    data = small_board()
    fn(data)
    return data


MALFORMED = [
    (lambda d: d.update(format="kardinal-koenig-board/2"), "'format' must be"),
    (lambda d: d.update(extra=1), r"unknown key\(s\) \['extra'\]"),
    (lambda d: d.pop("roads"), "missing key 'roads'"),
    (lambda d: d.update(name=""), "'name' must be"),
    (lambda d: d.update(countries=[]), "'countries' must be a non-empty list"),
    (lambda d: d["countries"][1].update(sites=[]), "country 'Y' has no sites"),
    (lambda d: d["countries"][1].update(id="X"), "id 'X' is used twice"),
    (lambda d: d["countries"][1].update(sites=["Y1", "X1"]), "id 'X1' is used twice"),
    (lambda d: d["countries"][1].update(sites=["Y1", "Y"]), "id 'Y' is used twice"),
    (lambda d: d["countries"][0].update(id="X/1"), "an id must be"),
    (lambda d: d["countries"][0].update(sites=["X 1"]), "an id must be"),
    (lambda d: d["countries"][0].update(sites=["X@1"]), "an id must be"),
    (lambda d: d["countries"][0].update(sites=["X:1"]), "an id must be"),
    (lambda d: d["countries"][0].update(sites=[""]), "an id must be"),
    (lambda d: d["countries"][0].update(colour="red"), r"countries\[0\]: unknown key"),
    (lambda d: d["countries"][0].pop("name"), "missing key 'name'"),
    (lambda d: d["cards"][1].update(type=0), "card type 0 is listed twice"),
    (lambda d: d["cards"][1].update(type=10), "'type' must be a digit"),
    (lambda d: d["cards"][1].update(type=True), "'type' must be a digit"),
    (lambda d: d["cards"][1].update(count=0), "'count' must be a positive integer"),
    (lambda d: d["cards"][1].update(countries=["Q"]), "unknown country 'Q'"),
    (lambda d: d["cards"][1].update(countries=["X"]), "country 'X' is already named by card type 0"),
    (lambda d: d["cards"][1].update(countries=[]), r"no card type names country\(ies\) \['Y'\]"),
    (lambda d: d["roads"].append(["X1", "Q9"]), "unknown site 'Q9'"),
    (lambda d: d["roads"].append(["X1", "X1"]), "joins site 'X1' with itself"),
    (lambda d: d["roads"].append(["X2", "X1"]), "road X2-X1 is listed twice"),
    (lambda d: d["roads"].append(["X1"]), "expected a pair"),
    (lambda d: d["roads"].append(["X", "Y"]), "unknown site 'X'"),
    (lambda d: d["alliances"].append(["X", "Q"]), "unknown country 'Q'"),
    (lambda d: d["alliances"].append(["Z", "Z"]), "joins country 'Z' with itself"),
    (lambda d: d["alliances"].append(["Y", "X"]), "alliance Y-X is listed twice"),
    (lambda d: d.update(layout={"X1": [0, 0]}), "layout: no position for"),
    (lambda d: d.update(layout={"Q": [0, 0]}), "layout: unknown id 'Q'"),
    (lambda d: d.update(layout=[1, 2]), "'layout' must be an object"),
    (lambda d: d.update(source=5), "'source' must be a string"),
]


@pytest.mark.parametrize("mutate, message", MALFORMED)
def test_malformed_board_named(mutate, message):
    data = _mutate(mutate)
    with pytest.raises(BoardError, match=message):
        validate_board(data)
    with pytest.raises(RulesError, match=message):
        Rules(players=3, board=data)


def test_layout_values_checked():
    data = small_board()
    data["layout"] = {k: [0, 0] for k in ["X", "Y", "Z", "X1", "X2", "X3", "X4", "Y1", "Y2", "Z1"]}
    validate_board(data)
    data["layout"]["X1"] = [0, "a"]
    with pytest.raises(BoardError, match=r"layout\['X1'\]"):
        validate_board(data)


def test_type_naming_no_country_is_allowed():
    compiled = compile_board(validate_board(small_board()))
    assert compiled.type_countries[3] == ()


# ------------------------------------------------------------------------------------------- rules
@pytest.mark.parametrize(
    "options, message",
    [
        (dict(players=2), "players must be 3, 4 or 5"),
        (dict(players=6), "players must be 3, 4 or 5"),
        (dict(players=True), "players must be"),
        (dict(players=4, discard="all"), "discard must be one of"),
    ],
)
def test_bad_rules(options, message):
    with pytest.raises(RulesError, match=message):
        Rules(**options)


def test_deck_too_small_for_the_player_count():
    data = small_board()
    for card in data["cards"]:
        card["count"] = 4
    with pytest.raises(RulesError, match="a deck of 8 cards for 3 players does not outlast the deal of 11"):
        Rules(players=3, board=data)  # 3 players remove 2 of each of the 4 types
    for card in data["cards"]:
        card["count"] = 5
    assert len(Rules(players=3, board=data).deck_cards) == 12


def test_removal_larger_than_a_type_is_refused():
    data = small_board()
    data["cards"][0]["count"] = 1
    with pytest.raises(RulesError, match="card type 0 has 1 card"):
        Rules(players=3, board=data)


def test_rules_from_dict_errors():
    with pytest.raises(RulesError, match="unknown option"):
        Rules.from_dict({"players": 3, "preset": "x"})
    with pytest.raises(RulesError, match="missing option 'players'"):
        Rules.from_dict({"discard": "one"})
    with pytest.raises(RulesError, match="expected an object"):
        Rules.from_dict([3])
    assert Rules.from_dict({"players": 5, "discard": "any", "board": "default"}) == Rules(players=5, discard="any")
