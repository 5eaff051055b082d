"""agents.evaluation.tournament (seat rotation, statistics, outputs, records, CLI) and agents.serving.play (terminal
play)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agents.evaluation.backends import ProcessPool
from agents.evaluation.tournament import Table, evaluate, format_table, lineup, wilson_interval, write_outputs
from kardinal_env.kardinal import Game

ROOT = Path(__file__).resolve().parent.parent


def load_record(path) -> Game:
    """Replay a kardinal-record/1 file (every move and the result are checked)."""
    return Game.from_record(json.loads(Path(path).read_text()), source=str(path))


def test_wilson_interval():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-3) and hi == pytest.approx(0.7634, abs=1e-3)
    assert wilson_interval(0, 10)[0] == pytest.approx(0.0) and wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_lineup_fills_with_last_spec():
    assert lineup(["a", "b"], 4) == ["a", "b", "b", "b"]
    assert lineup(["a"], 2) == ["a", "a"]
    with pytest.raises(ValueError, match="do not fit"):
        lineup(["a", "b", "c"], 2)


def test_evaluate_two_players(tmp_path):
    res = evaluate(["greedy", "random"], Table.of("kardinal", 2), games=4, seed=3)
    assert res["labels"] == ["greedy", "random"]
    games = res["games"]
    assert len(games) == 4
    # rotation: each participant sits in each seat equally often
    seat_counts = {(g["seats"][s], s) for g in games for s in range(2)}
    assert seat_counts == {(0, 0), (0, 1), (1, 0), (1, 1)}
    for g in games:
        assert all(g["ranks"][w] == 1 for w in g["winners"]) and g["finishing_order"][0] == g["winners"]
        assert len(g["moves"]) == g["num_moves"]
    by = {s["agent"]: s for s in res["summary"]}
    assert by["greedy"]["games"] == 4 and by["random"]["games"] == 4
    assert by["greedy"]["wins"] >= 3
    assert by["greedy"]["mu"] > by["random"]["mu"]
    lo, hi = by["greedy"]["win_ci95"]
    assert 0 <= lo <= by["greedy"]["win_rate"] <= hi <= 1
    table = format_table(res)
    assert "greedy" in table and "random" in table and "95% CI" in table
    paths = write_outputs(res, tmp_path / "out")
    data = json.loads(Path(paths["json"]).read_text())
    assert data["format"] == "kardinal-eval/1"
    assert data["options"]["seed"] == 3 and len(data["games"]) == 4
    assert "kardinal_env" in data["versions"]
    assert Path(paths["png"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths["records"] == [] and not (tmp_path / "out" / "games").exists()


def test_shared_wins_count_one_over_k():
    """One definition (kardinal_env.core.rewards.win_share): a shared win among k winners counts 1/k, so the
    win rates of the seats of every game sum to 1 and wins equal the sum of the games' win shares."""
    res = evaluate(["random"], Table.of("kardinal", 3), games=12, seed=5, keep_moves=False)
    total = sum(s["wins"] for s in res["summary"])
    assert total == pytest.approx(12)
    for s in res["summary"]:
        mine = [
            g
            for g in res["games"]
            for seat, who in enumerate(g["seats"])
            if res["labels"][who] == s["agent"] and seat in g["winners"]
        ]
        assert s["shared_wins"] == sum(len(g["winners"]) > 1 for g in mine)
    assert "a shared win among k winners counts 1/k" in format_table(res)


def test_save_games_writes_replayable_records(tmp_path, cli):
    from kardinal_env.core.replay import main as replay_main

    res = evaluate(["greedy", "random"], Table.of("kardinal", 2), games=3, seed=1, save_games=2)
    paths = write_outputs(res, tmp_path)
    assert [Path(p).name for p in paths["records"]] == ["game_0000.json", "game_0001.json"]
    data = json.loads((tmp_path / "results.json").read_text())
    assert [g.get("record_file") for g in data["games"]] == ["games/game_0000.json", "games/game_0001.json", None]
    for g, path in zip(data["games"], paths["records"]):
        game = load_record(path)  # replays every move and checks the result
        assert game.is_over and game.scores() == g["scores"] and game.history == g["moves"]
    code, out, err = cli(replay_main, [paths["records"][0]])
    assert code == 0 and "record OK" in out, err


def test_evaluate_is_reproducible_and_labels_duplicates():
    table = Table.of("kardinal", 3, preset="german")
    a = evaluate(["mcts:4", "greedy"], table, games=3, seed=1)
    b = evaluate(["mcts:4", "greedy"], table, games=3, seed=1)
    assert a["labels"] == ["mcts:4", "greedy", "greedy#2"]
    assert [g["moves"] for g in a["games"]] == [g["moves"] for g in b["games"]]
    assert "warning" not in format_table(a)


def test_evaluate_shared_pool_four_players():
    res = evaluate(["random"], Table.of("kardinal", 4, shared_pool=True), games=2, seed=0, keep_moves=False)
    assert res["labels"] == ["random", "random#2", "random#3", "random#4"]
    assert res["options"]["rules"]["shared_pool"] is True
    assert "moves" not in res["games"][0]
    assert "not a multiple" in format_table(res)


def test_evaluate_accepts_agent_objects():
    from agents.baselines.kardinal_greedy import GreedyAgent

    res = evaluate([GreedyAgent(seed=0), "random"], Table.of("kardinal", 2), games=2)
    assert res["labels"] == ["greedy", "random"]


@pytest.mark.slow
def test_evaluate_workers_match_serial():
    a = evaluate(["greedy", "random"], "kardinal", games=4, seed=2)
    b = evaluate(["greedy", "random"], "kardinal", games=4, seed=2, backend=ProcessPool(2))
    assert [g["moves"] for g in a["games"]] == [g["moves"] for g in b["games"]]


def _evaluate(cli, *argv):
    from agents.evaluation.tournament import main

    return cli(main, argv)


def _play(cli, stdin, *argv):
    from agents.serving.play import main

    return cli(main, argv, stdin)


def test_evaluate_cli(tmp_path, cli):
    code, out, err = _evaluate(cli, "--agents", "greedy", "random", "--games", "2", "--quiet", "--out", str(tmp_path))
    assert code == 0, err
    assert "greedy" in out and (tmp_path / "results.json").exists() and (tmp_path / "ratings.png").exists()
    argv = [
        "--agents",
        "greedy",
        "random",
        "--games",
        "2",
        "--quiet",
        "--save-games",
        "1",
        "--out",
        str(tmp_path / "rec"),
    ]
    code, _, err = _evaluate(cli, *argv)
    assert code == 0, err
    assert load_record(tmp_path / "rec" / "games" / "game_0000.json").is_over
    code, _, err = _evaluate(cli, "--agents", "mcts:abc", "--games", "2")
    assert code == 2 and "mcts:abc" in err


def test_play_illegal_move_help_and_quit(cli):
    code, out, err = _play(cli, "help\nH0@5,5\nnonsense\nquit\n", "--agents", "random")
    assert code == 0, err
    assert "legal moves:" in out and "H0@2,0" in out
    assert "illegal move: rule 0 (placement)" in out
    assert "illegal move: malformed move 'nonsense'" in out
    assert "bye" in out


def test_play_moves_then_agent_replies(cli):
    # Seat 0 opens, takes the compensation chip, places the cardinal; the agent replies.
    code, out, err = _play(cli, "H0@2,0\nchip:2\nC@0,-1\nquit\n", "--agents", "greedy")
    assert code == 0, err
    assert "seat 1 (greedy) plays" in out
    assert "illegal" not in out


def test_play_bad_spec(cli):
    code, _, err = _play(cli, "quit\n", "--agents", "foo")
    assert code == 2 and "unknown agent spec 'foo'" in err


def test_play_saves_finished_and_unfinished_games_as_records(tmp_path, monkeypatch, capsys, cli):
    import io
    import random

    from agents import load_agent
    from agents.serving.play import main
    from kardinal_env.kardinal import Rules

    # the moves of a whole game: seat 0 random, seat 1 the same seeded greedy agent that play.py builds
    game, opponent, rng = Game(Rules(players=2)), load_agent("greedy", seed=1), random.Random(0)
    mine = []
    while not game.is_over:
        if game.current_player == 0:
            move = rng.choice(game.legal_moves())
            mine.append(move)
        else:
            move = opponent.select_move(game)
        game.play(move)
    finished = tmp_path / "finished.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(mine) + "\n"))
    assert main(["--agents", "greedy", "--save", str(finished)]) == 0
    assert "saved the game (finished)" in capsys.readouterr().out
    replayed = load_record(finished)
    assert replayed.is_over and replayed.history == game.history and replayed.scores() == game.scores()

    partial = tmp_path / "partial.json"
    code, _, err = _play(cli, "H0@2,0\nquit\n", "--agents", "greedy", "--save", str(partial))
    assert code == 0, err
    assert load_record(partial).history[0] == "H0@2,0" and not load_record(partial).is_over


def test_play_ctrl_c_exits_quietly_with_130():
    import signal

    def default_sigint() -> None:
        # A runner started in the background (e.g. under nohup and time) may hand its children SIGINT
        # ignored, and Python installs no KeyboardInterrupt handler then: the Ctrl-C of a terminal is
        # what is tested, so the child starts with SIGINT's default disposition.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "scripts/play.py", "--agents", "greedy"],
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    try:
        # the help line is flushed when the prompt waits for input: the game loop is running
        for _ in range(200):
            line = proc.stdout.readline()
            if not line or line.startswith("type a move"):
                break
        proc.send_signal(signal.SIGINT)
        # stdin stays open until the process has ended, so only the signal can end it (an EOF would
        # end the game with "end of input" and status 0)
        proc.wait(timeout=60)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout and "Traceback" not in stderr


def test_koenig_gauntlet_rotates_seats_and_saves_replayable_records(tmp_path):
    from kardinal_env.koenig import Game as KoenigGame

    table = Table.of("kardinal_koenig", 3)
    results = evaluate(["greedy", "random"], table, games=3, seed=1, save_games=2)
    assert results["options"]["game"] == "kardinal_koenig"
    assert [g["seats"] for g in results["games"]] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    summary = {row["agent"]: row for row in results["summary"]}
    assert sum(row["wins"] for row in summary.values()) == pytest.approx(3)
    paths = write_outputs(results, tmp_path)
    assert len(paths["records"]) == 2
    for path, game in zip(paths["records"], results["games"], strict=False):
        replayed = KoenigGame.load(path)
        assert replayed.scores() == game["scores"] and replayed.winners() == game["winners"]
    again = evaluate(["greedy", "random"], table, games=3, seed=1, backend=ProcessPool(2))
    assert [g["scores"] for g in again["games"]] == [g["scores"] for g in results["games"]]


def test_kardinal_saved_games_come_with_html_replays(tmp_path):
    results = evaluate(["greedy", "random"], Table.of("kardinal", 2), games=2, seed=0, save_games=1)
    write_outputs(results, tmp_path)
    saved = json.loads((tmp_path / "results.json").read_text())["games"][0]
    html = (tmp_path / saved["replay_file"]).read_text()
    assert saved["replay_file"] == "games/game_0000.html" and "<svg" in html and "http" not in html.split("<body")[0]


def test_the_one_wilson_interval_serves_tournaments_and_tuning():
    from agents.baselines import koenig_tuning
    from agents.evaluation import stats

    assert wilson_interval is stats.wilson_interval is koenig_tuning.wilson_interval
    lo, hi = wilson_interval(120, 200)
    assert 0.53 < lo < 0.6 < hi < 0.67
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0.5, 1)[0] > 0.0  # a shared win counts its share
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(5, 4)
    with pytest.raises(ValueError, match="negative"):
        wilson_interval(0, -1)
