"""Bad input to every training / evaluation entry point: the scripts' arguments, config keys and values,
checkpoints (truncated, random bytes, empty, wrong dict, other env / layout, missing) and agent specs.
Each case asserts that the message names the problem and that nothing hangs: the command lines run
in-process (``main(argv)``, the ``cli`` fixture) under the module's timeout and finish before anything
trains or plays."""

from __future__ import annotations

import dataclasses
import os

import pytest
import torch

from agents import AgentSpecError, load_agent
from agents.evaluation import tournament as evaluation_mod
from agents.evaluation.backends import ProcessPool, Serial
from agents.networks.checkpoint import CheckpointError, read_checkpoint
from agents.networks.kardinal_net import KardinalNet, current_layout
from agents.serving import play as play_mod
from agents.training import run as train_mod
from agents.training.config import TrainConfig
from kardinal_env.kardinal import Game, Rules

pytestmark = pytest.mark.timeout(600)


def _checkpoint(**changes) -> dict:
    net = KardinalNet(8, 1, 16)
    cfg = TrainConfig(channels=8, blocks=1, hidden=16, total_steps=10, progress=False, track=False)
    ckpt = {
        "model": net.state_dict(),
        "model_config": dict(net.config),
        "config": dataclasses.asdict(cfg),
        "env": "kardinal_v0",
        "layout": current_layout(),
        "rules": Rules(players=2).to_dict(),
        "step": 0,
        "iteration": 0,
    }
    ckpt.update(changes)
    return ckpt


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    """Good and bad checkpoint files: name -> (path, what the message must say)."""
    d = tmp_path_factory.mktemp("ckpts")
    good = d / "good.pt"
    torch.save(_checkpoint(), good)
    raw = good.read_bytes()
    files = {
        "truncated": (raw[: len(raw) // 2], "truncated or damaged torch file"),
        "random": (os.urandom(4096), "not a torch checkpoint file"),
        "empty": (b"", "empty file"),
    }
    out = {"good": (good, None)}
    for name, (data, why) in files.items():
        (d / f"{name}.pt").write_bytes(data)
        out[name] = (d / f"{name}.pt", why)
    dicts = {
        "no_model_config": ({"model": _checkpoint()["model"]}, "no 'model_config' key"),
        "not_a_dict": ([1, 2, 3], "holds a list"),
        "other_env": (_checkpoint(env="connect_four_v3"), "made for env 'connect_four_v3'"),
        "other_layout": (
            _checkpoint(layout=dict(current_layout(), observation_channels=64, window=9)),
            "observation_channels 64 (checkpoint) vs 72",
        ),
        "bad_weights": (
            _checkpoint(model_config={"channels": 16, "blocks": 1, "hidden": 16}),
            "weights do not fit model_config",
        ),
        "bad_model_config": (_checkpoint(model_config="big"), "'model_config' must be"),
    }
    for name, (obj, why) in dicts.items():
        torch.save(obj, d / f"{name}.pt")
        out[name] = (d / f"{name}.pt", why)
    out["missing"] = (d / "missing.pt", "no such file")
    out["directory"] = (d, "a directory")
    return out


BAD = [
    "truncated",
    "random",
    "empty",
    "no_model_config",
    "not_a_dict",
    "other_env",
    "other_layout",
    "bad_weights",
    "bad_model_config",
]


# ---------------------------------------------------------------------- checkpoints: library
@pytest.mark.parametrize("name", BAD + ["missing", "directory"])
def test_read_checkpoint_names_path_and_problem(ckpts, name):
    path, why = ckpts[name]
    with pytest.raises(CheckpointError) as info:
        read_checkpoint(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: not a kardinal-env checkpoint (") and why in msg, msg


def test_checkpoint_without_layout_is_refused_not_taken_on_faith(ckpts, tmp_path):
    ckpt = _checkpoint()
    del ckpt["layout"]
    torch.save(ckpt, tmp_path / "legacy.pt")
    with pytest.raises(CheckpointError, match="no 'layout' key"):
        read_checkpoint(tmp_path / "legacy.pt")


@pytest.mark.parametrize("name", BAD)
@pytest.mark.parametrize("kind", ["ppo", "puct"])
def test_load_agent_raises_agent_spec_error(ckpts, name, kind):
    path, why = ckpts[name]
    spec = f"ppo:{path}" if kind == "ppo" else f"puct:4:{path}"
    with pytest.raises(AgentSpecError) as info:
        load_agent(spec)
    assert str(info.value).startswith(f"{spec}: not a kardinal-env checkpoint (") and why in str(info.value)


def test_good_checkpoint_loads_and_warns_across_player_counts(ckpts):
    from agents import check_spec

    path, _ = ckpts["good"]
    assert check_spec(f"ppo:{path}", players=2) == []
    (msg,) = check_spec(f"ppo:{path}", players=3)
    assert "trained for 2-player games" in msg and "3-player games" in msg


# ---------------------------------------------------------------------- evaluator
@pytest.mark.parametrize("name", BAD)
def test_evaluate_checks_checkpoints_before_any_worker(ckpts, name, capsys):
    path, why = ckpts[name]
    rc = evaluation_mod.main(["--agents", f"ppo:{path}", "greedy", "--games", "4", "--workers", "2", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith(f"error: ppo:{path}: not a kardinal-env checkpoint (") and why in err, err
    assert err.strip() == err.strip().splitlines()[-1]  # one line, no traceback, and no hang (the pool used
    # to restart forever the workers whose initializer died on the truncated checkpoint)


def test_evaluate_worker_failures_end_the_run_with_one_error(ckpts):
    """A failure inside worker processes (building the agents, or in a game) ends the run with one error."""
    path, _ = ckpts["good"]
    specs = [f"ppo:{path}", f"ppo:{path}"]
    with pytest.raises(evaluation_mod.EvaluationError, match="building the agents failed: TypeError: .*bogus"):
        evaluation_mod.evaluate(specs, games=4, backend=ProcessPool(2), agent_kwargs={"bogus": 1})
    # with two workers, whichever game fails first is reported (all fail the same way)
    with pytest.raises(evaluation_mod.EvaluationError, match=r"game [0-3]: ValueError: window 5"):
        evaluation_mod.evaluate(specs, games=4, backend=ProcessPool(2), agent_kwargs={"window": 5})
    with pytest.raises(evaluation_mod.EvaluationError, match="game 0: ValueError: window 5"):
        evaluation_mod.evaluate(specs, games=4, agent_kwargs={"window": 5})


def test_an_agent_whose_setup_failed_fails_the_same_way_again(ckpts):
    """A bad window fails every game with the same clear error (the evaluator reuses an agent across
    the games of a worker: its second game used to fail with an AttributeError instead)."""
    path, _ = ckpts["good"]
    agent = load_agent(f"ppo:{path}", window=5)
    rules = Rules(players=2)  # one rules object for both games, as a worker's table has
    for _ in range(2):
        with pytest.raises(ValueError, match="window 5"):
            agent.select_move(Game(rules))


def test_evaluate_warns_about_player_count_once(ckpts, capsys):
    path, _ = ckpts["good"]
    rc = evaluation_mod.main(
        ["--agents", f"ppo:{path}", "greedy", "--players", "3", "--games", "3", "--quiet", "--no-moves"]
    )
    captured = capsys.readouterr()
    assert rc == 0
    expected = f"warning: ppo:{path} was trained for 2-player games and is used in 3-player games"
    assert captured.err.count(expected) == 1 and expected in captured.out  # at the start and under the table


#: (argv, what stderr says): agent specs and games that main refuses (it returns 2), run with "--games 2 --quiet"
BAD_SPECS = [
    (["--agents", "foo"], "unknown agent spec 'foo'"),
    (["--agents", "mcts:abc"], "bad agent spec 'mcts:abc'"),
    (["--agents", "mcts:0"], "bad agent spec 'mcts:0'"),
    (["--agents", "ppo:"], "bad agent spec 'ppo:'"),
    (["--agents", "puct:x:y.pt"], "bad agent spec 'puct:x:y.pt'"),
    (["--agents", "ppo:no/such.pt", "greedy"], "no checkpoint file 'no/such.pt'"),
    (["--agents", "greedy", "random", "random"], "3 agents do not fit in a 2-player game"),
    (["--agents", "greedy", "--shared-pool"], "shared_pool"),
    (["--agents", "greedy", "--players", "5"], "kardinal plays 2-4 players, got 5"),
    (
        ["--agents", "greedy", "--game", "kardinal_koenig", "--players", "2"],
        "kardinal_koenig plays 3-5 players, got 2",
    ),
    (
        ["--agents", "mcts:5", "--game", "kardinal_koenig"],
        "agent spec 'mcts:5' needs a game of perfect information; kardinal_koenig hides information",
    ),
    (["--agents", "greedy", "--game", "kardinal_koenig", "--board", "nope"], "board"),
]
#: (argv, what stderr says): arguments argparse refuses (exit status 2), run after "--agents greedy"
BAD_ARGUMENTS = [
    (["--games", "0"], "argument --games: expected a positive integer, got 0"),
    (["--games", "x"], "argument --games: expected an integer, got 'x'"),
    (["--workers", "0"], "argument --workers: expected a positive integer, got 0"),
    (["--seed", "-1"], "argument --seed: expected an integer >= 0, got -1"),
    (["--torch-threads", "0"], "argument --torch-threads: expected a positive integer"),
    (["--players", "6"], "argument --players: invalid choice"),
    (["--game", "chess"], "argument --game: invalid choice"),
    (["--discard", "any"], "--discard is an option of kardinal_koenig, not kardinal"),
    (["--game", "kardinal_koenig", "--preset", "german"], "--preset is an option of kardinal, not kardinal_koenig"),
    (["--game", "kardinal_koenig", "--shared-pool"], "--shared-pool is an option of kardinal, not kardinal_koenig"),
    (["--preset", "french"], "argument --preset: invalid choice: 'french'"),
    (["--save-games", "1"], "--save-games needs --out DIR"),
    (["--save-games", "5", "--games", "2", "--out", "x"], "--save-games 5 is more than --games 2"),
    (["--save-games", "-1"], "argument --save-games: expected an integer >= 0"),
]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [(argv + ["--games", "2", "--quiet"], needle) for argv, needle in BAD_SPECS]
    + [(["--agents", "greedy", *argv], needle) for argv, needle in BAD_ARGUMENTS],
)
def test_evaluate_bad_specs_and_arguments(argv, needle, cli):
    result = cli(evaluation_mod.main, argv)
    assert result.returncode == 2 and needle in result.stderr


def test_evaluate_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(SystemExit):
        evaluation_mod.main(["--agents", "greedy", "--out", str(f)])
    assert "exists and is not a directory" in capsys.readouterr().err


def test_evaluate_library_rejects_bad_numbers():
    for kw, needle in [
        ({"games": 0}, "games must be an integer >= 1, got 0"),
        ({"save_games": 3, "games": 2}, "save_games (3) cannot exceed games (2)"),
        ({"seed": -2}, "seed must be an integer >= 0, got -2"),
        ({"save_games": True}, "save_games must be an integer >= 0, got True"),
    ]:
        with pytest.raises(ValueError) as info:
            evaluation_mod.evaluate(["greedy"], **kw)
        assert needle in str(info.value)
    for make, needle in [
        (lambda: ProcessPool(0), "workers must be a positive integer, got 0"),
        (lambda: Serial(torch_threads=0), "torch_threads must be a positive integer, got 0"),
    ]:
        with pytest.raises(ValueError) as info:
            make()
        assert needle in str(info.value)


# ---------------------------------------------------------------------- trainer
@pytest.mark.parametrize("name", BAD + ["missing"])
def test_train_resume_checks_the_checkpoint(ckpts, name, capsys):
    path, why = ckpts[name]
    assert train_mod.main(["--resume", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --resume {path}: not a kardinal-env checkpoint (") and why in err, err


def test_train_resume_refuses_another_network_shape(ckpts, capsys):
    path, _ = ckpts["good"]
    assert train_mod.main(["--resume", str(path), "--set", "channels=16"]) == 2
    err = capsys.readouterr().err
    assert "(channels, blocks, hidden) cannot change when resuming" in err and "channels': 16" in err
    with pytest.raises(CheckpointError, match="truncated"):
        train_mod.train(resume=str(ckpts["truncated"][0]))


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--set", "progress=flase"], "config key 'progress' (--set): 'flase' is not allowed (not a boolean)"),
        (["--set", "greedy_share=1.5"], "config key 'greedy_share' (--set): '1.5' is not allowed"),
        (["--set", "greedy_share=0.7", "--set", "random_share=0.7"], "must sum to at most 1"),
        (["--set", "total_steps=abc"], "config key 'total_steps' (--set): 'abc' is not allowed (not a number)"),
        (["--set", "num_envs=0"], "config key 'num_envs' (--set): '0' is not allowed; expected a positive integer"),
        (["--set", "reward=winloss"], "config key 'reward' (--set): 'winloss' is not allowed; expected one of"),
        (
            ["--set", "score_shaping=-0.1"],
            "config key 'score_shaping' (--set): '-0.1' is not allowed; expected a number >= 0",
        ),
        (["--config", "missing.yaml"], "config file 'missing.yaml' does not exist"),
        (["--num_envs", "-1"], "config key 'num_envs' (--num_envs): '-1'"),
        (["--set", "nosuchkey=1"], "unknown config key 'nosuchkey'"),
    ],
)
def test_train_bad_options_fail_before_training(argv, needle, capsys, tmp_path):
    assert train_mod.main(argv + ["--set", f"runs_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and needle in err, err
    assert not any(tmp_path.iterdir())  # nothing ran: no run directory


def test_train_library_rejects_bad_config():
    from agents.training.config import ConfigError

    with pytest.raises(ConfigError, match="'num_envs'"):
        train_mod.train({"num_envs": 0})
    with pytest.raises(ConfigError, match="unknown config key 'bogus'"):
        train_mod.train(bogus=1)
    with pytest.raises(ConfigError, match="TrainConfig or a dict"):
        train_mod.train(["total_steps", 1])


@pytest.mark.parametrize(
    ("text", "needle"),
    [("a: [1, 2\n", "is not valid YAML"), ("- 1\n- 2\n", "must be a mapping of config keys to values")],
)
def test_train_script_bad_yaml(tmp_path, text, needle, cli):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    out = cli(train_mod.main, ["--config", str(path)])
    assert out.returncode == 2 and f"config file '{path}' {needle}" in out.stderr and "Traceback" not in out.stderr


def test_train_script_help_documents_every_option(cli):
    out = cli(train_mod.main, ["--help"])
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    for f in dataclasses.fields(TrainConfig):
        assert f"--{f.name}" in text and " ".join(f.metadata["help"].split())[:40] in text, f.name


def test_train_script_bad_value_and_corrupt_resume(ckpts, cli):
    out = cli(train_mod.main, ["--set", "progress=flase"])
    assert out.returncode == 2 and "'progress'" in out.stderr and "Traceback" not in out.stderr
    path, _ = ckpts["random"]
    out = cli(train_mod.main, ["--resume", str(path)])
    assert out.returncode == 2 and f"--resume {path}: not a kardinal-env checkpoint" in out.stderr


# ---------------------------------------------------------------------- play
@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--agents", "foo"], "unknown agent spec 'foo'"),
        (["--seat", "2"], "--seat must be 0..1"),
        (["--agents", "greedy", "random"], "2 agent specs for 1 other seats"),
        (["--save", "/no/such/dir/g.json"], "--save '/no/such/dir/g.json': cannot write a file there"),
    ],
)
def test_play_bad_arguments(argv, needle, capsys):
    assert play_mod.main(argv) == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize("name", ["truncated", "random", "other_env"])
def test_play_corrupt_checkpoint(ckpts, name, capsys):
    path, why = ckpts[name]
    assert play_mod.main(["--agents", f"ppo:{path}"]) == 2
    err = capsys.readouterr().err
    assert f"error: ppo:{path}: not a kardinal-env checkpoint (" in err and why in err


def test_play_script_corrupt_checkpoint(ckpts, cli):
    path, _ = ckpts["empty"]
    out = cli(play_mod.main, ["--agents", f"ppo:{path}"], stdin="quit\n")
    assert out.returncode == 2 and f"ppo:{path}: not a kardinal-env checkpoint (empty file)" in out.stderr
