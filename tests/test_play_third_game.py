"""The third game (Nim, tests/third_game.py, registered from the test) at the table: terminal play
through ``agents.serving.play`` (its ``main`` and ``play_game``) with scripted input, its options from
its registry entry, and the web play server's plain text page — nothing in ``agents.serving``
names the game."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest
import third_game

from agents.registry import game_agents
from agents.serving.pages import TextPage, page_for
from agents.serving.play import main, play_game
from agents.serving.webplay import make_server


@pytest.fixture
def nim():
    with third_game.registered() as spec:
        yield spec


class _Scripted:
    """``input()`` replaced by a script: each call returns the next line (EOFError after the last)."""

    def __init__(self, lines: list[str]):
        self.lines = list(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str = "") -> str:
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


def test_play_game_with_scripted_input(nim, monkeypatch, capsys):
    rules = nim.rules(2, pile="7")
    game = nim.new_game(rules)
    script = _Scripted(["4", "take", "#2", "2", "1"])  # 4 > max_take; not a move; number 2 = "2"; then "2"
    monkeypatch.setattr("builtins.input", script)
    agents = {1: third_game.NimGreedyAgent(seed=0)}
    assert play_game(nim, game, agents, 0) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nim: you are seat 0 of 2; seat 1: greedy\n")
    assert "pile: ooooooo (7 of 7 stones left)" in out and "player 0 (you) to move: take 1, 2, 3" in out
    assert "your legal moves (3):\n1) 1  2) 2  3) 3" in out
    assert "illegal move: malformed move: expected a number of stones from 1 to 3, got '4'" in out
    assert "(a number picks one of the 3 legal moves, 1..3)" in out  # "4" is a number out of range
    assert "illegal move: malformed move: expected a number of stones from 1 to 3, got 'take'" in out
    # 7 -2-> 5, greedy takes 1 -> 4, 2 -> 2, greedy takes 2 and wins
    assert game.history == ["2", "1", "2", "2"] and game.is_over and game.winners() == [1]
    assert "seat 1 (greedy) plays 1" in out and out.rstrip().endswith(
        "You lose: seat(s) [1] win with 1 against your 0."
    )
    assert script.lines == ["1"] and all(p == "seat 0> " for p in script.prompts)  # Nim has no phase


def test_main_plays_nim_with_its_options_and_saves_the_record(nim, tmp_path, monkeypatch, capsys):
    path = tmp_path / "nim.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 20))
    argv = ["--game", "nim", "--players", "3", "--pile", "9", "--misere", "--agents", "random", "--save", str(path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nim: you are seat 0 of 3; seat 1: random, seat 2: random\n")
    assert "saved the game (finished)" in out
    record = json.loads(path.read_text())
    assert record["format"] == "nim-record/1" and record["rules"] == {
        "players": 3,
        "pile": 9,
        "max_take": 3,
        "misere": True,
    }
    game = nim.from_record(record)
    assert game.is_over and record["result"]["winners"] == game.winners()
    assert all(move == "1" for move in game.history[::3])  # the person always took one stone


def test_nim_options_on_the_command_line(nim, capsys):
    with pytest.raises(SystemExit):
        main(["--game", "nim", "--players", "4"])
    assert "invalid choice: 4 (choose from 2, 3)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "nim", "--help"])
    help_text = capsys.readouterr().out
    assert "--pile VALUE" in help_text and "--misere" in help_text and "--preset" not in help_text
    assert "default ['greedy']" in " ".join(help_text.split())  # Nim has a greedy baseline
    assert main(["--game", "nim", "--pile", "0"]) == 2
    assert "pile must be an integer from 1 to 99, got 0" in capsys.readouterr().err


def test_nim_is_unknown_once_unregistered(capsys):
    with third_game.registered():
        pass
    with pytest.raises(SystemExit):
        main(["--game", "nim"])
    assert "argument --game: invalid choice: 'nim'" in capsys.readouterr().err


def test_nim_in_the_browser_gets_the_text_page(nim):
    assert game_agents(nim).play_page is None and isinstance(page_for(nim), TextPage)
    with make_server(["greedy"], port=0, game="nim", pile="5") as srv:
        with urllib.request.urlopen(srv.url + "api/state", timeout=30) as resp:
            state = json.loads(resp.read())
        assert state["game"] == "nim" and state["legal"] == ["1", "2", "3"] and state["phase"] is None
        assert state["text"].startswith("pile: ooooo (5 of 5 stones left)") and state["record_available"]
        body = json.dumps({"session": state["session"], "move": "2", "at": 0}).encode()
        request = urllib.request.Request(srv.url + "api/move", data=body, method="POST")
        with urllib.request.urlopen(request, timeout=30) as resp:
            state = json.loads(resp.read())
        assert state["history"] == ["2", "3"] and state["movers"] == [0, 1]  # greedy takes the last stones
        assert state["result"] == {"scores": [0, 1], "winners": [1]}
        with urllib.request.urlopen(srv.url, timeout=30) as resp:
            page = resp.read().decode()
        assert "<title>Nim: play</title>" in page and 'id="text"' in page and "http://" not in page
