"""Game records (kardinal-record/1): round trips, every RecordError, and the replay command line."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import new_game

from kardinal_env import RecordError
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.record import FORMAT

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_FILE = GOLDEN / "german_3p.json"


def golden():
    return json.loads(GOLDEN_FILE.read_text())


def unfinished():
    return new_game(4, ["T0@-1,0", "chip:1", "C@2,0", "H1@-2,0", "C-", "T2@-2,1"]).to_record()


def test_to_record_shape_unfinished():
    record = unfinished()
    assert record["format"] == FORMAT == "kardinal-record/1"
    assert record["rules"] == Rules(players=4).to_dict()
    assert set(record["rules"]) == {
        "players",
        "preset",
        "shared_pool",
        "exhausted_colour",
        "neutral_build_chips",
        "neutral_touch_chips",
        "window",
    }
    assert record["moves"] == ["T0@-1,0", "chip:1", "C@2,0", "H1@-2,0", "C-", "T2@-2,1"]
    assert record["result"] is None
    game = Game.from_record(record)
    assert game.phase == "cardinal" and game.current_player == 2
    assert Game.from_record(json.loads(json.dumps(record))).history == record["moves"]


def test_round_trip_finished():
    record = golden()
    game = Game.from_record(record)
    again = game.to_record()
    assert again == record
    back = Game.from_record(json.loads(json.dumps(again)))
    assert back.scores() == game.scores() and back.winners() == game.winners()
    assert back.chips() == game.chips()


@pytest.mark.parametrize(
    "options", [dict(players=2, window=9), dict(players=3, preset="german", neutral_touch_chips="score")]
)
def test_round_trip_keeps_every_option(options):
    game = Game(Rules(**options))
    game.play(game.legal_moves()[0])
    back = Game.from_record(json.loads(json.dumps(game.to_record())))
    assert back.rules == game.rules


def _mutated(change):
    record = golden()
    change(record)
    return record


def _set(key, value):
    def change(record):
        record[key] = value

    return change


def _del(key):
    def change(record):
        del record[key]

    return change


def _move(index, value):
    def change(record):
        record["moves"][index] = value

    return change


BAD = [
    (
        "wrong format version",
        _set("format", "kardinal-record/2"),
        "field 'format' must be 'kardinal-record/1', got 'kardinal-record/2'",
    ),
    ("format missing", _del("format"), "field 'format' must be 'kardinal-record/1', got None"),
    ("unknown top-level field", _set("comment", "hi"), "unknown field(s) ['comment']"),
    ("unknown rules option", lambda r: r["rules"].update(colours=5), "unknown option(s) ['colours']"),
    ("bad rules value", lambda r: r["rules"].update(players=7), "players must be 2, 3 or 4, got 7"),
    ("rules missing players", lambda r: r["rules"].pop("players"), "missing option 'players'"),
    ("rules not an object", _set("rules", [3]), "expected an object of rule options"),
    ("missing rules", _del("rules"), "missing field 'rules'"),
    ("missing moves", _del("moves"), "field 'moves' must be a list of move strings, got NoneType"),
    ("moves not a list", _set("moves", "H0@1,1"), "field 'moves' must be a list of move strings, got str"),
    ("missing result", _del("result"), "missing field 'result' (null for an unfinished game)"),
    ("illegal move", _move(3, "H1@-1,0"), "move 3 ('H1@-1,0') is illegal: rule IV: house 1 at -1,0 touches the nave"),
    ("illegal move, colour", _move(3, "Y2@-1,1:0,1"), "move 3 ('Y2@-1,1:0,1') is illegal: rule 0 (placement)"),
    ("illegal phase", _move(1, "C@1,1"), "move 1 ('C@1,1') is illegal: phase"),
    ("malformed move", _move(2, "C@01,1"), "move 2 ('C@01,1') is illegal: malformed move 'C@01,1'"),
    ("non-string move", _move(2, 7), "move 2 must be a string, got 7"),
    (
        "scores mismatch",
        lambda r: r["result"].update(scores=[19, 14, 22]),
        "result.scores [19, 14, 22] != replayed scores [19, 14, 21]",
    ),
    ("winners mismatch", lambda r: r["result"].update(winners=[0]), "result.winners [0] != replayed winners [2]"),
    (
        "result wrong shape",
        lambda r: r["result"].pop("winners"),
        "must be null or an object with exactly 'scores' and 'winners'",
    ),
    ("result null for a finished game", _set("result", None), "the moves end the game but field 'result' is null"),
    (
        "result for an unfinished game",
        lambda r: r.update(moves=r["moves"][:10]),
        "field 'result' is given but the game is not over after 10 moves",
    ),
    ("move after the end", lambda r: r["moves"].append("C-"), "is illegal: game over"),
]


@pytest.mark.parametrize("name,change,fragment", BAD, ids=[b[0] for b in BAD])
def test_record_errors(name, change, fragment):
    record = _mutated(change)
    with pytest.raises(RecordError) as info:
        Game.from_record(record)
    assert fragment in str(info.value), str(info.value)
    assert str(info.value).startswith("record: ")


def test_record_error_for_the_rule_of_an_illegal_move():
    record = golden()
    # the first build of this game was T3@0,-1; a house on the nave's side breaks rule IV
    assert record["moves"][0] == "T3@0,-1"
    record["moves"][0] = "H3@0,-1"
    with pytest.raises(
        RecordError, match=r"move 0 \('H3@0,-1'\) is illegal: rule IV: house 3 at 0,-1 touches the nave"
    ):
        Game.from_record(record)


@pytest.mark.parametrize("value", [None, [], "text", 3])
def test_record_not_an_object(value):
    with pytest.raises(RecordError, match="expected a JSON object"):
        Game.from_record(value)


def test_record_error_is_value_error():
    assert issubclass(RecordError, ValueError)


def test_load_record(tmp_path):
    assert Game.load(str(GOLDEN_FILE)).scores() == [19, 14, 21]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="not valid JSON"):
        Game.load(str(bad))
    record = golden()
    record["format"] = "other"
    named = tmp_path / "named.json"
    named.write_text(json.dumps(record))
    with pytest.raises(RecordError, match=r"named\.json: field 'format'"):
        Game.load(str(named))


# ---------------------------------------------------------------- command line


@pytest.fixture
def replay(cli):
    """``kardinal-replay`` in-process: ``replay(*args)`` gives its exit status, stdout and stderr."""
    from kardinal_env.core.replay import main

    return lambda *args: cli(main, args)


def test_cli_stderr_has_no_runpy_warning():
    """``python -m kardinal_env.core.replay``, in a process of its own: no runpy warning about the module."""
    result = subprocess.run(
        [sys.executable, "-m", "kardinal_env.core.replay", str(GOLDEN_FILE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    assert "RuntimeWarning" not in result.stderr


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json"))[:3] + [GOLDEN_FILE], ids=lambda p: p.stem)
def test_cli_replays_golden_files(path, replay):
    result = replay(str(path))
    assert result.returncode == 0, result.stderr
    game = Game.load(str(path))
    out = result.stdout
    assert f"scores: {game.scores()}  winners: {game.winners()}" in out
    assert "phase: over" in out
    assert f"record OK: {game.move_count} moves replayed" in out
    assert " N  K " in out  # the cathedral is drawn
    assert result.stderr == ""


def test_cli_unfinished_record(tmp_path, replay):
    path = tmp_path / "open.json"
    path.write_text(json.dumps(unfinished()))
    result = replay(str(path))
    assert result.returncode == 0, result.stderr
    assert "phase: cardinal  seat on turn: 2" in result.stdout


@pytest.mark.parametrize(
    "change,fragment",
    [
        (_move(3, "H1@-1,0"), "move 3 ('H1@-1,0') is illegal: rule IV: house 1 at -1,0 touches the nave"),
        (_set("format", "x"), "field 'format' must be 'kardinal-record/1'"),
        (lambda r: r["result"].update(scores=[0, 0, 0]), "result.scores [0, 0, 0] != replayed scores"),
    ],
    ids=["illegal", "format", "result"],
)
def test_cli_bad_file(tmp_path, change, fragment, replay):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_mutated(change)))
    result = replay(str(path))
    assert result.returncode != 0
    assert result.stderr.startswith("error: ")
    assert str(path) in result.stderr
    assert fragment in result.stderr
    assert result.stdout == ""


def test_cli_binary_file(tmp_path, replay):
    path = tmp_path / "game.bin"
    path.write_bytes(bytes(range(256)) * 4)
    result = replay(str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: {path}: not a text (UTF-8) JSON file")
    assert "Traceback" not in result.stderr


def test_cli_missing_file_and_bad_json(tmp_path, replay):
    result = replay(str(tmp_path / "nope.json"))
    assert result.returncode != 0 and "error:" in result.stderr
    path = tmp_path / "broken.json"
    path.write_text("[1, 2")
    result = replay(str(path))
    assert result.returncode != 0 and "not valid JSON" in result.stderr


def test_cli_usage_error(replay):
    result = replay()
    assert result.returncode != 0
    assert "usage" in result.stderr


def test_golden_record_is_not_mutated_by_replay():
    record = golden()
    snapshot = copy.deepcopy(record)
    Game.from_record(record)
    assert record == snapshot
