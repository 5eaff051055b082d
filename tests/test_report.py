"""Ladders from evaluation results (agents.evaluation.report, scripts/ladder_page.py): the figures
equal the evaluator's own summary, pooling several files, the Markdown and the plot, every refusal
of a malformed file (naming the file and the field), and the documentation's committed ladders
being what their committed results files give."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import script_main

pytest.importorskip("openskill")
pytest.importorskip("matplotlib")

from agents.evaluation.report import (  # noqa: E402
    SLIM_GAME_KEYS,
    LadderError,
    build_ladder,
    head_to_head,
    ladder_markdown,
    load_run,
    matrix_markdown,
    plot_ladder,
    slim_results,
    write_ladder,
)
from agents.evaluation.tournament import Table, evaluate, wilson_interval, write_outputs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "data"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, Path]:
    """Two small real runs of kardinal-evaluate's library: greedy against random (seeds 0 and 1),
    and a 3-player Kardinal & König run with a repeated spec (``random#2``)."""
    out = tmp_path_factory.mktemp("results")
    paths = {}
    for name, agents, table, seed in (
        ("a", ["greedy", "random"], Table.of("kardinal", 2), 0),
        ("b", ["greedy", "random"], Table.of("kardinal", 2), 1),
        ("koenig", ["greedy", "random"], Table.of("kardinal_koenig", 3), 0),
    ):
        run = evaluate(agents, table, games=6, seed=seed, keep_moves=False)
        paths[name] = Path(write_outputs(run, out / name)["json"])
    return paths


def _data(path: Path) -> dict:
    return json.loads(path.read_text())


def _write(tmp_path: Path, data, name: str = "results.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# ---------------------------------------------------------------- the figures


def test_wins_are_written_without_float_noise():
    from agents.evaluation.report import _wins_text

    assert [_wins_text(w) for w in (850.0, 849.9999999999, 245.5, 1 / 3 + 421.5, 0.0)] == [
        "850",
        "850",
        "245.5",
        "421.83",
        "0",
    ]


def test_head_to_head_matrix_pools_runs_of_a_pair_and_counts_the_first_agents_seat(results, tmp_path):
    a, b, koenig = results["a"], results["b"], results["koenig"]
    assert head_to_head(load_run(a)) == ("greedy", "random")
    assert head_to_head(load_run(koenig)) == ("greedy", "random")  # one greedy against two random
    # the row agent's wins over both runs, counted at the seat it sat in each game
    wins = 0.0
    for path in (a, b):
        for game in _data(path)["games"]:
            seat = game["seats"].index(0)
            wins += 1 / len(game["winners"]) if seat in game["winners"] else 0.0
    matrix = matrix_markdown(build_ladder([a, b]))
    lo, hi = wilson_interval(wins, 12)
    assert f"| `greedy` | {wins / 12:.3f} ({lo:.3f}–{hi:.3f}), 12 |" in matrix
    assert "against 1 copy of the column's agent" in matrix and "`random` |" in matrix.splitlines()[2]
    assert matrix in ladder_markdown(build_ladder([a, b]))
    # a file relabelled to keep an earlier version apart (same spec, another label) is its own row
    earlier = _data(b)
    earlier["labels"][0] = "greedy v0"
    relabelled = build_ladder([a, _write(tmp_path, earlier)])
    assert head_to_head(relabelled.runs[1]) == ("greedy v0", "random")
    rows = [line for line in matrix_markdown(relabelled).splitlines() if line.startswith("| `greedy")]
    assert len(rows) == 2 and all(line.endswith(", 6 |") for line in rows), rows
    # a run of three different agents is not head to head: no matrix
    three = _data(koenig)
    three["options"]["agents"] = ["greedy", "random", "heuristic"]
    three["labels"] = ["greedy", "random", "heuristic"]
    run = _write(tmp_path, three)
    assert head_to_head(load_run(run)) is None
    assert matrix_markdown(build_ladder([run])) == ""
    assert "Head to head" not in ladder_markdown(build_ladder([run]))


@pytest.mark.parametrize("name", ["a", "koenig"])
def test_one_file_gives_the_evaluators_summary(results, name):
    ladder = build_ladder([results[name]])
    summary = {s["agent"]: s for s in _data(results[name])["summary"]}
    assert {row.agent for row in ladder.rows} == set(summary)
    for row in ladder.rows:
        s = summary[row.agent]
        assert (row.games, row.spec) == (s["games"], s["spec"])
        assert row.wins == pytest.approx(s["wins"]) and row.win_share == pytest.approx(s["win_rate"])
        assert row.ci95 == pytest.approx(tuple(s["win_ci95"]))
        assert row.mean_score == pytest.approx(s["mean_score"]) and row.mean_rank == pytest.approx(s["mean_rank"])
        assert (row.mu, row.sigma, row.ordinal) == pytest.approx((s["mu"], s["sigma"], s["ordinal"]))
    ordinals = [row.ordinal for row in ladder.rows]
    assert ordinals == sorted(ordinals, reverse=True)
    if name == "koenig":  # the repeated spec: two participants of the same agent
        assert {row.agent: row.spec for row in ladder.rows}["random#2"] == "random"
        assert ladder.parity == pytest.approx(1 / 3)


def test_pooling_sums_the_games_and_rates_them_in_order(results, tmp_path):
    a, b = results["a"], results["b"]
    pooled = build_ladder([a, b])
    assert pooled.total_games == 12 and len(pooled.runs) == 2
    for row in pooled.rows:
        parts = [s for p in (a, b) for s in _data(p)["summary"] if s["agent"] == row.agent]
        assert row.games == sum(s["games"] for s in parts)
        assert row.wins == pytest.approx(sum(s["wins"] for s in parts))
    # the same as one file holding a's games followed by b's
    merged = _data(a)
    merged["games"] = _data(a)["games"] + _data(b)["games"]
    one = build_ladder([_write(tmp_path, merged)])
    assert [(r.agent, r.mu, r.sigma, r.wins) for r in one.rows] == [
        (r.agent, r.mu, r.sigma, r.wins) for r in pooled.rows
    ]
    # ratings depend on the order of the games; wins do not (a run in which every result is reversed)
    flipped = _data(a)
    for game in flipped["games"]:
        game["ranks"] = [3 - r for r in game["ranks"]]
        game["winners"] = [s for s, r in enumerate(game["ranks"]) if r == 1]
    other = _write(tmp_path, flipped, "flipped.json")
    forward = {r.agent: r for r in build_ladder([a, other]).rows}
    backward = {r.agent: r for r in build_ladder([other, a]).rows}
    assert forward["greedy"].mu != pytest.approx(backward["greedy"].mu, abs=1e-6)
    assert forward["greedy"].wins == backward["greedy"].wins == pytest.approx(6.0)


def test_shared_wins_count_one_over_k(results, tmp_path):
    data = _data(results["a"])
    data["games"] = data["games"][:2]
    data["games"][0]["winners"] = [0, 1]
    data["games"][0]["ranks"] = [1, 1]
    data["games"][1]["winners"] = [0]
    data["games"][1]["ranks"] = [1, 2]
    ladder = build_ladder([_write(tmp_path, data)])
    seated_first = data["labels"][data["games"][1]["seats"][0]]
    wins = {row.agent: row.wins for row in ladder.rows}
    assert wins[seated_first] == pytest.approx(1.5) and sum(wins.values()) == pytest.approx(2.0)


# ---------------------------------------------------------------- the outputs


def test_markdown_has_the_caption_one_row_per_agent_and_the_sources(results):
    ladder = build_ladder([results["a"], results["b"]])
    text = ladder_markdown(ladder, ["first.json", "second.json"])
    assert text.startswith("**Kardinal, preset english, 2 players: 12 games in 2 runs, parity 0.500.**")
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)–([\d.]+) \|", text, re.M)
    assert [(int(place), agent) for place, agent, *_ in rows] == [(1, "greedy"), (2, "random")]
    for _, agent, games, _, share, lo, hi in rows:
        row = next(r for r in ladder.rows if r.agent == agent)
        assert int(games) == row.games and float(share) == pytest.approx(row.win_share, abs=5e-4)
        assert float(lo) <= float(share) <= float(hi)
    assert "- `first.json`: `greedy` vs `random`, 6 games, seed 0" in text
    assert "- `second.json`: `greedy` vs `random`, 6 games, seed 1" in text
    assert "a shared win among k winners counts 1/k" in text
    with pytest.raises(ValueError, match="1 names for 2 runs"):
        ladder_markdown(ladder, ["only-one.json"])


def test_plot_is_a_png_and_the_same_for_the_same_files(results, tmp_path):
    ladder = build_ladder([results["koenig"]])
    first, second = tmp_path / "one.png", tmp_path / "two.png"
    plot_ladder(ladder, first)
    plot_ladder(build_ladder([results["koenig"]]), second)
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert first.read_bytes() == second.read_bytes()


def test_write_ladder_writes_both_files_and_checks_the_name(results, tmp_path):
    written = write_ladder([results["a"]], tmp_path / "out", "kardinal")
    assert written == {"markdown": tmp_path / "out" / "kardinal.md", "png": tmp_path / "out" / "kardinal.png"}
    assert written["markdown"].read_text().startswith("**Kardinal")
    assert written["png"].stat().st_size > 1000
    for bad in ("", "../x", ".hidden"):
        with pytest.raises(ValueError, match="plain file name stem"):
            write_ladder([results["a"]], tmp_path, bad)


# ---------------------------------------------------------------- refusals


def _broken(results, change):
    data = _data(results["a"])
    change(data)
    return data


MALFORMED = [
    ("not json", lambda r: "{not json", r"not JSON \(Expecting property name"),
    ("a list", lambda r: [1, 2], "expected a JSON object"),
    ("format", lambda r: _broken(r, lambda d: d.update(format="kardinal-eval/0")), "format is 'kardinal-eval/0'"),
    ("no options", lambda r: _broken(r, lambda d: d.pop("options")), "no 'options' object"),
    ("no game", lambda r: _broken(r, lambda d: d["options"].pop("game")), "options has no 'game'"),
    ("players", lambda r: _broken(r, lambda d: d["options"].update(players="2")), "options.players must be"),
    ("rules", lambda r: _broken(r, lambda d: d["options"].update(rules=[])), "options.rules must be an object"),
    ("labels", lambda r: _broken(r, lambda d: d.update(labels=[])), "'labels' must be a non-empty list"),
    ("repeated label", lambda r: _broken(r, lambda d: d.update(labels=["x", "x"])), "'labels' repeats a label"),
    ("agents", lambda r: _broken(r, lambda d: d["options"].update(agents=["greedy"])), r"options.agents must be 2"),
    ("no games", lambda r: _broken(r, lambda d: d.update(games=[])), "'games' must be a non-empty list"),
    ("no seats", lambda r: _broken(r, lambda d: d["games"][3].pop("seats")), r"games\[3\] has no 'seats'"),
    ("seats", lambda r: _broken(r, lambda d: d["games"][2].update(seats=[0, 2])), r"games\[2\]\.seats must be 2"),
    ("scores", lambda r: _broken(r, lambda d: d["games"][0].update(scores=[1])), r"games\[0\]\.scores must be 2"),
    ("ranks", lambda r: _broken(r, lambda d: d["games"][1].update(ranks=[0, 1])), r"games\[1\]\.ranks must be 2"),
    ("winners", lambda r: _broken(r, lambda d: d["games"][4].update(winners=[])), r"games\[4\]\.winners must be"),
    ("winner seat", lambda r: _broken(r, lambda d: d["games"][4].update(winners=[2])), r"games\[4\]\.winners"),
]


@pytest.mark.parametrize(("make", "message"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_a_malformed_file_is_refused_naming_the_file_and_the_field(results, tmp_path, make, message):
    path = _write(tmp_path, make(results), "bad-results.json")
    with pytest.raises(LadderError, match=message) as info:
        load_run(path)
    assert str(info.value).startswith(f"{path}: ")
    with pytest.raises(LadderError, match=re.escape(str(path))):  # the ladder says the same
        build_ladder([results["a"], path])


def test_a_missing_file_and_no_file_are_refused(tmp_path):
    missing = tmp_path / "nowhere" / "results.json"
    with pytest.raises(LadderError, match=rf"^{re.escape(str(missing))}: cannot read it"):
        load_run(missing)
    with pytest.raises(LadderError, match="no results file given"):
        build_ladder([])


def test_files_of_different_games_players_or_rules_are_not_pooled(results, tmp_path):
    with pytest.raises(LadderError, match=r"game 'kardinal_koenig' differs from 'kardinal' in .*a ladder pools"):
        build_ladder([results["a"], results["koenig"]])
    german = _broken(results, lambda d: d["options"]["rules"].update(preset="german"))
    path = _write(tmp_path, german, "german.json")
    with pytest.raises(LadderError, match=rf"^{re.escape(str(path))}: rules .* differs from"):
        build_ladder([results["a"], path])


def test_a_label_naming_two_agents_is_refused(results, tmp_path):
    other = _broken(results, lambda d: d["options"].update(agents=["mcts:50", "random"]))
    path = _write(tmp_path, other, "other.json")
    with pytest.raises(LadderError, match=r"label 'greedy' is agent 'mcts:50' here but 'greedy' in "):
        build_ladder([results["a"], path])


# ---------------------------------------------------------------- the command line and the docs


def test_script_writes_the_ladder_and_refuses_a_bad_file(results, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    main = script_main("ladder_page")
    done = cli(main, [str(results["a"]), str(results["b"]), "--out", str(tmp_path), "--name", "k"])
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "k.md").read_text() == ladder_markdown(build_ladder([results["a"], results["b"]]))
    assert (tmp_path / "k.png").read_bytes()[:4] == b"\x89PNG"
    bad = _write(tmp_path, "[]", "bad.json")
    refused = cli(main, [str(bad), "--out", str(tmp_path), "--name", "bad"])
    assert refused.returncode == 1
    assert f"ladder_page: {bad}: expected a JSON object" in refused.stderr
    assert not (tmp_path / "bad.md").exists()


def test_a_slimmed_file_gives_the_same_ladder(results, tmp_path, cli, monkeypatch):
    """slim_results (ladder_page.py --slim) drops what no ladder reads and keeps the ladder, the
    summary and every other top-level field; twice is once; a bad file is refused untouched."""
    full = _data(results["koenig"])
    for game in full["games"]:
        game["moves"] = ["a move"]  # what kardinal-evaluate writes without --no-moves
    source = _write(tmp_path, full, "full.json")
    path = _write(tmp_path, full, "slim.json")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert cli(script_main("ladder_page"), [str(path), "--slim", "--out", str(tmp_path), "--name", "s"]).returncode == 0
    slim = _data(path)
    assert slim["games"] == [{key: game[key] for key in SLIM_GAME_KEYS} for game in full["games"]]
    assert "rating_history" not in slim and "slim" in slim
    assert {k: v for k, v in slim.items() if k not in ("games", "slim")} == {
        k: v for k, v in full.items() if k not in ("games", "rating_history")
    }
    assert ladder_markdown(build_ladder([path]), ["x"]) == ladder_markdown(build_ladder([source]), ["x"])
    assert (tmp_path / "s.md").read_text() == ladder_markdown(build_ladder([path]))
    text = path.read_text()
    slim_results(path)
    assert path.read_text() == text
    bad = _write(tmp_path, '{"format": "kardinal-eval/1"}', "bad.json")
    with pytest.raises(LadderError, match="no 'options' object"):
        slim_results(bad)
    assert bad.read_text() == '{"format": "kardinal-eval/1"}'


def test_the_docs_results_files_are_slim():
    """docs/data keeps what the ladders and the pages read, not every game's timings (or moves)."""
    files = sorted(DATA.glob("*/*/results.json"))
    assert files
    for path in files:
        data = _data(path)
        fat = "rating_history" in data or any(set(game) - set(SLIM_GAME_KEYS) for game in data["games"])
        assert not fat and "slim" in data, f"{path}: python scripts/ladder_page.py --slim ... (or slim_results)"


def _committed_ladders() -> list[Path]:
    return sorted(DATA.glob("*/ladder.md"))


def test_the_docs_ladders_are_what_their_results_files_give():
    """docs/data/GAME/ladder.md is generated from docs/data/GAME/*/results.json (bash scripts/docs.sh
    ladders); a results file added or changed without regenerating fails here."""
    ladders = _committed_ladders()
    assert {p.parent.name for p in ladders} == {"kardinal", "kardinal-koenig", "kardinal-koenig-4p"}
    for markdown in ladders:
        sources = sorted(markdown.parent.glob("*/results.json"))
        assert sources, f"{markdown}: no results files beside it"
        names = [p.relative_to(ROOT).as_posix() for p in sources]
        expected = ladder_markdown(build_ladder(sources), names)
        assert markdown.read_text(encoding="utf-8") == expected, f"{markdown} is stale: bash scripts/docs.sh ladders"
        assert (markdown.parent / "ladder.png").is_file()


def test_the_agents_page_shows_every_ladder():
    page = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    for markdown in _committed_ladders():
        game = markdown.parent.name
        assert f'--8<-- "docs/data/{game}/ladder.md"' in page, game
        assert f"(data/{game}/ladder.png)" in page, game
