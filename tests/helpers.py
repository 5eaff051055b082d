"""Small helpers shared by the engine tests (not a test module)."""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import NamedTuple

from kardinal_env.kardinal import Game, Rules

#: Set by scripts/test.sh, where setup builds the compiled core: its tests must run, not skip.
REQUIRE_CORE = os.environ.get("KARDINAL_REQUIRE_CORE") == "1"


def kardinal_core_or_skip():
    """The compiled core module ``kardinal_core``; the test is skipped (with the reason) when it is
    not built, and fails instead under ``KARDINAL_REQUIRE_CORE=1``."""
    import pytest

    if importlib.util.find_spec("kardinal_core") is None:
        reason = "kardinal_core is not built (bash scripts/setup.sh, or pip install ./cpp)"
        if REQUIRE_CORE:
            pytest.fail(f"KARDINAL_REQUIRE_CORE=1 but {reason}")
        pytest.skip(reason)
    return importlib.import_module("kardinal_core")


def koenig_search_core_or_skip(what: str):
    """``kardinal_core`` for a test of the compiled K&K heuristic or its rollouts (``what``); skipped
    where the core is not built or the Python backend is chosen (the heuristic then plays in Python)."""
    import pytest

    from agents.search import koenig_compiled
    from kardinal_env.core.backend import BACKEND_VARIABLE

    module = kardinal_core_or_skip()
    if koenig_compiled.heuristic_core() is None:
        pytest.skip(f"{BACKEND_VARIABLE}=python: the {what} play in Python")
    return module


def play(game: Game, moves) -> Game:
    """Play ``moves`` (notation strings) in order; an illegal one fails with the position shown."""
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except Exception as exc:  # pragma: no cover - a broken fixture, report it readably
            raise AssertionError(
                f"fixture move {i} {move!r} failed: {exc}\nlegal now: {game.legal_moves()[:40]}"
            ) from exc
    return game


def new_game(players: int = 4, moves=(), **options) -> Game:
    """A game with ``Rules(players=players, **options)`` after ``moves``."""
    return play(Game(Rules(players=players, **options)), moves)


def bounding_box(game: Game) -> tuple[int, int, int, int]:
    """(min x, max x, min y, max y) over every building square."""
    squares = [sq for b in game.buildings() for sq in b.squares]
    xs = [x for x, _ in squares]
    ys = [y for _, y in squares]
    return min(xs), max(xs), min(ys), max(ys)


def lockstep_games(lockstep, module, variants, games: int, seed0: int, min_length: int) -> None:
    """``games`` seeded games through ``lockstep(module, rules, seed)`` (a core test's engine-against-core
    driver, returning the game's length), cycling over ``variants``; every game longer than ``min_length``."""
    lengths = [lockstep(module, variants[i % len(variants)], seed0 + i) for i in range(games)]
    assert min(lengths) > min_length


def step_in_lockstep(envs: list, steps: int, seed: int, same) -> None:
    """Reset the batched environments ``envs`` (``kardinal_env.vector.VectorEnv``) and step them all
    with the same random legal actions (drawn for the first, seeded by ``seed``) for ``steps`` steps;
    after every step ``same(envs[0], env, where)`` compares each other env with the first."""
    import numpy as np

    for env in envs:
        env.reset()
    rng = np.random.default_rng(seed)
    for step in range(steps):
        actions = envs[0].random_actions(rng)
        for env in envs:
            env.step(actions)
        for env in envs[1:]:
            same(envs[0], env, f"threads={env.threads} step {step}")


def check_decisions_as_aec(env, envs: list, where: str) -> None:
    """Each game of the vector ``env`` at the decision of its AEC twin ``envs[i]``: the seat to act, the
    observation, the mask and the legal ids."""
    import numpy as np

    for i, aec in enumerate(envs):
        agent = aec.agent_selection
        seat = aec.agent_name_mapping[agent]
        assert env.current_player[i] == seat, f"{where} game {i}: seat to act"
        expected = aec.observe(agent)
        assert env.observation[i].tobytes() == expected["observation"].tobytes(), f"{where} game {i}: observation"
        assert np.array_equal(env.action_mask[i], expected["action_mask"].astype(bool)), f"{where} game {i}: mask"
        assert env.legal_actions(i).tolist() == aec.legal_actions().tolist(), f"{where} game {i}: legal ids"


def step_as_aec(env, envs: list, actions, where: str):
    """Step the vector ``env`` and each of its AEC twins ``envs`` with ``actions``; each game's rewards and
    termination (never a truncation) are its twin's, and so are the final observation and final info of
    a game that ended. Returns the step's output and the indices of the games that ended (their AEC envs
    not yet reset)."""
    import numpy as np

    movers = [aec.agent_selection for aec in envs]
    out = env.step(actions)
    ended = []
    for i, aec in enumerate(envs):
        at = f"{where} game {i}"
        aec.step(int(actions[i]))
        expected = np.array([aec.rewards[a] for a in aec.possible_agents], dtype=np.float32)
        assert np.array_equal(out.rewards[i], expected), f"{at}: rewards {out.rewards[i]} != {expected}"
        done = aec.terminations[movers[i]]
        assert bool(out.terminated[i]) == done and not out.truncated[i], at
        if not done:
            assert i not in out.info["final_info"], at
            continue
        ended.append(i)
        final = aec.observe(movers[i])["observation"]
        assert out.info["final_observation"][i].tobytes() == final.tobytes(), at
        seat = aec.agent_name_mapping[movers[i]]
        assert out.info["final_info"][i] == {
            **aec.infos[movers[i]],
            "move_count": aec.game.move_count,
            "last_player": seat,
        }, at
    return out, ended


def stepped_vector_env(game: str, backend: str, players: int, steps: int, num_envs: int = 3):
    """A ``VectorEnv`` of ``num_envs`` games (seed 1) after ``steps`` steps of random legal actions
    (seed 2): a position mid-game for the bad-input tests."""
    import numpy as np

    from kardinal_env.vector import VectorEnv

    env = VectorEnv(game, num_envs, players, seed=1, backend=backend)
    env.reset()
    rng = np.random.default_rng(2)
    for _ in range(steps):
        env.step(env.random_actions(rng))
    return env


#: A Kardinal training config that runs one tiny iteration in a second or two (2 players, a 4-channel
#: network, 60 learner steps, no evaluations); tests add or override keys.
TINY_TRAINING = {
    "players": 2,
    "channels": 4,
    "blocks": 1,
    "hidden": 8,
    "num_envs": 3,
    "steps_per_iter": 60,
    "total_steps": 60,
    "progress": False,
    "track": False,
    "eval_games": 0,
    "final_eval_games": 0,
}


def tiny_run(game: str, **options) -> dict:
    """A small training run's options for a test of ``game``: no progress bars and no TensorBoard logs,
    4 envs of 100 steps an iteration, a 16-wide network, 2 evaluation games every iteration and 2 at the
    end; ``options`` add or override."""
    return {
        "game": game,
        "num_envs": 4,
        "steps_per_iter": 100,
        "hidden": 16,
        "eval_interval": 1,
        "eval_games": 2,
        "final_eval_games": 2,
        "track": False,
        "progress": False,
        **options,
    }


def tiny_training_checkpoint(path, config: dict, step: int) -> str:
    """Write a tiny 2-player Kardinal training checkpoint (a 4-channel network, with its optimizer's
    state, as a training run leaves one) with ``config`` and ``step`` at ``path``; returns the path."""
    import torch

    from agents.networks.checkpoint import make_checkpoint, write_checkpoint
    from agents.training.adapters import make_adapter
    from agents.training.config import make_config

    cfg = make_config(("test", {"game": "kardinal", "players": 2, "channels": 4, "blocks": 1, "hidden": 8}))
    adapter = make_adapter(cfg)
    net = adapter.build_net()
    optimizer = torch.optim.Adam(net.parameters())
    ckpt = make_checkpoint(adapter.spec, adapter.rules, net, config=config, step=step, optimizer=optimizer.state_dict())
    return write_checkpoint(ckpt, path)


class CliResult(NamedTuple):
    """What a command line's ``main(argv)`` gave, in-process: the fields of ``subprocess.CompletedProcess``."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(main, argv: list[str], capsys, monkeypatch, stdin: str | None = None) -> CliResult:
    """A command line's ``main(argv)`` in-process, as its console script runs it (the ``cli`` fixture of
    tests/conftest.py): its exit status, an argparse error or ``sys.exit`` included, and what it wrote
    (``stdin``: the text it reads)."""
    import io
    import sys

    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    out, err = capsys.readouterr()
    return CliResult(code or 0, out, err)


def script_main(name: str):
    """The ``main`` of ``scripts/NAME.py`` (the scripts only parse arguments), imported from its file to be
    called in-process with the ``cli`` fixture."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def train_rllib_args(**flags) -> list[str]:
    """``scripts/train_rllib.py`` arguments from ``name=value`` flags: ``--name-with-dashes value`` (a list
    value gives several words)."""
    args: list[str] = []
    for name, value in flags.items():
        args += [f"--{name.replace('_', '-')}", *map(str, value if isinstance(value, list) else [value])]
    return args
