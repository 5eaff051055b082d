"""The agents' registry (agents/registry.py): one ``GameAgents`` per game, the built-in entries
(agents/games.py), the generic defaults of a game without an entry, and the entry point group
``kardinal_env.agents`` (a game's agents, a function returning them, or a module)."""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import sys
import types

import pytest

from agents import registry as agents_registry
from agents.baselines import kardinal_greedy, koenig_greedy
from agents.baselines.random import RandomAgent
from agents.games import KARDINAL, KARDINAL_KOENIG
from agents.registry import GameAgents, game_agents, register_agents, unregister_agents
from kardinal_env.core.registry import get_game

BUILT_IN = (KARDINAL, KARDINAL_KOENIG)


@pytest.fixture
def scratch():
    """The game name ``scratch_game`` without agents before and after the test."""
    unregister_agents("scratch_game")
    yield "scratch_game"
    unregister_agents("scratch_game")


def test_the_built_in_games_have_their_entries():
    assert game_agents("kardinal") is KARDINAL and game_agents(get_game("kardinal_koenig")) is KARDINAL_KOENIG
    assert list(agents_registry.registered_agents())[:2] == ["kardinal", "kardinal_koenig"]
    assert KARDINAL.baseline("greedy") is kardinal_greedy.GreedyAgent
    assert KARDINAL_KOENIG.baseline("greedy") is koenig_greedy.GreedyAgent
    assert KARDINAL.baseline_kinds == ["greedy", "random"]
    assert KARDINAL_KOENIG.baseline_kinds == ["greedy", "heuristic", "random"]
    with pytest.raises(KeyError, match=r"kardinal has no baseline 'alphago'; its baselines: \['greedy', 'random'\]"):
        KARDINAL.baseline("alphago")


@pytest.mark.extras  # the network builders import torch
@pytest.mark.parametrize("agents", BUILT_IN, ids=lambda a: a.game)
def test_every_named_object_exists(agents):
    """Each ``"module:attribute"`` of a built-in entry names something that exists, and each preset a file."""
    for name in ("rollout", "compiled_search", "compiled_playout", "compiled_ismcts", "network", "adapter"):
        if getattr(agents, name) is not None:
            assert callable(agents.load(name)), name
    for name in ("search_guide", "rollout_search", "play_page"):
        if getattr(agents, name) is not None:
            assert agents.load(name) is not None, name
    for kind in agents.baseline_kinds:
        agent = agents.baseline(kind)(seed=0)
        assert agent.name and callable(agent.select_move)
    for preset, where in agents.presets.items():
        package, _, file = where.partition(":")
        assert importlib.resources.files(package).joinpath(file).is_file(), (preset, where)


def test_a_game_without_an_entry_gets_the_generic_defaults(scratch):
    found = game_agents(scratch)
    assert found is game_agents(scratch)  # one per name: the lazily loaded fields are cached
    assert found.baseline_kinds == ["random"] and found.baseline("random") is RandomAgent
    assert not found.has_baseline("greedy") and not found.has_baseline(None)
    for name in ("rollout", "compiled_search", "compiled_playout", "compiled_ismcts", "search_guide"):
        assert found.load(name) is None, name
    for name in ("rollout_search", "network", "adapter", "play_page"):
        assert found.load(name) is None, name
    assert dict(found.presets) == {}
    with pytest.raises(TypeError, match="game_agents expects a game's name or GameSpec, got int"):
        game_agents(3)  # type: ignore[arg-type]


def test_register_replace_and_unregister(scratch):
    mine = GameAgents(game=scratch, baselines={"greedy": kardinal_greedy.GreedyAgent})
    assert register_agents(mine) is mine and register_agents(mine) is mine  # again: nothing new
    assert game_agents(scratch) is mine and mine.baseline("greedy") is kardinal_greedy.GreedyAgent
    other = GameAgents(game=scratch)
    with pytest.raises(ValueError, match="the agents of game 'scratch_game' are already registered"):
        register_agents(other)
    assert register_agents(other, replace=True) is other and game_agents(scratch) is other
    unregister_agents(scratch)
    unregister_agents(scratch)  # an unknown name does nothing
    assert game_agents(scratch) is not other and game_agents(scratch).baselines == {}
    with pytest.raises(TypeError, match="register_agents expects a GameAgents, got GameSpec"):
        register_agents(get_game("kardinal"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes,error,fragment",
    [
        (dict(game="two words"), ValueError, "GameAgents.game must be a game's name (an identifier), got 'two words'"),
        (dict(baselines=["greedy"]), TypeError, "GameAgents 'nim': baselines must be a mapping, got list"),
        (dict(presets="default.yaml"), TypeError, "GameAgents 'nim': presets must be a mapping, got str"),
        (
            dict(baselines={"random": kardinal_greedy.GreedyAgent}),
            ValueError,
            "GameAgents 'nim': baselines['random'] must be every game's random agent",
        ),
    ],
)
def test_bad_entries_name_the_field(changes, error, fragment):
    with pytest.raises(error, match=fragment.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        GameAgents(**{"game": "nim", **changes})


def test_lazy_fields_name_the_game_and_field_when_they_fail():
    broken = GameAgents(game="lazy", rollout="json:nope", network="no_such_module_xyz:f")
    with pytest.raises(AttributeError, match="agents of game 'lazy', field 'rollout': 'json:nope'"):
        broken.load("rollout")
    with pytest.raises(ImportError, match="agents of game 'lazy', field 'network'"):
        broken.load("network")


def _entry_points(monkeypatch, *points: tuple[str, str]) -> None:
    group = agents_registry.ENTRY_POINT_GROUP
    found = [importlib.metadata.EntryPoint(name=name, value=value, group=group) for name, value in points]

    def entry_points(group=None, **kw):
        return importlib.metadata.EntryPoints(found if group == agents_registry.ENTRY_POINT_GROUP else ())

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


@pytest.fixture
def plugin_module(monkeypatch, scratch):
    """A module ``scratch_agents`` with a game's agents, a function returning them and other things."""
    module = types.ModuleType("scratch_agents")
    module.AGENTS = GameAgents(game=scratch, baselines={"greedy": kardinal_greedy.GreedyAgent})  # type: ignore[attr-defined]
    module.make = lambda: module.AGENTS  # type: ignore[attr-defined]
    module.TEXT = "not agents"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "scratch_agents", module)
    return module


@pytest.mark.parametrize("value", ["scratch_agents:AGENTS", "scratch_agents:make"])
def test_entry_points_register_a_games_agents(monkeypatch, plugin_module, value):
    _entry_points(monkeypatch, ("scratch", value), ("agents", "agents"))  # a module entry is only imported
    agents_registry.load_entry_points(force=True)
    assert game_agents("scratch_game") is plugin_module.AGENTS
    assert game_agents("kardinal") is KARDINAL  # a game that has an entry keeps it


@pytest.mark.parametrize(
    "value,error,fragment",
    [
        ("scratch_agents:TEXT", TypeError, "must be a GameAgents, a function returning one or a module, got str"),
        ("scratch_agents:NOPE", ImportError, "cannot be loaded: AttributeError"),
        ("no_such_module_xyz", ImportError, "cannot be loaded: ModuleNotFoundError"),
    ],
)
def test_a_bad_entry_point_is_named(monkeypatch, plugin_module, value, error, fragment):
    _entry_points(monkeypatch, ("scratch", value))
    with pytest.raises(error, match=f"entry point 'scratch' \\({value}\\) of group 'kardinal_env.agents'.*{fragment}"):
        agents_registry.load_entry_points(force=True)
    _entry_points(monkeypatch)
    agents_registry.load_entry_points(force=True)  # the registry reads the group again once it is fixed
