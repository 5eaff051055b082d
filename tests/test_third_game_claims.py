"""The documentation's claims, checked on a game registered from outside the package (Nim,
``tests/third_game.py``, whose agents' entry lists only ``greedy``, and copies that have no agents' entry):

* ``random`` (and ``mcts:N`` on a game of perfect information, ``ismcts:N`` on any game) plays every
  registered game without the entry listing it — ``load_agent``, ``parse_spec``, ``check_spec``, the
  training adapters, the trainer's evaluation and the Gymnasium view agree (one definition:
  ``agents.registry.GENERIC_BASELINES``);
* the Gymnasium view's render modes are the game's;
* the command-line tools load a game registered by a module of one's own (``--plugin``,
  ``KARDINAL_ENV_PLUGINS``);
* the protocol's ``play`` raises ``IllegalMoveError`` and ``winners()`` raises ``RuntimeError`` before the end;
* the trainer's config messages say what is missing for ``greedy_share`` and ``bc_games``."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import third_game
from third_game import NimGreedyAgent

import agents
from agents import AgentSpecError, check_spec, load_agent, parse_spec
from agents.baselines.random import RandomAgent
from agents.registry import GameAgents, game_agents
from kardinal_env.core import registry
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.protocol import GameState
from kardinal_env.core.single_agent import VsBots, render_modes

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "third_game:register"  # Nim and its agents (greedy)


@pytest.fixture
def nim():
    with third_game.registered() as spec:
        yield spec


def _copy(spec: registry.GameSpec, name: str, **changes) -> registry.GameSpec:
    """``spec`` under another name, record format and ids (so both can be registered at once)."""
    fields = dict(name=name, record_format=f"{name}-record/1", env_id=None, gym_id=None)
    return dataclasses.replace(spec, **{**fields, **changes})


@pytest.fixture
def bare(nim):
    """Nim without an agents' entry (no baseline listed at all)."""
    spec = registry.register_game(_copy(nim, "nim_bare"))
    yield spec
    registry.unregister_game(spec.name)


@pytest.fixture
def hidden(nim):
    """Nim that says it hides information from the seats (so ``mcts:N`` is refused)."""
    spec = registry.register_game(_copy(nim, "nim_hidden", perfect_information=False))
    yield spec
    registry.unregister_game(spec.name)


@pytest.fixture
def no_env_plugins(monkeypatch):
    """No ``KARDINAL_ENV_PLUGINS`` (restored after the test, whatever a tool adds to it) and the
    registry's once-only reading of it armed again."""
    monkeypatch.delenv(registry.PLUGINS_ENV, raising=False)
    monkeypatch.setattr(registry, "_ENV_PLUGINS_LOADED", False)
    yield
    third_game.unregister()


def _play_out(spec: registry.GameSpec, players: list, seed: int = 0, pile: str = "10"):
    game = spec.new_game(spec.rules(players=len(players), pile=pile), seed=seed)
    while not game.is_over:
        move = players[game.current_player].select_move(game)
        assert move in game.legal_moves()
        game.play(move)
    return game


# ---------------------------------------------------------------- game-independent agents


def test_random_is_a_baseline_of_every_game_without_listing_it(nim, bare):
    listed, unlisted = game_agents(nim), game_agents(bare)
    assert "random" not in listed.baselines and unlisted.baselines == {}
    assert listed.baseline_kinds == ["greedy", "random"] and unlisted.baseline_kinds == ["random"]
    assert listed.has_baseline("random") and unlisted.has_baseline("random") and not unlisted.has_baseline("greedy")
    assert listed.baseline("random") is unlisted.baseline("random") is RandomAgent
    assert game_agents("kardinal").baseline("random") is RandomAgent
    with pytest.raises(KeyError, match=r"nim_bare has no baseline 'greedy'; its baselines: \['random'\]"):
        unlisted.baseline("greedy")
    for game in ("nim", "nim_bare", bare, None):
        assert parse_spec("random", game) == ("random", None, None)
        assert check_spec("random", players=2, game=game) == []
    with pytest.raises(AgentSpecError, match=r"'greedy' is not a baseline of nim_bare; its baselines: \['random'\]"):
        load_agent("greedy", game="nim_bare")


@pytest.mark.parametrize("text", ["random", "mcts:20", "ismcts:20"])
@pytest.mark.parametrize("game", ["nim_bare", "nim"])
def test_game_independent_agents_load_and_play_a_whole_game(nim, bare, text, game):
    spec = registry.get_game(game)
    assert check_spec(text, players=3, game=spec) == []
    seats = [load_agent(text, game=game, seed=s) for s in range(3)]
    if text == "random":
        assert all(type(agent) is RandomAgent for agent in seats)
    finished = _play_out(spec, seats)
    assert finished.is_over and set(finished.winners()) <= {0, 1, 2}
    # without naming the game: random picks the game's class at its first move
    anywhere = load_agent(text, seed=0)
    if text == "random":
        assert isinstance(anywhere, agents.BaselineAgent)
    assert _play_out(spec, [anywhere, RandomAgent(seed=1)]).is_over


def test_mcts_needs_perfect_information_ismcts_and_random_do_not(hidden):
    with pytest.raises(AgentSpecError, match=r"'mcts:20' needs a game of perfect information.*try 'ismcts:20'"):
        load_agent("mcts:20", game=hidden)
    seats = [load_agent("ismcts:20", game=hidden, seed=0), load_agent("random", game=hidden, seed=1)]
    assert _play_out(hidden, seats).is_over


def test_an_entry_may_list_random_only_as_the_generic_agent():
    same = GameAgents(game="nim_listed", baselines={"random": "agents.baselines.random:RandomAgent"})
    assert same.baseline("random") is RandomAgent
    assert GameAgents(game="nim_object", baselines={"random": RandomAgent}).baseline("random") is RandomAgent
    with pytest.raises(ValueError, match=r"baselines\['random'\] must be every game's random agent"):
        GameAgents(game="nim_own_random", baselines={"random": NimGreedyAgent})


def test_the_training_adapter_and_evaluation_play_random_on_a_game_that_lists_nothing(bare):
    pytest.importorskip("torch")
    from agents.training.adapters import make_adapter
    from agents.training.config import make_config

    adapter = make_adapter(make_config(("test", {"game": "nim_bare", "hidden": 8})))
    assert adapter.opponents == ("random",)
    game = adapter.new_game(np.random.default_rng(0))
    move = adapter.baseline_move("random", game, random.Random(0))
    assert move in list(adapter.legal(game))
    with pytest.raises(ValueError, match=r"game nim_bare has no baseline 'greedy' \(its baselines: random\)"):
        adapter.baseline_move("greedy", game, random.Random(0))


@pytest.mark.parametrize("opponents", ["random", "ismcts:10", "mcts:10", ["random", "ismcts:10"]])
def test_the_gym_view_plays_game_independent_opponents_on_a_game_that_lists_nothing(bare, opponents):
    view = VsBots(game="nim_bare", players=3, opponents=opponents)
    obs, _ = view.reset(seed=3)
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = view.step(int(np.flatnonzero(view.action_masks())[0]))
    assert set(info["winners"]) <= {0, 1, 2}


# ---------------------------------------------------------------- render modes of the Gymnasium view


def test_gym_view_render_modes_are_the_games(nim, capsys):
    assert render_modes(nim) == ["human", "ansi"]
    env = gymnasium.make(nim.gym_id)
    assert env.metadata["render_modes"] == ["human", "ansi"]
    human = gymnasium.make(nim.gym_id, render_mode="human", pile=5)
    assert type(human) is VsBots and human.render_mode == "human"  # no HumanRendering wrapper
    human.reset(seed=0)
    capsys.readouterr()
    human.step(0)
    assert "stones left" in capsys.readouterr().out  # the game's text picture, printed
    ansi = gymnasium.make(nim.gym_id, render_mode="ansi", pile=5)
    ansi.reset(seed=0)
    assert "pile: ooooo (5 of 5 stones left)" in ansi.render()
    fragment = "render_mode 'rgb_array' is not a render mode of nim: expected one of ['human', 'ansi'] or None"
    with pytest.raises(ValueError, match=re.escape(fragment) + r".*needs an image renderer, GameSpec.renderers.image"):
        gymnasium.make(nim.gym_id, render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_mode 'video' is not a render mode of nim"):
        VsBots(game="nim", render_mode="video")


def test_gym_view_of_a_game_with_an_image_offers_rgb_array(nim):
    def picture(game):
        return np.full((4, 6, 3), game.pile, dtype=np.uint8)

    spec = registry.register_game(
        _copy(
            nim,
            "nim_picture",
            gym_id="thirdgame/NimPicture-v0",
            renderers=dataclasses.replace(nim.renderers, image=picture),
        )
    )
    try:
        assert render_modes(spec) == ["human", "ansi", "rgb_array"]
        env = gymnasium.make("thirdgame/NimPicture-v0", render_mode="rgb_array", pile=7)
        assert env.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
        env.reset(seed=0)
        frame = env.render()
        assert frame.shape == (4, 6, 3) and frame.dtype == np.uint8
        assert int(frame[0, 0, 0]) == 7  # the learner moves first: the whole pile
    finally:
        registry.unregister_game(spec.name)
    builtin = gymnasium.make("kardinal/KardinalVsBots-v0", players=2)
    assert builtin.metadata["render_modes"] == ["human", "ansi", "rgb_array"]


# ---------------------------------------------------------------- plugins on the command line


def test_load_plugins_registers_the_games_of_modules_and_attributes(tmp_path, monkeypatch, no_env_plugins):
    assert "nim" not in registry.games()
    assert registry.load_plugins(PLUGIN) == [third_game.SPEC] and registry.get_game("nim") is third_game.SPEC
    assert registry.load_plugins([PLUGIN, " "]) == [third_game.SPEC]  # again: nothing new, no error
    third_game.unregister()
    module = tmp_path / "nim_plugin_module_a.py"
    module.write_text("import third_game\n\nthird_game.register()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry.load_plugins("nim_plugin_module_a") == [third_game.SPEC]  # a module that registers on import
    third_game.unregister()
    assert registry.load_plugins("third_game:register") == [third_game.SPEC]  # a function returning the spec
    with pytest.raises(ImportError, match=r"plugin 'no_such_module_xyz' \(--plugin\) cannot be loaded: "):
        registry.load_plugins(["no_such_module_xyz"])
    with pytest.raises(TypeError, match=r"plugin 'third_game:FORMAT' \(--plugin\): must name a GameSpec"):
        registry.load_plugins(["third_game:FORMAT"])
    twin = dataclasses.replace(third_game.SPEC)
    monkeypatch.setattr(third_game, "TWIN", twin, raising=False)
    with pytest.raises(ValueError, match=r"plugin 'third_game:TWIN' \(--plugin\): a game named 'nim' is already"):
        registry.load_plugins(["third_game:TWIN"])


def test_the_environment_variable_is_read_by_the_registry(monkeypatch, no_env_plugins):
    assert "nim" not in registry.games()
    monkeypatch.setenv(registry.PLUGINS_ENV, f" {PLUGIN} ,")
    monkeypatch.setattr(registry, "_ENV_PLUGINS_LOADED", False)
    assert registry.get_game("nim") is third_game.SPEC
    third_game.unregister()
    monkeypatch.setenv(registry.PLUGINS_ENV, "no_such_module_xyz")
    monkeypatch.setattr(registry, "_ENV_PLUGINS_LOADED", False)
    with pytest.raises(ImportError, match=r"environment variable KARDINAL_ENV_PLUGINS\) cannot be loaded"):
        registry.games()
    with pytest.raises(ImportError):  # still failing, not silently skipped
        registry.get_game("kardinal")


def test_kardinal_evaluate_takes_plugin(no_env_plugins, capsys):
    from agents.evaluation import main

    argv = ["--plugin", PLUGIN, "--game", "nim", "--agents", "random", "mcts:10", "ismcts:10"]
    assert main([*argv, "--players", "3", "--games", "3", "--pile", "9", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "3 games, 3 players, Nim, pile 9" in out
    assert all(re.search(rf"^{re.escape(name)} +3 ", out, re.MULTILINE) for name in ("random", "mcts:10", "ismcts:10"))
    assert registry.get_game("nim") is third_game.SPEC
    assert PLUGIN in registry.os.environ[registry.PLUGINS_ENV].split(",")  # for the workers it spawns


def test_kardinal_evaluate_help_and_bad_plugins(no_env_plugins, capsys):
    from agents.evaluation import main

    with pytest.raises(SystemExit) as info:
        main(["--game", "nim", "--agents", "random"])  # no plugin: the game is unknown
    assert info.value.code == 2 and "invalid choice: 'nim'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--plugin", PLUGIN, "--help"])
    assert info.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--plugin MODULE[:ATTRIBUTE]" in help_text and "nim" in help_text and "--pile" in help_text
    with pytest.raises(SystemExit) as info:
        main(["--plugin", "no_such_module_xyz", "--game", "nim", "--agents", "random"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error: plugin 'no_such_module_xyz' (--plugin) cannot be loaded: ModuleNotFoundError" in err


def test_kardinal_replay_takes_plugin(no_env_plugins, tmp_path, capsys):
    from kardinal_env.core.replay import main

    game = _play_out(third_game.SPEC, [NimGreedyAgent(seed=0), RandomAgent(seed=1)])
    path = tmp_path / "nim.json"
    path.write_text(json.dumps(game.to_record()))
    assert main([str(path)]) == 1  # not registered: an unknown format
    assert "got 'nim-record/1'" in capsys.readouterr().err
    assert main(["--plugin", PLUGIN, str(path)]) == 0
    assert f"record OK: {game.move_count} moves replayed" in capsys.readouterr().out


def test_kardinal_train_takes_plugin(no_env_plugins, tmp_path, capsys):
    pytest.importorskip("torch")
    from agents.networks.checkpoint import read_checkpoint
    from agents.training import main

    options = {
        "game": "nim",
        "total_steps": 60,
        "steps_per_iter": 60,
        "num_envs": 2,
        "hidden": 8,
        "eval_interval": 1,
        "eval_games": 2,
        "final_eval_games": 2,
        "checkpoint_interval": 0,
        "track": "false",
        "progress": "false",
        "runs_dir": str(tmp_path),
        "run_name": "nim",
    }
    argv = ["--plugin", PLUGIN] + [x for key, value in options.items() for x in (f"--{key}", str(value))]
    assert main(argv) == 0
    path = capsys.readouterr().out.strip().splitlines()[-1].removeprefix("checkpoint: ")
    ckpt, _ = read_checkpoint(path)
    # the trainer's evaluation played random although Nim's entry does not list it
    assert ckpt["game"] == "nim" and set(ckpt["winrates"]) == {"random", "greedy"}
    network = load_agent(f"ppo:{path}", game="nim", seed=0)
    assert _play_out(third_game.SPEC, [network, load_agent("random", game="nim", seed=1)], pile="12").is_over
    assert main(["--plugin", PLUGIN, "--game", "nim", "--baseline", "random", "--greedy_share", "0.5"]) == 2
    assert "with baseline random" in capsys.readouterr().err


def test_kardinal_play_takes_the_environment_variable(no_env_plugins, monkeypatch, capsys):
    """``kardinal-play`` sees plugins through ``KARDINAL_ENV_PLUGINS``, which the registry reads."""
    from agents.serving.play import main

    monkeypatch.setenv(registry.PLUGINS_ENV, PLUGIN)
    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    assert main(["--game", "nim", "--players", "2", "--agents", "random"]) == 0
    assert capsys.readouterr().out.startswith("Nim: you are seat 0 of 2; seat 1: random\n")


def test_kardinal_play_and_the_play_server_take_plugin(no_env_plugins, monkeypatch, capsys):
    from agents.serving.play import main
    from agents.serving.webplay import main as web_main

    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    assert main(["--plugin", PLUGIN, "--game", "nim", "--players", "2", "--agents", "random"]) == 0
    assert capsys.readouterr().out.startswith("Nim: you are seat 0 of 2; seat 1: random\n")
    with pytest.raises(SystemExit) as info:
        web_main(["--plugin", PLUGIN, "--help"])
    assert info.value.code == 0 and "--plugin" in capsys.readouterr().out


def test_the_rllib_trainer_takes_plugin(no_env_plugins):
    from kardinal_env.integrations import rllib_train

    args = rllib_train.parse_args(["--plugin", PLUGIN, "--game", "nim", "--players", "3", "--pile", "7"])
    assert args.game == "nim" and args.plugin == [PLUGIN]


# ---------------------------------------------------------------- the protocol


@pytest.mark.parametrize("name", ["kardinal", "kardinal_koenig", "nim"])
def test_play_raises_illegal_move_error_and_winners_waits_for_the_end(nim, name):
    spec = registry.get_game(name)
    game = spec.new_game(seed=1)
    first = game.legal_moves()[0]
    for method in ("winners", "finishing_order"):
        with pytest.raises(RuntimeError, match=rf"{method}\(\) is only defined once the game is over"):
            getattr(game, method)()
    with pytest.raises(IllegalMoveError) as info:
        game.play("no such move")
    assert info.value.rule and game.move_count == 0
    rng = random.Random(0)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    assert game.winners() == game.finishing_order()[0]
    with pytest.raises(IllegalMoveError):
        game.play(first)


def test_the_protocol_and_the_guide_say_so():
    play_doc, winners_doc = GameState.play.__doc__ or "", GameState.winners.__doc__ or ""
    assert "IllegalMoveError" in play_doc and "no other error type" in play_doc
    assert "RuntimeError" in winners_doc and "once the game is over" in winners_doc
    guide = " ".join((ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8").split())
    assert "It must be that class: the tools catch only it" in guide
    assert "Before the end it raises `RuntimeError`" in guide
    assert "--plugin MODULE[:ATTRIBUTE]" in guide and "KARDINAL_ENV_PLUGINS" in guide


# ---------------------------------------------------------------- the trainer's messages


def test_the_trainer_says_what_is_missing(nim, bare):
    from agents.training.config import ConfigError, make_config

    def message(**options) -> str:
        with pytest.raises(ConfigError) as info:
            make_config(("test", options))
        return str(info.value)

    # Nim lists greedy; random is every game's: greedy_share / bc_games cannot use it
    text = message(game="nim", baseline="random", greedy_share=0.5)
    assert "'greedy_share' (greedy_share: test): 0.5 is not allowed with baseline random" in text
    assert "games against random are random_share's (set random_share instead)" in text
    assert "set baseline to one of game nim's other baselines (greedy) or expected 0" in text
    assert "no baseline 'random'" not in text and "baselines: none" not in text
    text = message(game="nim", baseline="random", bc_games=3)
    assert "'bc_games' (bc_games: test): 3 is not allowed with baseline random" in text
    assert "the warm start imitates the baseline's moves, and random moves teach nothing" in text
    # a baseline the game does not have
    text = message(game="nim", baseline="heuristic", greedy_share=0.5)
    assert "for game nim: it has no baseline 'heuristic'" in text
    assert "set baseline to one of its baselines (greedy) or expected 0" in text
    # a game with no baseline but random
    text = message(game="nim_bare", greedy_share=0.5)
    assert "for game nim_bare: it has no baseline 'greedy' (config key 'baseline' (baseline: default))" in text
    assert "game nim_bare has no baseline besides random; expected 0" in text
    assert "baselines: none" not in text
    text = message(game="nim_bare", baseline="random", bc_games=2)
    assert "with baseline random" in text and "game nim_bare has no baseline besides random" in text
    assert make_config(("test", {"game": "nim_bare", "random_share": 0.5})).random_share == 0.5
