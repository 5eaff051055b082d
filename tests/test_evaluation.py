"""agents.evaluation as one suite: the Table of a run (from the registry), the back-ends behind one
interface, ranks from the engine's finishing order, command-line flags generated from the registry,
seeded per-game results frozen from the evaluator as it was before the back-ends were split out, and a
third game (tests/third_game.py, Nim, registered from this test only) played by random and MCTS agents,
serially and with two worker processes."""

from __future__ import annotations

import hashlib
import json

import pytest
import third_game

from agents.evaluation import tournament
from agents.evaluation.backends import Backend, ProcessPool, Serial
from agents.evaluation.distributed import RayTasks
from agents.evaluation.tournament import Table, evaluate, format_table, write_outputs
from agents.evaluation.worker import GameTask, Setup, Worker, ranks_from_order
from kardinal_env.core.registry import get_game, unregister_game


def _fingerprint(results: dict) -> list[tuple]:
    def digest(moves):
        return hashlib.sha1("\n".join(moves).encode()).hexdigest()[:12]

    return [(g["scores"], g["winners"], g["ranks"], g["num_moves"], digest(g["moves"])) for g in results["games"]]


# Per game (scores, winners, ranks, moves, sha1 of the moves) from agents/evaluation/tournament.py at
# commit 298d071, before the back-ends, the worker module and finishing_order(): the split must not change a game.
# The Kardinal & König cases (kk3, kk5any) were frozen again when the shared shuffler
# (kardinal_env.core.shuffle, issue 22) changed how a seed deals; nothing else changed them.
FROZEN = {
    "k3rand": (
        dict(table=("kardinal", 3, {}), seed=5, games=12, agents=["random"]),
        [
            ([26, 15, 17], [0], [1, 3, 2], 47, "bba438dd73dd"),
            ([24, 10, 19], [0], [1, 3, 2], 43, "7bc867f97e22"),
            ([23, 14, 17], [0], [1, 3, 2], 43, "0e5a64a2ed72"),
            ([14, 16, 18], [2], [3, 2, 1], 47, "1b4836a73edb"),
            ([12, 16, 21], [2], [3, 2, 1], 41, "f6e978633b4a"),
            ([21, 14, 19], [0], [1, 3, 2], 49, "c8722711007b"),
            ([19, 13, 21], [2], [2, 3, 1], 43, "362ca0b0ebcb"),
            ([17, 17, 17], [2], [2, 2, 1], 43, "1178978e410a"),  # three-way tie on score: cathedral touches decide
            ([14, 22, 18], [1], [3, 1, 2], 45, "e86fde37bf53"),
            ([11, 24, 20], [1], [3, 1, 2], 41, "3135a5ecfa1b"),
            ([13, 17, 17], [1], [3, 1, 2], 47, "10e5380ac4c9"),
            ([16, 20, 21], [2], [3, 2, 1], 49, "87449deb3f0b"),
        ],
    ),
    "k4pool": (
        dict(table=("kardinal", 4, {"shared_pool": True}), seed=0, games=4, agents=["random"]),
        [
            ([11, 8, 9, 10], [0], [1, 4, 3, 2], 47, "05db8fdf1c33"),
            ([11, 8, 11, 7], [0], [1, 3, 2, 4], 47, "6fdbd295c8bc"),
            ([9, 9, 6, 7], [0], [1, 2, 4, 3], 45, "3dc6dfc205a5"),
            ([7, 9, 8, 8], [1], [4, 1, 2, 2], 43, "6e1209520646"),  # seats 2 and 3 tied on score and touches
        ],
    ),
    "kk3": (
        dict(table=("kardinal_koenig", 3, {}), seed=1, games=3, agents=["greedy", "random"]),
        [
            ([73, 56, 58], [0], [1, 3, 2], 130, "bad76708b052"),
            ([41, 51, 72], [2], [3, 2, 1], 125, "a492dd53a870"),
            ([57, 77, 42], [1], [2, 1, 3], 125, "fd20e5650722"),
        ],
    ),
    "kk5any": (
        dict(table=("kardinal_koenig", 5, {"discard": "any"}), seed=4, games=5, agents=["random"]),
        [
            ([38, 29, 29, 27, 27], [0], [1, 2, 2, 4, 4], 150, "025c57e3788f"),
            ([23, 35, 26, 25, 26], [1], [5, 1, 2, 4, 2], 143, "bd5ee3514607"),
            ([26, 27, 24, 29, 18], [3], [3, 2, 4, 1, 5], 149, "d40bc80972b0"),
            ([28, 30, 37, 23, 25], [2], [3, 2, 1, 5, 4], 143, "7f05babae364"),
            ([37, 45, 32, 29, 48], [4], [3, 2, 4, 5, 1], 148, "18828ce6eaf8"),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(FROZEN))
def test_seeded_results_are_the_same_as_before_the_split(case):
    run, expected = FROZEN[case]
    game, players, options = run["table"]
    results = evaluate(run["agents"], Table.of(game, players, **options), games=run["games"], seed=run["seed"])
    assert _fingerprint(results) == expected
    for g in results["games"]:
        assert g["finishing_order"][0] == g["winners"]  # the engine's first place is its winners
        assert ranks_from_order(g["finishing_order"], players) == g["ranks"]
        assert "cathedral_touches" not in g and "chips" not in g  # no per-game fields of one game


# ---------------------------------------------------------------------------------------- Table
def test_table_comes_from_the_registry_and_checks_the_rules():
    table = Table.of("kardinal_koenig", 5, discard="any")
    assert table.spec is get_game("kardinal_koenig") and table.players == 5 and table.name == "kardinal_koenig"
    assert table.rules.to_dict()["discard"] == "any"
    default = Table.of()
    assert default.spec is get_game("kardinal") and default.players == get_game("kardinal").default_players
    assert Table.from_rules(table.rules).players == 5 and Table.from_rules(table.rules).spec is table.spec
    with pytest.raises(ValueError, match=r"kardinal plays 2-4 players, got 5"):
        Table.of("kardinal", 5)
    with pytest.raises(ValueError, match=r"kardinal has no rule option\(s\) \['discard'\]"):
        Table.of("kardinal", discard="one")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        Table.of("chess")
    with pytest.raises(ValueError, match="kardinal_koenig plays 3-5 players, got 2"):
        Table(get_game("kardinal_koenig"), table.rules, 2)
    with pytest.raises(TypeError, match="Table.spec must be a GameSpec"):
        Table("kardinal", table.rules, 2)


def test_evaluate_takes_a_game_name_as_its_table():
    res = evaluate(["random"], "kardinal_koenig", games=1, seed=0, keep_moves=False)
    assert res["options"]["game"] == "kardinal_koenig" and res["options"]["players"] == 4
    assert res["options"]["backend"] == "serial" and res["options"]["workers"] == 1
    assert (
        format_table(res).splitlines()[0].startswith("1 games, 4 players, Kardinal & König, discard one, board default")
    )


def test_ranks_from_order():
    assert ranks_from_order([[2], [0, 1], [3]], 4) == [2, 2, 1, 4]
    assert ranks_from_order([[0, 1, 2]], 3) == [1, 1, 1]
    with pytest.raises(ValueError, match="does not place each of the 3 seats once"):
        ranks_from_order([[0], [1]], 3)


# ---------------------------------------------------------------------------------------- back-ends
def test_backends_check_their_arguments():
    for make, needle in [
        (lambda: ProcessPool(0), "workers must be a positive integer, got 0"),
        (lambda: ProcessPool(2, torch_threads=0), "torch_threads must be a positive integer, got 0"),
        (lambda: Serial(torch_threads=-1), "torch_threads must be a positive integer, got -1"),
        (lambda: RayTasks(""), "address must be"),
        (lambda: RayTasks("local", workers=True), "workers must be a positive integer, got True"),
        (lambda: RayTasks("local", chunks=0), "chunks must be a positive integer, got 0"),
    ]:
        with pytest.raises(ValueError, match=needle):
            make()
    assert isinstance(Serial(), Backend) and Serial().in_process and not ProcessPool(2).in_process
    with pytest.raises(TypeError, match="backend must be a Backend"):
        evaluate(["random"], games=1, backend="serial")
    with pytest.raises(ValueError, match="agent objects can only be evaluated with the serial back-end"):
        from agents.baselines.random import RandomAgent

        evaluate([RandomAgent(seed=0), "random"], games=2, backend=ProcessPool(2))


def test_worker_plays_a_game_like_evaluate():
    """The worker module is public: one game of a Setup, the same as game 1 of a serial run."""
    table = Table.of("kardinal", 2)
    setup = Setup(table.spec, table.rules.to_dict(), seed=3, participants=("greedy", "random"))
    one = Worker(setup).play(GameTask(1))
    run = evaluate(["greedy", "random"], table, games=2, seed=3)
    expected = {k: v for k, v in run["games"][1].items() if k not in ("seconds", "agents")}
    assert {k: v for k, v in one.items() if k != "seconds"} == expected


# ---------------------------------------------------------------------------------------- third game
@pytest.fixture
def nim():
    with third_game.registered() as spec:
        yield spec


def test_third_game_goes_through_evaluate_with_random_and_mcts(nim, tmp_path):
    table = Table.of("nim", 3, pile="10")
    serial = evaluate(["mcts:16", "random"], table, games=3, seed=2, save_games=1)
    assert serial["options"]["game"] == "nim" and serial["labels"] == ["mcts:16", "random", "random#2"]
    assert serial["options"]["rules"] == {"players": 3, "pile": 10, "max_take": 3, "misere": False}
    for g in serial["games"]:
        game = third_game.NimGame(third_game.NimRules(players=3, pile=10))
        for move in g["moves"]:
            game.play(move)
        assert game.is_over and g["scores"] == game.scores() and g["winners"] == game.winners()
        assert g["finishing_order"] == game.finishing_order()  # Nim's own tie-break: stones taken
        assert g["ranks"] == ranks_from_order(game.finishing_order(), 3)
    assert sum(row["wins"] for row in serial["summary"]) == pytest.approx(3)
    assert format_table(serial).splitlines()[0].startswith("3 games, 3 players, Nim, pile 10, seed 2")
    paths = write_outputs(serial, tmp_path)
    saved = json.loads((tmp_path / "results.json").read_text())["games"][0]
    assert saved["record_file"] == "games/game_0000.json" and "replay_file" not in saved  # Nim has no HTML replay
    assert third_game.NimGame.from_record(json.loads(open(paths["records"][0]).read())).history == saved["moves"]
    # the worker processes do not know Nim: it travels with the run and is registered there
    pooled = evaluate(["mcts:16", "random"], table, games=3, seed=2, save_games=1, backend=ProcessPool(2))
    assert pooled["options"]["backend"] == "processes" and pooled["options"]["workers"] == 2
    for a, b in zip(serial["games"], pooled["games"], strict=True):
        assert {**a, "seconds": None} == {**b, "seconds": None}


def test_evaluate_cli_generates_the_rules_flags_from_the_registry(nim, capsys, tmp_path):
    parser = tournament.build_parser()
    flags = {flag for action in parser._actions for flag in action.option_strings}
    assert {"--preset", "--shared-pool", "--discard", "--board", "--pile", "--misere"} <= flags
    game_action = next(a for a in parser._actions if "--game" in a.option_strings)
    assert list(game_action.choices) == ["kardinal", "kardinal_koenig", "nim"] and game_action.default == "kardinal"
    out = tmp_path / "nim"
    assert tournament.main(["--game", "nim", "--agents", "greedy", "random", "--pile", "7", "--misere", "--games", "2",
                            "--quiet", "--out", str(out)]) == 0  # fmt: skip
    data = json.loads((out / "results.json").read_text())
    assert data["options"]["rules"] == {"players": 2, "pile": 7, "max_take": 3, "misere": True}
    assert "Nim, pile 7, misere" in capsys.readouterr().out
    for argv, needle in [
        (["--pile", "7"], "--pile is an option of nim, not kardinal"),
        (["--game", "nim", "--preset", "german"], "--preset is an option of kardinal, not nim"),
        (["--game", "nim", "--discard", "any"], "--discard is an option of kardinal_koenig, not nim"),
        (["--game", "nim", "--players", "4"], None),
    ]:
        if needle is None:
            assert tournament.main(["--agents", "random", *argv, "--games", "1", "--quiet"]) == 2
            assert "nim plays 2-3 players, got 4" in capsys.readouterr().err
            continue
        with pytest.raises(SystemExit) as info:
            tournament.main(["--agents", "random", *argv])
        assert info.value.code == 2 and needle in capsys.readouterr().err


def test_nim_is_gone_after_the_test():
    """Registered from the tests only: without the fixture the command line has no Nim flags."""
    help_text = tournament.build_parser().format_help()
    assert "--pile" not in help_text and "{kardinal,kardinal_koenig}" in help_text
    unregister_game("nim")  # harmless when it is not there
