"""The core-backed :class:`~kardinal_env.kardinal.core_game.CoreGame` against the Python reference engine.

``Game(rules)`` is a ``CoreGame`` when the compiled core is used; these tests play seeded random games
on both (``Game.reference(rules)`` is always the Python engine) and compare the whole public API at
every decision: turn state, chips, buildings, sites, legal moves in notation and as codes, the
heuristics' queries, ``live_view``, observations and action ids, records, ``clone`` and pickling; at
the end scores, winners and finishing order. Illegal input raises the same error with the same
message. ``kardinal_v0`` on both backends hands out the same observations, masks and rewards, byte
for byte, and on the core owns its buffers. The backend choice of ``Game(...)`` is checked with and
without the core.

Skipped without the core unless ``KARDINAL_REQUIRE_CORE=1`` (scripts/test.sh), except the backend
tests that need no core.
"""

from __future__ import annotations

import pickle
import random
import warnings

import numpy as np
import pytest

from kardinal_env import IllegalMoveError, kardinal_v0
from kardinal_env.core.registry import game_of, get_game
from kardinal_env.kardinal import Game, Rules, compiled
from kardinal_env.kardinal.actions import ActionCodec
from kardinal_env.kardinal.observation import ObservationEncoder

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane


def _variants() -> list[Rules]:
    out = [
        Rules(players=2),
        Rules(players=2, preset="german", window=7),
        Rules(players=3),
        Rules(players=3, preset="german"),
        Rules(players=3, exhausted_colour="substitute", neutral_build_chips="keep"),
        Rules(players=3, shared_pool=True, window=9),
        Rules(players=4),
        Rules(players=4, preset="german", shared_pool=True),
        Rules(players=4, exhausted_colour="substitute", window=5),
    ]
    return out


def _state(game) -> dict:
    n = game.num_players
    return {
        "turn": (game.current_player, game.phase, game.is_over, game.move_count, game.pending_chips),
        "chips": (game.chips(), game.supply(), game.set_aside(), [game.chips_held(s) for s in range(n)]),
        "edifices": (game.edifices_left(), game.cathedral_touches(), game.last_built),
        "cardinal": (game.cardinal_key, game.cardinal, game.may_keep_cardinal(), game.cardinal_target_keys()),
        "board": (game.buildings(), game.sites()),
        "history": (game.history, game.history_codes),
        "moves": (game.legal_moves(), game.legal_move_codes()),
        "projected": (game.projected_scores(), [game.projected_holdings(s) for s in range(n)]),
        "builds": [(game.builds_for(s), game.builds_for(s, ignore_cardinal=True)) for s in range(n)],
        "next": (game.next_builder(), game.next_builder(ignore_cardinal=True)),
        "live_view": tuple(game.live_view()),
        "record": game.to_record(),
        "repr": repr(game),
        "seat_colours": [game.seat_colours(s) for s in range(n)],
    }


def _assert_same(py, cc, where: str) -> None:
    expected, got = _state(py), _state(cc)
    for key in expected:
        assert got[key] == expected[key], f"{where}: {key} differs"


@pytest.mark.parametrize("rules", _variants(), ids=repr)
def test_core_game_follows_the_python_engine(core, rules):
    from kardinal_env.kardinal.core_game import CoreGame

    rng = random.Random(rules.players * 7 + (rules.window or 0))
    encoder, codec = ObservationEncoder(rules), ActionCodec(rules)
    for game_no in range(2):
        py, cc = Game.reference(rules), Game(rules)
        assert type(py) is Game and type(cc) is CoreGame and cc.compiled and not py.compiled
        while True:
            where = f"game {game_no}, move {py.move_count}"
            _assert_same(py, cc, where)
            if py.phase == "build":
                for code in py.legal_move_codes()[:: max(1, len(py.legal_move_codes()) // 15)]:
                    assert cc.build_chips(code) == py.build_chips(code), (where, code)
            seat = 0 if py.current_player is None else py.current_player
            assert np.array_equal(encoder.encode(cc, seat), encoder.encode(py, seat)), where
            assert np.array_equal(codec.legal_actions(cc), codec.legal_actions(py)), where
            assert np.array_equal(codec.action_mask(cc, seat), codec.action_mask(py, seat)), where
            if py.is_over:
                break
            move = rng.choice(py.legal_moves())
            py.play(move)
            if rng.random() < 0.5:
                cc.play(move)
            else:
                cc.play_code(py.history_codes[-1])
            if rng.random() < 0.1:  # clones and pickles continue independently
                twin = pickle.loads(pickle.dumps(cc)) if rng.random() < 0.5 else cc.clone()
                _assert_same(cc, twin, where + " (copy)")
                if not twin.is_over:
                    twin.play(twin.legal_moves()[0])
                    assert twin.move_count == cc.move_count + 1
                    _assert_same(py, cc, where + " (original after the copy moved)")
        assert cc.scores() == py.scores() and cc.winners() == py.winners()
        assert cc.finishing_order() == py.finishing_order()
        replayed = Game.from_record(cc.to_record())
        assert type(replayed) is CoreGame and replayed.to_record() == py.to_record()


def _error(play, move) -> tuple[str, str]:
    with pytest.raises(IllegalMoveError) as info:
        play(move)
    return info.value.rule, str(info.value)


def test_illegal_moves_name_the_rule_as_the_python_engine(core):
    """At every decision of seeded games: fixed bad input, and moves that were legal a decision earlier
    (now breaking some rule), give the Python engine's error, rule and message; nothing is played."""
    fixed = ["H0@5,5", "H0@0,1", "C@0,1", "C-", "chip:0", "chip:3", "Q0@1,1", "", 5, None, "H9@0,3", "Y0@2,1:2,2"]
    codes = [(0, 0, 0, 0, 0), (2, -1, -1, -1, -1), (1, -1, 0, -1, -1), (0, 1, 2, 8256, -1)]
    seen: set[str] = set()
    for players in (2, 3):
        rules = Rules(players=players, window=9 if players == 3 else None)
        rng = random.Random(players)
        py, cc = Game.reference(rules), Game(rules)
        earlier: list[str] = []
        while True:
            for move in fixed + earlier[:6]:
                if move in py.legal_moves():
                    continue
                expected = _error(py.play, move)
                assert _error(cc.play, move) == expected
                seen.add(expected[0])
            for code in codes:
                if py.is_legal_code(code):
                    continue
                expected = _error(py.play_code, code)
                assert _error(cc.play_code, code) == expected
            assert cc.to_record() == py.to_record()  # nothing was played by the refused moves
            if py.is_over:
                break
            earlier = rng.sample(py.legal_moves(), min(6, len(py.legal_moves())))
            move = rng.choice(py.legal_moves())
            py.play(move)
            cc.play(move)
    assert {"malformed move", "rule 0 (placement)", "phase", "game over", "cardinal"} <= seen
    assert len(seen) >= 8, seen


def test_bad_queries_raise_clear_errors(core):
    game = Game(Rules(players=2))
    with pytest.raises(RuntimeError, match="only defined once the game is over"):
        game.scores()
    with pytest.raises(RuntimeError, match="only defined once the game is over"):
        game.finishing_order()
    with pytest.raises(ValueError, match="out of range"):
        game.projected_holdings(2)
    with pytest.raises(ValueError, match="build move code"):
        game.build_chips((2, -1, -1, -1, -1))
    with pytest.raises(TypeError):
        game.build_chips("H0@0,2")
    assert not game.is_cardinal_target(-5) and not game.is_legal_code("H0@0,2")


def test_backend_variable_chooses_the_game(core, monkeypatch):
    from kardinal_env.kardinal.core_game import CoreGame

    rules = Rules(players=3)
    assert type(Game(rules)) is CoreGame
    assert type(get_game("kardinal").new_game(rules)) is CoreGame
    assert game_of(Game(rules)).name == "kardinal"
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    assert type(Game(rules)) is Game and type(get_game("kardinal").new_game(rules)) is Game
    with pytest.raises(RuntimeError, match="KARDINAL_ENV_BACKEND=python"):
        CoreGame(rules)
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "core")
    assert type(Game(players=2)) is CoreGame
    assert type(Game.reference(rules)) is Game  # always the Python engine


def test_a_missing_core_warns_once_at_the_first_game(monkeypatch):
    """Without the core (backend unset) ``Game(...)`` is the Python engine, and the first one of the
    process gives the one ``CoreMissingWarning`` (issue 54: a plain ``pip install kardinal-env`` must not
    run on the slower engines silently), pointing at the caller's line; nothing afterwards warns. With
    ``KARDINAL_ENV_BACKEND=python`` nothing warns at all."""
    from kardinal_env.core import backend
    from kardinal_env.koenig import Game as KoenigGame
    from kardinal_env.koenig import Rules as KoenigRules

    monkeypatch.setattr(backend, "_module", None)
    monkeypatch.setattr(backend, "_tried", True)
    monkeypatch.setattr(backend, "_warned", False)
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not Game(Rules(players=2)).compiled and compiled.core_module() is None
    monkeypatch.delenv(compiled.BACKEND_VARIABLE)
    with pytest.warns(backend.CoreMissingWarning, match=r"not built.*kardinal-env\[core\]") as caught:
        game = Game(Rules(players=2))
    assert type(game) is Game and not game.compiled
    assert len(caught) == 1 and caught[0].filename == __file__, caught[0].filename
    assert issubclass(backend.CoreMissingWarning, RuntimeWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process
        assert not KoenigGame(KoenigRules(players=3)).compiled
        assert compiled.core_module() is None
        kardinal_v0.env(players=2).reset(seed=0)


def _env_run(seed: int, players: int, backend: str, monkeypatch, **options) -> list:
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, backend)
    env = kardinal_v0.env(players=players, **options)
    env.reset(seed=seed)
    assert env.unwrapped.game.compiled == (backend == "core")
    rng = random.Random(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, info))
        if term or trunc:
            env.step(None)
            continue
        other = env.unwrapped.possible_agents[(env.unwrapped.agent_name_mapping[agent] + 1) % players]
        trace.append(env.unwrapped.action_mask(other).tobytes())  # another seat's all-zero mask
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return trace


@pytest.mark.parametrize(
    "players, options", [(2, {}), (3, {"chip_shaping": 0.1}), (4, {"reward": "margin", "window": 9})]
)
def test_env_on_the_core_matches_the_python_backend_byte_for_byte(core, monkeypatch, players, options):
    python = _env_run(players, players, "python", monkeypatch, **options)
    assert _env_run(players, players, "core", monkeypatch, **options) == python
    assert len(python) > 40


def test_env_hands_out_its_own_buffers_on_the_core(core):
    env = kardinal_v0.raw_env(players=4)
    env.reset(seed=0)
    first = env.observe("player_0")
    buffers = (first["observation"], first["action_mask"])
    assert first["action_mask"].dtype == np.int8 and first["action_mask"].sum() == len(env.legal_actions())
    env.step(int(env.legal_actions()[0]))
    again = env.observe("player_0")  # the same arrays, rewritten in place
    assert again["observation"] is buffers[0] and again["action_mask"] is buffers[1]
    assert np.array_equal(again["observation"], ObservationEncoder(env.rules).encode(env.game, 0))
    assert env.observe("player_1")["observation"] is not buffers[0]  # one pair of arrays per seat
    restored = pickle.loads(pickle.dumps(env))  # the game continues; the copy has its own buffers
    assert restored.game.history == env.game.history and restored.game.compiled
    assert restored.observe("player_0")["observation"] is not buffers[0]
    assert np.array_equal(restored.observe("player_0")["observation"], env.observe("player_0")["observation"])


def test_wrappers_for_learners_copy_the_env_buffers(core):
    """Code that keeps observations gets copies (FreshObservationWrapper: RLlib; fresh_observation:
    the single-agent env, Tianshou), while the AEC env rewrites its own arrays."""
    from kardinal_env.core.env_utils import FreshObservationWrapper

    env = kardinal_v0.env(players=2)
    env.reset(seed=1)
    wrapped = FreshObservationWrapper(env)
    kept = wrapped.observe("player_0")
    owned = env.observe("player_0")
    assert kept["observation"] is not owned["observation"]
    assert np.array_equal(kept["observation"], owned["observation"])
    before = kept["observation"].copy(), kept["action_mask"].copy()
    while env.agent_selection == "player_0":  # the build, then the compensation chip and the cardinal
        env.step(int(env.unwrapped.legal_actions()[0]))
    now = env.observe("player_0")
    assert now["observation"] is owned["observation"] and not np.array_equal(now["observation"], before[0])
    assert np.array_equal(kept["observation"], before[0]) and np.array_equal(kept["action_mask"], before[1])
    assert wrapped.agent_selection == env.agent_selection == "player_1"
    assert wrapped.last()[0]["observation"] is not env.unwrapped.observe("player_1")["observation"]
