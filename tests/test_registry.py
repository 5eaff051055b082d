"""The registry of games (kardinal_env.core.registry), the environments' registration driven by it
(kardinal_env.core.registration), and what every registered game promises: the protocol, its codec
and encoder agreeing with the engine, a room of the same shape for each built-in game, and the
generic environment agreeing with a game's own environment."""

from __future__ import annotations

import importlib.resources
import json
import random
import re
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest

import kardinal_env
from kardinal_env.core import registration, registry
from kardinal_env.core.generic_env import GameEnv
from kardinal_env.core.registry import GameSpec, Renderers, RuleOption, UnknownGameError, get_game, resolve
from kardinal_env.games import KARDINAL, KARDINAL_KOENIG

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN = (KARDINAL, KARDINAL_KOENIG)
#: The module every built-in game's room has, and the registry field that names code in it.
ROOM_SHAPE = {
    "engine": "game_class",
    "rules": "rules_class",
    "actions": None,
    "observation": "observation",
    "text": "renderers.text",
    "render": "renderers.image",
    "replay_html": "renderers.html_replay",
    "env": "env_module",
    "notation": None,
    "record": None,
}


def _fields(spec: GameSpec, **changes) -> dict:
    return {**{name: getattr(spec, name) for name in GameSpec.__dataclass_fields__}, **changes}


def _played(spec: GameSpec, players: int, seed: int, max_moves: int | None = None):
    game = spec.new_game(spec.rules(players), seed=seed)
    rng = random.Random(seed)
    while not game.is_over and (max_moves is None or game.move_count < max_moves):
        game.play(rng.choice(game.legal_moves()))
    return game


# ---------------------------------------------------------------- specs and lookups


def test_built_in_games_are_registered_in_order():
    assert registry.game_names()[:2] == ["kardinal", "kardinal_koenig"]
    assert kardinal_env.get_game("kardinal") is KARDINAL and get_game(KARDINAL_KOENIG) is KARDINAL_KOENIG
    assert KARDINAL.env_name == "kardinal_v0" and KARDINAL_KOENIG.env_name == "kardinal_koenig_v1"


@pytest.mark.parametrize(
    "changes,fragment",
    [
        (dict(name="two words"), "GameSpec.name must be an identifier, got 'two words'"),
        (dict(players=()), "players must be positive seat counts"),
        (dict(players=(0, 2)), "players must be positive seat counts, got (0, 2)"),
        (dict(default_players=5), "default_players 5 is not one of [2, 3, 4]"),
    ],
)
def test_bad_specs_name_the_field(changes, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        GameSpec(**_fields(KARDINAL, **changes))


def test_rule_options():
    option = RuleOption("shared_pool", "flag", "help")
    assert option.flag == "--shared-pool"
    with pytest.raises(ValueError, match="kind must be choice, flag or str, got 'int'"):
        RuleOption("x", "int", "help")
    with pytest.raises(ValueError, match="'x': a choice needs choices"):
        RuleOption("x", "choice", "help")


def test_rules_players_and_options_are_checked():
    assert KARDINAL.rules().players == 2 and KARDINAL.rules(3, preset="german", shared_pool=None).players == 3
    with pytest.raises(ValueError, match=re.escape("kardinal plays 2-4 players, got 5")):
        KARDINAL.rules(5)
    with pytest.raises(ValueError, match="got True"):
        KARDINAL.check_players(True)
    with pytest.raises(ValueError, match=re.escape("kardinal has no rule option(s) ['board']; its options: ")):
        KARDINAL.rules(board="x")


@pytest.mark.parametrize("backend", ["python", "core"])
def test_game_without_players_or_with_an_unknown_option_names_the_options(backend, monkeypatch):
    """``Game()`` of either engine (the core-backed one too) asks for the number of players and
    ``Game(players=N, unknown=...)`` names the unknown option, both listing the rules' options."""
    from kardinal_env.kardinal import Game as KardinalGame
    from kardinal_env.koenig import Game as KoenigGame

    if backend == "python":
        monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    for game_class, package, players in (
        (KardinalGame, "kardinal_env.kardinal", 2),
        (KoenigGame, "kardinal_env.koenig", 4),
    ):
        with pytest.raises(TypeError, match=re.escape(f"{package}.Game needs the number of players")) as info:
            game_class()
        assert "'players'" in str(info.value)
        with pytest.raises(TypeError, match=re.escape(f"{package}.Game: unknown rule option(s) ['colour']")):
            game_class(players=players, colour=1)
        assert game_class(players=players).num_players == players


def test_lookups_name_the_choices():
    with pytest.raises(UnknownGameError, match=r"unknown game 'chess'; registered games: \['kardinal', "):
        get_game("chess")
    with pytest.raises(UnknownGameError, match="unknown game"):
        get_game(None)  # type: ignore[arg-type]
    with pytest.raises(UnknownGameError, match=r"unknown record format 'x/1'; known formats: \['kardinal-record/1'"):
        registry.game_for_record({"format": "x/1"})
    with pytest.raises(UnknownGameError, match="unknown record format None"):
        registry.game_for_record([1, 2])
    with pytest.raises(UnknownGameError, match="str is not the game or rules class of a registered game"):
        registry.game_of("kardinal")


def test_resolve_and_load():
    assert resolve("json:dumps") is json.dumps and resolve("json") is json and resolve(len) is len
    assert resolve("os.path:join.__name__") == "join"
    for bad in ("", ":x", "json:"):
        with pytest.raises(ValueError, match="expected 'module:attribute' or 'module'"):
            resolve(bad)
    with pytest.raises(AttributeError, match=r"'json:nope': json has no attribute 'nope'"):
        resolve("json:nope")
    lazy = Renderers(text="json:nope", image="no_such_module_xyz:f")
    spec = GameSpec(**_fields(KARDINAL, name="lazy", renderers=lazy, observation="no_such_module_xyz:g"))
    with pytest.raises(AttributeError, match="game 'lazy', renderer 'text': 'json:nope'"):
        spec.renderer("text")
    with pytest.raises(ImportError, match="game 'lazy', renderer 'image'"):
        spec.renderer("image")
    with pytest.raises(ImportError, match="game 'lazy', field 'observation'"):
        spec.load("observation")
    assert KARDINAL.load("game_class") is KARDINAL.load("game_class")


# ---------------------------------------------------------------- listeners and registration


def test_listeners_hear_registrations_and_a_failing_one_undoes_it():
    heard, gone = [], []
    spec = GameSpec(**_fields(KARDINAL, name="listened", record_format="listened/1", env_id=None, gym_id=None))
    registry.on_register(lambda s: heard.append(s.name), on_unregister=lambda s: gone.append(s.name))
    assert heard[:2] == ["kardinal", "kardinal_koenig"]  # the games registered before
    registry.register_game(spec)
    registry.unregister_game("listened")
    assert heard[-1] == "listened" and gone == ["listened"]

    def refuse(s):
        if s.name == "refused":
            raise RuntimeError("listener says no")

    registry.on_register(refuse)
    refused = GameSpec(**_fields(KARDINAL, name="refused", record_format="refused/1", env_id=None, gym_id=None))
    with pytest.raises(RuntimeError, match="listener says no"):
        registry.register_game(refused)
    assert "refused" not in registry.games()
    assert gone[-1] == "refused"  # the listeners that had heard of it were told it is gone
    with pytest.raises(TypeError, match="register_game expects a GameSpec, got dict"):
        registry.register_game({"name": "x"})  # type: ignore[arg-type]


def test_record_format_conflict_is_refused():
    twin = GameSpec(**_fields(KARDINAL, name="twin", env_id=None, gym_id=None))
    with pytest.raises(ValueError, match="record_format 'kardinal-record/1' already belongs to game 'kardinal'"):
        registry.register_game(twin)


def test_built_in_environment_ids():
    assert pettingzoo.aec_registry["kardinal/kardinal-v0"].entry_point == "kardinal_env.kardinal.env:env"
    assert pettingzoo.aec_registry["kardinal/kardinal-koenig-v1"].entry_point == "kardinal_env.koenig.env:env"
    for spec in BUILT_IN:
        gym_spec = gymnasium.registry[spec.gym_id]
        assert gym_spec.entry_point == registration.SINGLE_AGENT and gym_spec.kwargs == {"game": spec.name}
        assert gym_spec.order_enforce is False and gym_spec.disable_env_checker is True
    registration.register()  # again: nothing changes
    assert pettingzoo.aec_registry["kardinal/kardinal-v0"].entry_point == "kardinal_env.kardinal.env:env"


def test_an_id_taken_by_something_else_is_refused():
    pettingzoo.register("aec", "elsewhere/taken-v0", entry_point="json:dumps")
    spec = GameSpec(
        **_fields(KARDINAL, name="taken", record_format="taken/1", env_id="elsewhere/taken-v0", gym_id=None)
    )
    try:
        with pytest.raises(
            ValueError, match="PettingZoo id 'elsewhere/taken-v0' is already registered for 'json:dumps'"
        ):
            registry.register_game(spec)
        assert "taken" not in registry.games()
        assert pettingzoo.aec_registry["elsewhere/taken-v0"].entry_point == "json:dumps"
    finally:
        del pettingzoo.aec_registry["elsewhere/taken-v0"]


def test_a_game_without_env_module_gets_the_generic_env():
    spec = GameSpec(
        **_fields(KARDINAL, name="plain", record_format="plain/1", env_module=None, env_id="test/plain-v0", gym_id=None)
    )
    registry.register_game(spec)
    try:
        assert pettingzoo.aec_registry["test/plain-v0"].entry_point == registration.GENERIC_ENV
        env = pettingzoo.make("aec", "test/plain-v0", players=3)
        env.reset(seed=0)
        assert isinstance(env.unwrapped, GameEnv) and env.unwrapped.metadata["name"] == "plain_v0"
        assert len(env.possible_agents) == 3
    finally:
        registry.unregister_game("plain")
    assert "test/plain-v0" not in pettingzoo.aec_registry


# ---------------------------------------------------------------- the built-in entries


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda s: s.name)
def test_every_named_object_exists(spec):
    """Each ``"module:attribute"`` of the entry names something that exists; an entry holds the game's
    facts only (the agents' registry, tests/test_agents_registry.py, holds what plays it)."""
    for name in ("rules_class", "game_class", "observation"):
        assert callable(spec.load(name)), name
    for kind in ("text", "image", "html_replay"):
        assert callable(spec.renderer(kind)), kind
    assert spec.load("env_module").raw_env.metadata["name"] == spec.env_name
    agent_fields = {"baselines", "rollout", "network", "adapter", "presets", "play_page"}
    assert not agent_fields & set(GameSpec.__dataclass_fields__)


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda s: s.name)
def test_each_room_has_the_same_shape(spec):
    """``kardinal_env/kardinal`` and ``kardinal_env/koenig``: the same module names for the same jobs,
    and the entry's fields name code in the right one."""
    room = spec.game_class.partition(":")[0].rpartition(".")[0]
    for module, field in ROOM_SHAPE.items():
        assert importlib.util.find_spec(f"{room}.{module}") is not None, f"{room}.{module}"
        if field is not None:
            named = spec
            for part in field.split("."):
                named = getattr(named, part)
            assert named.partition(":")[0] == f"{room}.{module}", (field, named)
    versioned = importlib.import_module(f"kardinal_env.{spec.env_name}")
    env_module = spec.load("env_module")
    assert versioned.env is env_module.env and versioned.raw_env is env_module.raw_env
    assert versioned.__doc__ == env_module.__doc__


# ---------------------------------------------------------------- the generic env of every game


@pytest.mark.parametrize("spec", BUILT_IN, ids=lambda s: s.name)
def test_generic_env_agrees_with_the_games_own_env(spec):
    """``GameEnv`` built from the game and its encoder plays the same game as the game's own environment."""
    players = spec.default_players
    own = spec.load("env_module").raw_env(players=players)
    generic = GameEnv(game=spec.name, players=players)
    assert generic.action_space("player_0").n == own.action_space("player_0").n
    own.reset(seed=11)
    generic.reset(seed=11)
    rng = random.Random(11)
    steps = 0
    while not own.game.is_over and steps < 60:
        agent = own.agent_selection
        assert generic.agent_selection == agent
        expected, got = own.observe(agent), generic.observe(agent)
        np.testing.assert_array_equal(got["action_mask"], expected["action_mask"])
        np.testing.assert_array_equal(got["observation"], expected["observation"])
        action = int(rng.choice(np.flatnonzero(expected["action_mask"])))
        assert generic.decode_action(action) == own.decode_action(action)
        own.step(action)
        generic.step(action)
        steps += 1
    assert generic.game.history == own.game.history


def test_rule_option_flags_from_every_game_and_refused_for_another_game():
    """kardinal_env.core.cli: one flag per rules option of the registered games; after parsing, the
    options of --game's game come back and an option of another game is a usage error naming it."""
    import argparse

    from kardinal_env.core.cli import add_rule_option_flags, given_rule_options

    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--game")
    add_rule_option_flags(parser, "tool")
    args = parser.parse_args(["--game", "kardinal", "--preset", "german", "--shared-pool"])
    assert given_rule_options(parser, args, get_game("kardinal")) == {"preset": "german", "shared_pool": True}
    args = parser.parse_args(["--discard", "any"])
    assert given_rule_options(parser, args, get_game("kardinal_koenig")) == {"discard": "any"}
    with pytest.raises(SystemExit):
        given_rule_options(parser, args, get_game("kardinal"))
    clash = argparse.ArgumentParser()
    clash.add_argument("--board")
    with pytest.raises(ValueError, match="--board, which tool uses for something else"):
        add_rule_option_flags(clash, "tool")
