"""agents.training.config: every training option documented, typed and checked before anything runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from agents.registry import game_agents
from agents.training.config import (
    ConfigError,
    TrainConfig,
    build_parser,
    config_from_args,
    load_yaml,
    make_config,
    parse_set,
    preset_names,
)
from kardinal_env.core.registry import games

FIELDS = [f.name for f in dataclasses.fields(TrainConfig)]
CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def _cfg(argv):
    return config_from_args(build_parser().parse_args(argv))


def test_every_option_has_help_shown_by_help():
    text = build_parser(prog="kardinal-train").format_help()
    for f in dataclasses.fields(TrainConfig):
        assert f.metadata["help"], f.name
        assert f"--{f.name}" in text, f.name
    # the help texts themselves, not only the flags (argparse.SUPPRESS used to hide them all)
    assert "share of games against the baseline named by 'baseline'" in " ".join(text.split())
    assert "a step = one stored learner decision" in " ".join(text.split())
    assert "default: 200000" in text


def test_defaults_and_the_default_preset_load(tmp_path):
    assert make_config() == TrainConfig()
    cfg = _cfg(["--config", str(CONFIGS / "default.yaml")])
    assert cfg.total_steps == 120_000 and cfg.greedy_share == 0.5 and cfg.learning_rate == 3e-4
    assert cfg.run_name == "default" and cfg.bc_games == 1000 and cfg.progress is True
    shipped = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
    assert {"long_2p", "long_4p", "koenig_default", "koenig_long", "koenig_heuristic", "search_2p"} <= set(shipped)
    for preset in shipped:
        _cfg(["--config", str(CONFIGS / f"{preset}.yaml")])  # every shipped preset is valid
    search = _cfg(["--config", "kardinal:search_2p"])
    assert (search.algorithm, search.search, search.simulations, search.players) == ("search", "mcts", 800, 2)
    distill = _cfg(["--config", "kardinal:distill_2p"])
    assert (distill.search, distill.teacher, distill.channels, distill.full_search_share) == (
        "network",
        "zoo:kardinal-2p-cnn",
        96,
        1.0,
    )
    koenig = _cfg(["--config", str(CONFIGS / "koenig_default.yaml")])
    assert (koenig.game, koenig.players, koenig.resolved_network()) == ("kardinal_koenig", 4, "advised")
    assert koenig.run_name == "koenig_default"
    koenig_search = _cfg(["--config", "kardinal_koenig:search"])
    assert (koenig_search.game, koenig_search.algorithm, koenig_search.search) == (
        "kardinal_koenig",
        "search",
        "ismcts",
    )


def test_game_keys_from_the_command_line():
    cfg = _cfg(["--set", "game=kardinal_koenig", "--network", "mlp"])
    assert (cfg.game, cfg.players, cfg.network) == ("kardinal_koenig", 4, "mlp")
    with pytest.raises(ConfigError, match=r"'players' \(players: --set, game: --game\): 2 is not allowed for game"):
        _cfg(["--set", "players=2", "--game", "kardinal_koenig"])
    text = " ".join(build_parser(prog="kardinal-train").format_help().split())
    assert "--game" in text and "a registered game (kardinal, kardinal_koenig)" in text and "--network" in text
    assert "game: kardinal | kardinal_koenig" in text  # the description lists the registered games
    # rule options: help text and choices from the registry entries
    assert "rules preset (a rule option of kardinal)" in text and "kardinal: one of english, german" in text
    assert "kardinal_koenig: one of one, any" in text


def test_game_defaults_come_from_the_registry():
    """Every registered game: TrainConfig(game=...) gets its default players; every player count it
    has is accepted, others are refused naming its counts."""
    for spec in games().values():
        assert TrainConfig(game=spec.name).players == spec.default_players
        assert make_config(("test", {"game": spec.name})).players == spec.default_players
        for players in spec.players:
            assert make_config(("test", {"game": spec.name, "players": players})).players == players
        with pytest.raises(ConfigError, match=f"{max(spec.players) + 1} is not allowed for game {spec.name}"):
            make_config(("test", {"game": spec.name, "players": max(spec.players) + 1}))


def test_precedence_yaml_then_set_then_flags(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("total_steps: 5000\nseed: 3\nprogress: false\n")
    cfg = _cfg(["--config", str(path), "--set", "total_steps=7000", "--set", "seed=4", "--seed", "5"])
    assert (cfg.total_steps, cfg.seed, cfg.progress) == (7000, 5, False)


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("progress", "false", False),
        ("progress", "True", True),
        ("progress", "no", False),
        ("total_steps", "2e5", 200_000),
        ("total_steps", "120_000", 120_000),
        ("learning_rate", "3e-4", 3e-4),
        ("greedy_share", "1", 1.0),
        ("reward", "margin", "margin"),
        ("run_name", "2024", "2024"),
    ],
)
def test_set_values_are_converted_by_the_field_type(key, text, value):
    cfg = _cfg(["--set", f"{key}={text}"])
    assert getattr(cfg, key) == value and type(getattr(cfg, key)) is type(value)


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--set", "progress=flase"], ["'progress'", "'flase'", "not a boolean", "true or false"]),
        (["--set", "greedy_share=1.5"], ["'greedy_share'", "'1.5'", "from 0.0 to 1.0"]),
        (["--set", "greedy_share=-0.1"], ["'greedy_share'", "'-0.1'"]),
        (
            ["--set", "greedy_share=0.6", "--set", "pool_share=0.5"],
            ["greedy_share + pool_share + random_share", "at most 1", "1.1"],
        ),
        (["--set", "total_steps=abc"], ["'total_steps'", "'abc'", "not a number", "an integer >= 0"]),
        (["--set", "total_steps=2.5"], ["'total_steps'", "not an integer"]),
        (["--set", "num_envs=0"], ["'num_envs'", "'0'", "positive integer"]),
        (["--set", "reward=winloss"], ["'reward'", "'winloss'", "win_loss, margin"]),
        (["--set", "preset=french"], ["'preset'", "'french' is not allowed for game kardinal", "english, german"]),
        (["--set", "players=5"], ["'players'", "from 2 to 4"]),
        (["--set", "players=0"], ["'players'", "positive integer"]),
        (["--set", "game=chess"], ["'game'", "'chess' is not allowed", "kardinal, kardinal_koenig"]),
        (["--set", "learning_rate=0"], ["'learning_rate'", "greater than 0"]),
        (["--set", "learning_rate=inf"], ["'learning_rate'", "not a finite number"]),
        (["--set", "gamma=1.01"], ["'gamma'", "from 0.0 to 1.0"]),
        (["--set", "torch_threads=0"], ["'torch_threads'", "positive integer"]),
        (["--set", "seed=-1"], ["'seed'", ">= 0"]),
        (["--set", "crop_margin=0"], ["'crop_margin'"]),
        (["--set", "totl_steps=5"], ["unknown config key 'totl_steps'", "did you mean 'total_steps'"]),
        (["--set", "total_steps"], ["--set expects KEY=VALUE", "'total_steps'"]),
        (["--total_steps", "x"], ["'total_steps'", "(--total_steps)", "'x'"]),
        (["--config", "no/such.yaml"], ["config file 'no/such.yaml' does not exist"]),
    ],
)
def test_bad_values_name_key_value_and_what_is_allowed(argv, needles):
    with pytest.raises(ConfigError) as info:
        _cfg(argv)
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("a: [1, 2\n", "is not valid YAML"),
        ("- 1\n- 2\n", "must be a mapping of config keys to values"),
        ("just a string\n", "must be a mapping"),
        ("total_steps: [1, 2]\n", "'total_steps'"),
        ("progress: maybe\n", "'progress'"),
        ("bogus_key: 1\n", "unknown config key 'bogus_key'"),
        ("run_name:\n", "'run_name'"),
    ],
)
def test_bad_yaml_files_are_named(tmp_path, text, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        _cfg(["--config", str(path)])
    assert needle in str(info.value)
    if "YAML" in needle or "mapping" in needle or "unknown" in needle or "'" in needle:
        assert str(path) in str(info.value)


def test_presets_by_name_from_the_registry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configs/ here: the names come from the registry entries' presets
    assert load_yaml("default") == load_yaml(CONFIGS / "default.yaml")
    assert load_yaml("kardinal:default") == load_yaml("default")
    assert load_yaml("kardinal_koenig:default") == load_yaml(CONFIGS / "koenig_default.yaml")
    assert _cfg(["--config", "long_4p"]).players == 4
    assert _cfg(["--config", "kardinal_koenig:long"]).game == "kardinal_koenig"
    names = preset_names()
    for spec in games().values():
        for preset in game_agents(spec).presets:
            assert f"{spec.name}:{preset}" in names
    with pytest.raises(
        ConfigError,
        match=r"'nope' does not exist \(presets by name: default, distill_2p, koenig_default, koenig_heuristic, "
        r"koenig_long, koenig_search, long_2p, long_4p, search_2p, search_4p, kardinal:default, ",
    ):
        load_yaml("nope")


def test_empty_yaml_is_no_options(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing\n")
    assert load_yaml(path) == {}


def test_binary_file_as_yaml(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(ConfigError, match="x.yaml"):
        load_yaml(path)


def test_config_dict_sources_are_named():
    with pytest.raises(ConfigError, match=r"config key 'num_envs' \(my source\)"):
        make_config(("my source", {"num_envs": -3}))
    assert parse_set(["a=b=c"]) == {"a": "b=c"}


def test_presets_only_use_known_keys_with_valid_values():
    paths = sorted(CONFIGS.glob("*.yaml"))
    assert len(paths) >= 3
    for path in paths:
        data = yaml.safe_load(path.read_text())
        assert set(data) <= set(FIELDS), path
        make_config((str(path), data))


def test_reward_choices_are_the_reward_module_schemes():
    from kardinal_env.core.rewards import REWARD_SCHEMES

    text = " ".join(build_parser(prog="kardinal-train").format_help().split())
    assert f"one of {', '.join(REWARD_SCHEMES)}" in text
    for scheme in REWARD_SCHEMES:
        assert make_config(("test", {"reward": scheme})).reward == scheme


def test_the_baseline_opponent_is_a_baseline_of_the_game():
    cfg = _cfg(["--game", "kardinal_koenig", "--baseline", "heuristic", "--greedy_share", "0.5", "--bc_games", "3"])
    assert cfg.baseline == "heuristic"
    with pytest.raises(ConfigError, match=r"'greedy_share' .*no baseline 'nope'.*greedy, heuristic"):
        _cfg(["--game", "kardinal_koenig", "--baseline", "nope", "--greedy_share", "0.5"])
    with pytest.raises(ConfigError, match=r"no baseline 'heuristic'"):
        _cfg(["--game", "kardinal", "--baseline", "heuristic", "--bc_games", "2"])
    # a baseline that plays no game is not checked
    assert _cfg(["--game", "kardinal", "--baseline", "heuristic"]).greedy_share == 0
