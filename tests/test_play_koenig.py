"""``kardinal-play`` in the terminal (agents.serving.play) for Kardinal & König: scripted input by
number and by notation, errors naming the rule, the seat's view (its own hand, never another's),
``--save``, and the options per game from the registry (``--players`` choices and default, rule
options as flags). Kardinal's terminal play is tested in tests/test_evaluate.py and
tests/test_bad_input_cli.py; the third game's in tests/test_play_third_game.py."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from agents.serving.play import main, resolve_move
from kardinal_env.core.registry import get_game
from kardinal_env.koenig import Game

ROOT = Path(__file__).resolve().parent.parent
SEAT_LINE = re.compile(r"^  seat (\d): score .*  (hand \[[0-9, ]*\]|\d+ cards)$")


def _play(monkeypatch, capsys, argv: list[str], lines: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_whole_game_by_numbers_and_notation(tmp_path, monkeypatch, capsys):
    spec = get_game("kardinal_koenig")
    first = spec.new_game(spec.rules(3), seed=3)  # the deal play.py makes with --seed 3: seat 0 moves first
    legal = first.legal_moves()
    script = ["help", "K@XX1/0", "draw:deck", "end", "hello", "board", legal[-1], *["1"] * 400]
    path = tmp_path / "kk.json"
    argv = ["--game", "kardinal_koenig", "--players", "3", "--agents", "random", "--seed", "3", "--save", str(path)]
    code, out, err = _play(monkeypatch, capsys, argv, script)
    assert code == 0 and err == ""
    assert out.startswith("Kardinal & König: you are seat 0 of 3; seat 1: random, seat 2: random\n")
    # the legal moves, numbered, before the first decision; help lists them too
    assert f"your legal moves ({len(legal)}):\n1) {legal[0]}  2) {legal[1]}" in out
    assert f"{len(legal)} legal moves:\n1) {legal[0]}" in out
    # errors name the rule and change nothing
    assert "illegal move: unknown id: no site 'XX1'" in out
    assert "illegal move: phase: seat 0 must now place or discard" in out
    assert "illegal move: end: 'end' only stops after a first piece" in out
    assert "illegal move: malformed move: malformed move 'hello'" in out
    assert "(a number picks one" not in out
    # the game ran to its end and was saved; the record replays to the printed result
    assert "saved the game (finished) to" in out
    game = Game.load(str(path))
    assert game.is_over and game.history[0] == legal[-1]
    winners = game.winners()
    assert ("You win!" if winners == [0] else "You share the win!" if 0 in winners else "You lose:") in out
    # the seat's view: only seat 0's hand is ever shown; the others' hand sizes
    seat_lines = [m for m in map(SEAT_LINE.match, out.splitlines()) if m]
    assert len(seat_lines) >= 3 * 20
    for m in seat_lines:
        assert m.group(2).startswith("hand [") == (m.group(1) == "0"), m.group(0)
    # the agents' moves are printed as they are made
    assert re.search(r"^seat 1 \(random\) plays (K@|A@|discard:|draw:)", out, re.M)


def test_numbers_out_of_range_and_hash_numbers(tmp_path, monkeypatch, capsys):
    spec = get_game("kardinal_koenig")
    legal = spec.new_game(spec.rules(4), seed=0).legal_moves()
    path = tmp_path / "g.json"
    script = ["999", "#0", f"#{len(legal)}", "quit"]
    code, out, _ = _play(monkeypatch, capsys, ["--game", "kardinal_koenig", "--save", str(path)], script)
    assert code == 0
    assert f"(a number picks one of the {len(legal)} legal moves, 1..{len(legal)})" in out
    assert out.count("(a number picks one") == 2
    assert "you are seat 0 of 4; seat 1: greedy, seat 2: greedy, seat 3: greedy" in out  # the defaults
    assert out.rstrip().endswith("saved the game (unfinished, 1 moves) to " + str(path))
    assert Game.load(str(path)).history == [legal[-1]]


def test_resolve_move():
    legal = ["K@FN1/0", "discard:0", "3"]
    assert resolve_move("discard:0", legal) == "discard:0"
    assert resolve_move("1", legal) == "K@FN1/0" and resolve_move("#2", legal) == "discard:0"
    assert resolve_move("3", legal) == "3"  # a legal move in the game's notation wins over its number
    assert resolve_move("#3", legal) == "3" and resolve_move("#1", legal) == "K@FN1/0"
    assert resolve_move("4", legal) == "4" and resolve_move("0", legal) == "0"  # the engine judges them


def test_players_and_rule_options_come_from_the_registry(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--players", "2"])
    assert "argument --players: invalid choice: 2 (choose from 3, 4, 5)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--players", "5"])  # Kardinal: 2-4
    assert "argument --players: invalid choice: 5 (choose from 2, 3, 4)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--shared-pool"])  # Kardinal's option
    assert "unrecognized arguments: --shared-pool" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "chess"])
    assert "argument --game: invalid choice: 'chess' (choose from" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "kardinal_koenig", "--help"])
    help_text = capsys.readouterr().out
    assert "--discard {one,any}" in help_text and "--board VALUE" in help_text and "--preset" not in help_text
    assert "{3,4,5}" in help_text
    # the options reach the rules: saved in the record
    path = tmp_path / "five.json"
    argv = ["--game", "kardinal_koenig", "--players", "5", "--discard", "any", "--save", str(path)]
    code, out, _ = _play(monkeypatch, capsys, argv, ["quit"])
    assert code == 0 and "saved the game (unfinished, 0 moves)" in out
    record = Game.load(str(path)).to_record()
    assert record["rules"] == {"players": 5, "discard": "any", "board": "default"} and record["result"] is None
    # bad values are refused with the rules' own message
    code, _, err = _play(monkeypatch, capsys, ["--game", "kardinal_koenig", "--board", "nowhere"], [])
    assert code == 2 and "nowhere" in err
    code, _, err = _play(monkeypatch, capsys, ["--game", "kardinal_koenig", "--agents", "mcts:5"], [])
    assert code == 2 and "needs a game of perfect information" in err


def test_the_script_plays_koenig_and_saves_an_unfinished_game(tmp_path, cli):
    from agents.serving.play import main

    path = tmp_path / "partial.json"
    spec = get_game("kardinal_koenig")
    move = spec.new_game(spec.rules(4), seed=1).legal_moves()[2]
    out = cli(main, ["--game", "kardinal_koenig", "--seed", "1", "--save", str(path)], stdin=f"{move}\nquit\n")
    assert out.returncode == 0, out.stderr
    game = Game.load(str(path))
    assert game.history[0] == move and not game.is_over
    assert "illegal move" not in out.stdout and out.stdout.count("seat 0 [") == 2  # the move, then quit
