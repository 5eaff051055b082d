"""A game written outside the package (Nim, ``tests/third_game.py``) works with the generic tools once
registered with one call or by a package entry point: the registry, PettingZoo's ``api_test`` on
the generic environment, the Gymnasium view against bots and ``kardinal-replay`` — and nothing in the
package names it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pickle
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest
import third_game
from pettingzoo.test import api_test, seed_test
from third_game import NimGame, NimGreedyAgent, NimRules

from agents.registry import game_agents
from kardinal_env.core import registry
from kardinal_env.core.errors import IllegalMoveError, RecordError
from kardinal_env.core.generic_env import GameEnv
from kardinal_env.core.generic_env import env as generic_env
from kardinal_env.core.protocol import GameState, ObservationEncoder, check_protocol
from kardinal_env.core.replay import main as replay_main
from kardinal_env.core.replay import replay_file, write_html
from kardinal_env.core.single_agent import VsBots

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane

ROOT = Path(__file__).resolve().parents[1]
ENV_ID, GYM_ID = third_game.SPEC.env_id, third_game.SPEC.gym_id
#: What PettingZoo's api_test says about every env with the classic Dict(observation, action_mask).
ALLOWED_WARNINGS = ("probably should be gymnasium.spaces.box", "Observation is not a NumPy array")


@pytest.fixture
def nim():
    with third_game.registered() as spec:
        yield spec


def _played(rules: NimRules, seed: int) -> NimGame:
    game, rng = NimGame(rules), random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game


# ---------------------------------------------------------------- the game itself


def test_the_engine_implements_the_protocol():
    game = NimGame(NimRules(players=3, pile=10))
    check_protocol(game)
    assert isinstance(game, GameState)
    assert isinstance(third_game.NimEncoder(game.rules), ObservationEncoder)
    assert game.legal_moves() == ["1", "2", "3"] and game.current_player == 0
    for move, seat in (("3", 0), ("3", 1), ("2", 2), ("1", 0)):
        assert game.current_player == seat
        game.play(move)
    assert game.pile == 1 and game.legal_moves() == ["1"]
    with pytest.raises(IllegalMoveError, match="take at most the pile") as err:
        game.play("2")
    assert err.value.rule == "pile"
    game.play("1")  # seat 1 takes the last stone
    assert game.is_over and game.current_player is None and game.legal_moves() == []
    assert game.scores() == [0, 1, 0] and game.winners() == [1]
    assert game.finishing_order() == [[1], [0], [2]]  # tie of seats 0 and 2 broken by stones taken (4 > 2)
    with pytest.raises(IllegalMoveError, match="game over"):
        game.play("1")


def test_misere_shares_the_win_and_clone_is_independent():
    game = NimGame(NimRules(players=3, pile=4, misere=True))
    for move in ("1", "1", "1"):
        game.play(move)
    copy = game.clone()
    game.play("1")  # seat 0 takes the last stone and loses
    assert game.winners() == [1, 2] and game.scores() == [0, 1, 1]
    assert game.finishing_order() == [[1, 2], [0]]
    assert not copy.is_over and copy.history == ["1", "1", "1"]
    assert game.determinize(1, random.Random(0)).history == game.history


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        (dict(players=4), "players must be an integer from 2 to 3, got 4"),
        (dict(pile="ten"), "pile must be an integer from 1 to 99, got 'ten'"),
        (dict(max_take=0), "max_take must be an integer from 1 to 9"),
        (dict(misere="yes"), "misere must be true or false"),
    ],
)
def test_bad_rules_name_the_option(kwargs, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        NimRules(**kwargs)


@pytest.mark.parametrize("move,rule", [("4", "malformed move"), ("x", "malformed move"), ("0", "malformed move")])
def test_malformed_moves_name_the_rule(move, rule):
    with pytest.raises(IllegalMoveError) as err:
        NimGame(NimRules()).play(move)
    assert err.value.rule == rule


def test_record_round_trip_and_errors():
    game = _played(NimRules(players=3, pile=11), seed=4)
    record = json.loads(json.dumps(game.to_record()))
    again = NimGame.from_record(record)
    assert again.to_record() == record and again.finishing_order() == game.finishing_order()
    partial = NimGame.from_record({**record, "moves": record["moves"][:2], "result": None})
    assert partial.move_count == 2 and not partial.is_over

    def bad(change, fragment):
        broken = json.loads(json.dumps(record))
        change(broken)
        with pytest.raises(RecordError, match=re.escape(fragment)):
            NimGame.from_record(broken, source="nim.json")

    bad(lambda r: r.update(format="kardinal-record/1"), "nim.json: field 'format' must be 'nim-record/1'")
    bad(lambda r: r.update(extra=1), "nim.json: unknown field(s) ['extra']")
    bad(lambda r: r.pop("moves"), "nim.json: missing field 'moves'")
    bad(lambda r: r["rules"].update(pile=0), "nim.json: field 'rules': pile must be an integer from 1 to 99, got 0")
    bad(lambda r: r["rules"].pop("misere"), "field 'rules': expected an object with exactly players")
    bad(lambda r: r["moves"].__setitem__(1, "7"), "nim.json: move 1 ('7'): malformed move")
    bad(lambda r: r["moves"].append("1"), f"move {len(record['moves'])} ('1'): game over")
    bad(lambda r: r["result"].update(winners=[9]), "result.winners [9] != replayed winners")
    bad(lambda r: r.update(result=None), "the moves end the game but field 'result' is null")


def test_action_ids_and_encoder():
    rules = NimRules(players=3, pile=5)
    encoder, game = third_game.NimEncoder(rules), NimGame(rules)
    game.play("3")  # seat 1 to move, 2 left
    assert game.num_actions == 3 and game.legal_actions() == [0, 1]
    assert [game.action_to_string(a) for a in game.legal_actions()] == game.legal_moves()
    assert game.string_to_action("2") == 1
    with pytest.raises(IllegalMoveError, match=r"action: 3 is outside Discrete\(3\)") as err:
        game.action_to_string(3)
    assert err.value.rule == "action"
    with pytest.raises(IllegalMoveError, match="take at most the pile") as err:
        game.apply_action(2)  # three stones, two left
    assert err.value.rule == "pile"
    obs = encoder.encode(game, 0)
    assert obs.dtype == np.float32 and obs.shape == encoder.shape == (9,)
    assert obs[2] == 1 and obs[:6].sum() == 1  # two stones left
    assert list(obs[6:]) == [0, 1, 0]  # the seat after the observer decides
    assert list(encoder.encode(game, 1)[6:]) == [1, 0, 0]


# ---------------------------------------------------------------- registration


def test_one_call_registers_and_unregistering_cleans_up(nim):
    assert registry.get_game("nim") is nim and "nim" in registry.game_names()
    game = nim.new_game(nim.rules(players=3, pile="7", misere=True))
    assert game.rules.to_dict() == {"players": 3, "pile": 7, "max_take": 3, "misere": True}
    assert registry.game_of(game) is nim and registry.game_of(game.rules) is nim
    assert registry.game_for_record(game.to_record()) is nim
    assert nim.env_name == "nim_v0" and game_agents(nim).baseline("greedy") is NimGreedyAgent
    assert ENV_ID in pettingzoo.aec_registry and GYM_ID in gymnasium.registry
    assert registry.register_game(nim) is nim  # the same spec again: nothing new
    with pytest.raises(ValueError, match="no rule option"):
        nim.rules(board="x")
    with pytest.raises(ValueError, match="nim plays 2-3 players, got 4"):
        nim.rules(players=4)
    registry.unregister_game("nim")
    assert "nim" not in registry.games()
    assert ENV_ID not in pettingzoo.aec_registry and GYM_ID not in gymnasium.registry
    with pytest.raises(registry.UnknownGameError, match="unknown game 'nim'; registered games"):
        registry.get_game("nim")


def test_a_game_missing_protocol_members_is_refused_at_registration():
    class Incomplete:
        def __init__(self, rules, seed=None):
            self.rules = rules

    spec = registry.GameSpec(
        name="incomplete",
        title="Incomplete",
        players=(2,),
        default_players=2,
        rules_class=NimRules,
        game_class=Incomplete,
        record_format="incomplete/1",
        observation=None,
        renderers=registry.Renderers(text=None),
    )
    with pytest.raises(TypeError, match=r"Incomplete does not implement the game protocol: missing \['num_players'"):
        registry.register_game(spec)
    assert "incomplete" not in registry.games()


def test_conflicting_names_and_ids_are_refused(nim):
    other = registry.GameSpec(**{**_fields(nim), "name": "nim2", "record_format": "nim2/1", "gym_id": None})
    with pytest.raises(ValueError, match=r"env_id 'thirdgame/nim-v0' already belongs to game 'nim'"):
        registry.register_game(other)
    twin = registry.GameSpec(**_fields(nim))
    with pytest.raises(ValueError, match="a game named 'nim' is already registered"):
        registry.register_game(twin)
    assert registry.get_game("nim") is nim
    assert registry.register_game(twin, replace=True) is twin and registry.get_game("nim") is twin


def _fields(spec: registry.GameSpec) -> dict:
    return {name: getattr(spec, name) for name in registry.GameSpec.__dataclass_fields__}


def test_registration_by_entry_point(monkeypatch):
    """A package declaring ``[project.entry-points."kardinal_env.games"] nim = "third_game:SPEC"``."""
    calls = []

    def fake_entry_points(group=None, **kw):
        calls.append(group)
        if group != registry.ENTRY_POINT_GROUP:
            return importlib.metadata.EntryPoints(())
        return importlib.metadata.EntryPoints(
            [importlib.metadata.EntryPoint(name="nim", value="third_game:SPEC", group=group)]
        )

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_ENTRY_POINTS_LOADED", False)
    try:
        assert "nim" in registry.games() and registry.get_game("nim") is third_game.SPEC
        assert calls == [registry.ENTRY_POINT_GROUP]
        assert ENV_ID in pettingzoo.aec_registry
        registry.games()
        assert calls == [registry.ENTRY_POINT_GROUP]  # looked up once
    finally:
        third_game.unregister()


@pytest.mark.parametrize(
    "value,error,fragment",
    [
        ("third_game:register", None, None),  # a function returning the spec
        ("third_game:FORMAT", TypeError, "must be a GameSpec or a function returning one, got str"),
        ("no_such_module_xyz:SPEC", ImportError, "cannot be loaded: ModuleNotFoundError"),
    ],
)
def test_entry_point_objects(monkeypatch, value, error, fragment):
    point = importlib.metadata.EntryPoint(name="nim", value=value, group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group=None, **kw: importlib.metadata.EntryPoints([point])
    )
    try:
        if error is None:
            registry.load_entry_points(force=True)
            assert registry.get_game("nim") is third_game.SPEC
        else:
            with pytest.raises(error, match=re.escape(f"entry point 'nim' ({value})") + ".*" + re.escape(fragment)):
                registry.load_entry_points(force=True)
    finally:
        third_game.unregister()


# ---------------------------------------------------------------- environments


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoo_api_test_on_the_generic_env(nim, players):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(pettingzoo.make("aec", ENV_ID, players=players, pile=9), num_cycles=200)
        api_test(GameEnv(game="nim", players=players), num_cycles=200)
        seed_test(lambda: generic_env(game="nim", players=players), num_cycles=50)
    unexpected = [str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)]
    assert not unexpected, unexpected


def test_generic_env_plays_rewards_renders_and_pickles(nim):
    raw = GameEnv(game="nim", players=2, pile=5, misere=True, render_mode="ansi")
    assert raw.metadata["name"] == "nim_v0" and raw.metadata["render_modes"] == ["human", "ansi"]
    space = raw.observation_space("player_0")["observation"]
    assert space.shape == (8,) and space.dtype == np.float32 and space.high.max() == 1.0
    raw.reset(seed=0)
    raw.step(raw.encode_move("3"))
    assert raw.decode_action(1) == "2" and raw.agent_selection == "player_1"
    with pytest.raises(IllegalMoveError, match="take at most the pile") as err:
        raw.step(2)  # three stones, two left
    assert err.value.rule == "pile"
    copy = pickle.loads(pickle.dumps(raw))
    assert copy.game.history == ["3"] and copy.agent_selection == "player_1"
    raw.step(raw.encode_move("1"))  # one left: seat 0 must take it and loses (misère)
    assert "pile: o (1 of 5 stones left)" in raw.render()
    raw.step(0)
    assert raw.terminations == {"player_0": True, "player_1": True}
    assert raw._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0}
    assert raw.infos["player_1"] == {"scores": [0, 1], "winners": [1]}
    wrapped = generic_env(game="nim")
    wrapped.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=r"action: 3 is outside Discrete\(3\)"):
        wrapped.step(3)
    with pytest.raises(ValueError, match=r"render_mode for nim must be one of \['human', 'ansi'\]"):
        GameEnv(game="nim", render_mode="rgb_array")
    with pytest.raises(ValueError, match="reward must be one of"):
        GameEnv(game="nim", reward="elo")
    with pytest.raises(
        ValueError, match=r"nim: option\(s\) \['window'\] are neither rule options \(\['misere', 'pile'\]\)"
    ):
        GameEnv(game="nim", window=9)


def test_gymnasium_view_against_bots(nim):
    env = gymnasium.make(GYM_ID, opponents=NimGreedyAgent(seed=0), pile=12)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        assert env.observation_space.contains(obs)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, obs["action_mask"].astype(bool))
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        assert reward == -1.0 and info["winners"] == [1]  # 12 stones: the greedy second player always wins
    view = VsBots(game="nim", players=3, learner_seat="random", opponents=[lambda g: g.legal_moves()[-1], "random"])
    view.reset(seed=5)
    assert view.learner_seat in range(3) and view.players == 3
    with pytest.raises(ValueError, match="opponents: expected 2 policies"):
        VsBots(game="nim", players=3, opponents=["random"])
    with pytest.raises(ValueError, match="VsBots needs game=NAME"):
        VsBots()


# ---------------------------------------------------------------- replays


def test_kardinal_replay_shows_a_nim_record(nim, tmp_path, capsys):
    game = _played(NimRules(players=3, pile=10), seed=2)
    path = tmp_path / "nim.json"
    path.write_text(json.dumps(game.to_record()))
    assert replay_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert nim.game_text(game) in out
    assert f"took the last stone; scores {game.scores()}, winners {game.winners()}" in out
    assert f"record OK: {game.move_count} moves replayed" in out
    again, text = replay_file(str(path))
    assert again.to_record() == game.to_record() and text == nim.game_text(game)
    assert replay_main([str(path), "-o", str(tmp_path / "nim.html")]) == 1
    assert "the game 'nim' has no HTML replay" in capsys.readouterr().err
    with pytest.raises(RecordError, match="has no HTML replay"):
        write_html(str(path), str(tmp_path / "nim.html"))
    record = game.to_record()
    record["moves"][0] = "9"
    path.write_text(json.dumps(record))
    assert replay_main([str(path)]) == 1
    assert f"error: {path}: move 0 ('9'): malformed move" in capsys.readouterr().err


def test_kardinal_replay_without_the_game_names_the_formats(tmp_path, capsys):
    path = tmp_path / "nim.json"
    path.write_text(json.dumps(_played(NimRules(), seed=1).to_record()))
    assert replay_main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "field 'format' must be 'kardinal-record/1'" in err and "got 'nim-record/1'" in err


# ---------------------------------------------------------------- documentation


def test_the_worked_example_in_the_docs_is_this_file():
    """docs/adding-a-game.md shows tests/third_game.py as its worked example, word for word."""
    doc = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    source = (ROOT / "tests" / "third_game.py").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", doc, flags=re.MULTILINE | re.DOTALL)
    assert source in blocks


# ---------------------------------------------------------------- reward terms over the protocol


def test_reward_terms_work_for_any_game():
    from kardinal_env.core.rewards import ShapingTracker, projected_margins, terminal_rewards, win_share

    game = NimGame(NimRules(players=3, pile=4, misere=True))
    tracker = ShapingTracker(score_shaping=0.5)
    for move in ("1", "1", "1"):
        tracker.before(game, game.current_player)
        game.play(move)
        assert tracker.reward(game, (game.current_player - 1) % 3) == 0.0  # nothing projected yet
    tracker.before(game, 0)
    game.play("1")  # seat 0 takes the last stone and loses: its margin drops from 0 to -1
    assert tracker.reward(game, 0) == -0.5 and projected_margins(game) == [-1.0, 0.0, 0.0]
    assert terminal_rewards(game) == [-1.0, 1.0, 1.0]
    assert terminal_rewards(game, "margin") == [-0.05, 0.0, 0.0]
    assert [win_share(game.winners(), seat) for seat in range(3)] == [0.0, 0.5, 0.5]
    with pytest.raises(ValueError, match=r"chip_shaping needs a game with chips_held\(\); NimGame has none"):
        ShapingTracker(chip_shaping=0.1).before(NimGame(NimRules()), 0)
    with pytest.raises(ValueError, match=r"reward must be one of \['win_loss', 'margin'\], got 'elo'"):
        terminal_rewards(game, "elo")


def test_gym_view_loads_spec_strings_through_the_agent_loader(nim, monkeypatch):
    from kardinal_env.core import single_agent

    calls = []

    def loader(spec, game=None, seed=None):
        calls.append((spec, game, seed))
        return NimGreedyAgent(seed=seed)

    monkeypatch.setattr(single_agent, "agent_loader", lambda: loader)
    view = VsBots(game="nim", players=3, opponents="greedy")
    assert calls == [("greedy", "nim", None), ("greedy", "nim", None)]
    assert all(isinstance(p, NimGreedyAgent) for p in view.opponents)

    def failing(spec, game=None, seed=None):
        raise ValueError(f"unknown agent spec {spec!r}")

    monkeypatch.setattr(single_agent, "agent_loader", lambda: failing)
    with pytest.raises(ValueError, match="opponents: unknown agent spec 'alphago'"):
        VsBots(game="nim", opponents="alphago")


def test_gym_view_finds_load_agent_in_the_agents_entry_point_group(nim, monkeypatch):
    """The loader is the ``load_agent`` of the first module entry (by name) of ``kardinal_env.agents``
    that has one: an entry naming an attribute (a game's agents) is not loaded, a module without
    ``load_agent`` is passed over."""
    import agents
    from kardinal_env.core import single_agent

    agents.registry.load_entry_points()  # the agents' registry reads the installed entries before the patch
    group = single_agent.AGENTS_GROUP
    points = [
        importlib.metadata.EntryPoint(name="a_game", value="no_such_module_xyz:AGENTS", group=group),
        importlib.metadata.EntryPoint(name="b_plain", value="json", group=group),
        importlib.metadata.EntryPoint(name="c_agents", value="agents", group=group),
    ]
    monkeypatch.setattr(  # only the agents' group: the games' entry points stay the installed ones
        importlib.metadata,
        "entry_points",
        lambda group=None, **kw: importlib.metadata.EntryPoints(points if group == single_agent.AGENTS_GROUP else ()),
    )
    assert group == "kardinal_env.agents" and single_agent.agent_loader() is agents.load_agent
    view = VsBots(game="nim", players=3, opponents="greedy")  # Nim's own greedy, from its agents' entry
    assert [type(p) for p in view.opponents] == [NimGreedyAgent, NimGreedyAgent]


def test_gym_view_without_an_agent_loader_says_so(nim, monkeypatch):
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None, **kw: importlib.metadata.EntryPoints(()))
    with pytest.raises(ValueError, match="opponents: 'greedy' is an agent spec, but no agent loader is installed"):
        VsBots(game="nim", opponents="greedy")
    VsBots(game="nim", opponents="random").reset(seed=0)  # no loader needed


def test_an_installed_entry_point_makes_kardinal_replay_know_the_game(tmp_path):
    """End to end, no monkeypatching: a distribution on the path that declares
    ``[kardinal_env.games] nim = third_game:SPEC``, and the ``kardinal-replay`` console command."""
    site = tmp_path / "site"
    info = site / "nim_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nim-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[kardinal_env.games]\nnim = third_game:SPEC\n")
    game = _played(NimRules(players=2, pile=9), seed=3)
    record = tmp_path / "nim.json"
    record.write_text(json.dumps(game.to_record()))
    script = Path(sys.executable).parent / "kardinal-replay"
    path = os.pathsep.join([str(site), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])
    result = subprocess.run(
        [str(script), str(record)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert result.returncode == 0, result.stderr
    assert f"record OK: {game.move_count} moves replayed" in result.stdout
    assert "took the last stone" in result.stdout
