"""Every registered game's PettingZoo AEC environment (Kardinal's ``kardinal_v0``, K&K's
``kardinal_koenig_v1`` and the generic environment of tests/third_game.py's Nim, registered for the test):
PettingZoo's API, seed and render tests, and the mask equal to the engine's legal moves at every
decision with the codec round-tripping. Then Kardinal's own: kardinal_v0's codec and observation encoder,
rewards, pickling and the gym view (K&K's own: tests/test_kardinal_koenig_env.py)."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
import warnings
from contextlib import contextmanager, nullcontext

import gymnasium
import numpy as np
import pettingzoo
import pytest
import third_game
from pettingzoo.test import api_test, render_test, seed_test
from reference import RefGame

from kardinal_env import IllegalMoveError, kardinal_v0
from kardinal_env.core.generic_env import GameEnv
from kardinal_env.core.generic_env import env as generic_env
from kardinal_env.core.registry import get_game
from kardinal_env.kardinal import Game, Rules
from kardinal_env.kardinal.actions import ActionCodec, colour_order
from kardinal_env.kardinal.engine import action_codec
from kardinal_env.kardinal.notation import square_key
from kardinal_env.kardinal.observation import CHANNEL_NAMES, NUM_CHANNELS, ObservationEncoder

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

VARIANTS = [
    dict(players=2),
    dict(players=2, preset="german"),
    dict(players=3),
    dict(players=3, preset="german"),
    dict(players=3, shared_pool=True),
    dict(players=4),
    dict(players=4, preset="german"),
    dict(players=4, shared_pool=True, preset="german"),
]
IDS = ["-".join(f"{k}={v}" for k, v in kw.items()) for kw in VARIANTS]

# Warnings PettingZoo's api_test emits for every env with the classic Dict observation
# ({"observation", "action_mask"}); the classic games (chess, connect four) trigger the same ones.
ALLOWED_WARNINGS = {
    # api_test expects a Box observation space; the classic layout is a Dict holding the mask.
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    # ... and so it checks the dict returned by observe() against np.ndarray.
    "Observation is not a NumPy array",
}


def _check_warnings(caught) -> None:
    unexpected = [str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)]
    assert not unexpected, f"unexpected warnings: {unexpected}"


def _random_play(env, rng, check=None):
    """Play one game through the AEC loop with random legal actions; ``check(env, agent, obs)`` per decision."""
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))


#: Every registered game's environments: (game, options, PettingZoo api_test cycles, seed_test cycles).
ENVS = (
    [("kardinal", kw, 100, 100) for kw in VARIANTS]
    + [("kardinal_koenig", {"players": p, "discard": d}, 300, 200) for p in (3, 4, 5) for d in ("one", "any")]
    + [("nim", {"players": 2}, 100, 100), ("nim", {"players": 3, "pile": 15, "misere": True}, 100, 100)]
)
#: Games played per variant by the mask test, and the fewest decisions they must have had in all.
GAMES_PLAYED = {"kardinal": 4, "kardinal_koenig": 1, "nim": 4}
MIN_DECISIONS = {"kardinal": 100, "kardinal_koenig": 40, "nim": 10}
ENV_IDS = ["-".join([game, *(f"{k}={v}" for k, v in kw.items())]) for game, kw, _, _ in ENVS]


@contextmanager
def _game_env(game: str):
    """``make(**options)``: the game's AEC env (wrapped) or, with ``raw=True``, raw env; Nim registered
    for the block."""
    context = third_game.registered() if game == "nim" else nullcontext()
    with context:
        spec = get_game(game)
        module = spec.load("env_module") if spec.env_module else None

        def make(raw: bool = False, **options):
            if module is None:
                return (GameEnv if raw else generic_env)(game=game, **options)
            return (module.raw_env if raw else module.env)(**options)

        yield make


@pytest.mark.parametrize("game, kw, api_cycles, seed_cycles", ENVS, ids=ENV_IDS)
def test_pettingzoo_api_seed_and_render(game, kw, api_cycles, seed_cycles):
    with _game_env(game) as make, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(**kw), num_cycles=api_cycles)
        seed_test(lambda: make(**kw), num_cycles=seed_cycles)
        render_test(lambda render_mode=None: make(render_mode=render_mode, **kw))
    _check_warnings(caught)


@pytest.mark.parametrize(
    "game, kw",
    [(game, kw) for game, kw, _, _ in ENVS]
    + [("kardinal", dict(players=2, window=9)), ("kardinal", dict(players=4, window=11))],
    ids=ENV_IDS + ["kardinal-players=2-window=9", "kardinal-players=4-window=11"],
)
def test_mask_equals_legal_moves_every_decision(game, kw):
    """At every decision the decoded mask is exactly game.legal_moves(), the codec round-trips and the
    seats not on turn get a zero mask; at the end no seat has a legal action and the win_loss rewards
    are +1 for the winners, -1 for the others."""
    rng = random.Random(7)
    decisions = 0
    with _game_env(game) as make:
        env = make(raw=True, **kw)
        for game_index in range(GAMES_PLAYED[game]):
            env.reset(seed=game_index + 10 * kw["players"])

            def check(env, agent, obs):
                nonlocal decisions
                game = env.game
                assert agent == f"player_{game.current_player}" and env.agent_name_mapping[agent] == game.current_player
                mask = obs["action_mask"]
                assert mask.dtype == np.int8 and mask.any(), "the selected agent always has a legal action"
                actions = np.flatnonzero(mask)
                legal = game.legal_moves()
                assert sorted(env.decode_action(a) for a in actions) == sorted(legal)
                assert sorted(env.encode_move(m) for m in legal) == sorted(actions.tolist())
                for other in env.agents:
                    if other != agent:
                        assert not env.observe(other)["action_mask"].any(), "agents not on turn get a zero mask"
                decisions += 1

            rewards = {agent: 0.0 for agent in env.possible_agents}
            for agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                rewards[agent] += reward
                if term or trunc:
                    env.step(None)
                    continue
                check(env, agent, obs)
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]).tolist())))
            assert env.game.is_over
            assert not any(env.observe(a)["action_mask"].any() for a in env.possible_agents)
            winners = env.game.winners()
            assert [rewards[f"player_{s}"] for s in range(kw["players"])] == [
                1.0 if s in winners else -1.0 for s in range(kw["players"])
            ]
    assert decisions > MIN_DECISIONS[game]


def test_same_agent_acts_for_chip_and_cardinal_and_skipped_seats_are_never_selected():
    """After a cardinal decision the next seat in turn order that has a legal build is selected; seats
    without one are skipped. The expected seat is derived independently: the naive reference
    implementation (tests/reference.py) replays every move and lists each seat's builds by brute force."""
    rng = random.Random(3)
    env = kardinal_v0.raw_env(players=4, preset="german")
    saw_repeat = saw_skip = False
    for seed in range(6):
        env.reset(seed=seed)
        ref = RefGame(4, preset="german")
        previous_phase, previous_seat = None, None
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            game = env.game
            seat = env.agent_name_mapping[agent]
            assert seat == game.current_player == ref.seat
            if game.phase in ("chip", "cardinal"):
                assert seat == previous_seat, "the builder decides its chip and cardinal moves itself"
                saw_repeat = True
            if game.phase == "build" and previous_phase == "cardinal":
                can_build = [bool(ref.builds(s)) for s in range(4)]
                assert can_build == [bool(game.builds_for(s)) for s in range(4)]
                following = [(previous_seat + i) % 4 for i in range(1, 5)]
                expected = next(s for s in following if can_build[s])
                assert seat == expected, f"seat {expected} is the next with a legal build, {agent} was selected"
                assert sorted(ref.builds(seat)) == sorted(game.legal_moves())
                if expected != following[0]:
                    saw_skip = True
            previous_phase, previous_seat = game.phase, seat
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
            ref.play(env.decode_action(action))
            env.step(action)
        assert ref.phase == "over" and ref.scores == env.game.scores()
    assert saw_repeat
    assert saw_skip, "random 4-player games should include missed turns"


def test_pickle_round_trip_continues_identically():
    env = kardinal_v0.env(players=3, preset="german")
    env.reset(seed=1)
    rng = random.Random(5)
    for _ in range(15):
        obs, *_ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(10):
        a, b = env.last(), clone.last()
        assert env.agent_selection == clone.agent_selection
        np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
        np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
        legal = np.flatnonzero(a[0]["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        env.step(action)
        clone.step(action)


def test_determinism_with_global_rng_noise():
    """Two runs of the same actions agree even when global random/np.random are used in between."""

    def run(noise: bool):
        env = kardinal_v0.env(players=4)
        env.reset(seed=11)
        rng = random.Random(11)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            trace.append((agent, reward, term, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
            if noise:
                random.random()
                np.random.rand(3)
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
        return trace

    assert run(False) == run(True)


def test_incremental_observation_equals_fresh_encoding():
    rng = random.Random(2)
    for kw in VARIANTS:
        rules = Rules(**kw)
        game = Game(rules)
        tracked = ObservationEncoder(rules)
        while not game.is_over:
            for seat in range(rules.players):
                fresh = ObservationEncoder(rules).encode(game, seat)
                np.testing.assert_array_equal(tracked.encode(game, seat), fresh)
            game.play(rng.choice(game.legal_moves()))
        np.testing.assert_array_equal(tracked.encode(game, 0), ObservationEncoder(rules).encode(game, 0))


def test_encoder_follows_alternating_games_and_survives_pickling():
    rng = random.Random(5)
    rules = Rules(players=3)
    games = [Game(rules), Game(rules)]
    encoder = ObservationEncoder(rules)
    for turn in range(80):
        game = games[turn % 2]
        if game.is_over:
            continue
        game.play(rng.choice(game.legal_moves()))
        copy = pickle.loads(pickle.dumps(encoder))
        for enc in (encoder, copy):
            np.testing.assert_array_equal(enc.encode(game, turn % 3), ObservationEncoder(rules).encode(game, turn % 3))


def test_raw_step_accepts_exactly_the_masked_cardinal_actions():
    raw = kardinal_v0.raw_env(players=2)
    raw.reset(seed=0)
    rng = random.Random(3)
    codec = action_codec(raw.rules)
    checked = 0
    while raw.game.phase != "over" and checked < 12:
        agent = raw.agent_selection
        mask = raw.observe(agent)["action_mask"]
        if raw.game.phase == "cardinal":
            seat = raw.game.current_player
            for action in range(codec.cardinal_offset, codec.num_actions):
                if codec.chip_offset <= action < codec.keep_action:
                    continue
                assert raw.game.is_legal_code(codec.decode_code(action, seat)) == bool(mask[action]), action
            if raw.game.cardinal is not None:
                own = raw.encode_move("C@{},{}".format(*raw.game.cardinal))
                assert own == codec.cardinal_offset + codec.square_index(square_key(*raw.game.cardinal))
                assert mask[own] == 0
                with pytest.raises(IllegalMoveError) as info:
                    pickle.loads(pickle.dumps(raw)).step(own)
                assert info.value.rule == "cardinal"
            else:
                assert mask[codec.keep_action] == 0
            checked += 1
        raw.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked == 12


def test_observation_contents_are_ego_centric():
    rules = Rules(players=2)
    game = Game(rules)
    for move in ["T1@-1,0", "chip:0", "C@0,1", "H2@-2,0", "C-"]:
        game.play(move)
    enc = ObservationEncoder(rules)
    names = {n: i for i, n in enumerate(CHANNEL_NAMES)}
    half = 26

    def at(obs, name, x, y):
        return int(obs[names[name], half - y, x + half])

    seat0, seat1 = enc.encode(game, 0), enc.encode(game, 1)
    assert seat0.shape == (NUM_CHANNELS, 53, 53)
    # Colour 1 is seat 0's second colour (slot 1) and seat 1's fourth (slot 3).
    assert at(seat0, "tower_slot1", -1, 0) == 1 and at(seat1, "tower_slot3", -1, 0) == 1
    assert at(seat0, "house_slot2", -2, 0) == 1 and at(seat1, "house_slot0", -2, 0) == 1
    assert at(seat0, "nave", 0, 0) == 1 and at(seat0, "clock_tower", 1, 0) == 1
    assert at(seat0, "cardinal", 0, 1) == 1 and at(seat0, "sites", 0, 1) == 1
    assert at(seat0, "last_built", -2, 0) == 1 and at(seat0, "last_built", -1, 0) == 0
    # Constant planes: seat 0 holds the compensation chip of colour 0; seat 1 took a chip of
    # colour 1 (its house touched tower 1). Seat 1 sees seat 0 as "next seat" (seat slot 1).
    assert int(seat0[names["held_seat0_slot0"]].min()) == 1
    assert int(seat1[names["held_seat1_slot2"]].max()) == 1
    assert game.chips() == [[1, 0, 0, 0], [0, 1, 0, 0]]
    assert colour_order(rules, 1) == (2, 3, 0, 1)
    assert int(seat1[names["held_seat0_slot3"]].max()) == 1  # seat 1's own chip of colour 1: its colour slot 3
    assert int(seat1[names["on_turn_seat1"]].max()) == 1 and int(seat0[names["on_turn_seat0"]].max()) == 1
    assert int(seat0[names["phase_build"]].max()) == 1
    assert int(seat0[names["left_slot1_tower"]].max()) == 1 and int(seat0[names["left_slot0_tower"]].max()) == 2
    assert int(seat1[names["left_slot0_house"]].max()) == 1


def test_codec_round_trip_and_layout():
    rules = Rules(players=4)
    codec = ActionCodec(rules)
    assert codec.num_actions == 17 * 53 * 53 + 5
    rng = np.random.default_rng(0)
    round_trips = 0
    for action in list(rng.integers(0, codec.num_actions, 2000)) + [codec.keep_action, codec.chip_offset + 3]:
        for seat in range(4):
            try:
                move = codec.decode_action(int(action), seat)
            except ValueError as exc:  # only a yard whose second square leaves the window has no move
                assert 8 <= action // (53 * 53) < 16, (action, str(exc))
                assert "second square lies outside the window" in str(exc)
                continue
            assert codec.encode_move(move, seat) == action
            round_trips += 1
    assert round_trips >= 7800  # of 8008 (the edge yards are about 1%)
    assert codec.decode_action(codec.keep_action, 0) == "C-"
    assert codec.decode_action(codec.chip_offset, 2) == "chip:2"
    assert codec.decode_action(codec.cardinal_offset + 26 * 53 + 26, 0) == "C@0,0"
    assert codec.decode_action(0 * 2809 + 26 * 53 + 25, 1) == "H1@-1,0"
    assert codec.decode_action(8 * 2809 + 26 * 53 + 25, 0) == "Y0@-1,0:0,0"  # horizontal yard
    assert codec.decode_action(12 * 2809 + 26 * 53 + 25, 0) == "Y0@-1,0:-1,1"  # vertical yard
    with pytest.raises(ValueError, match="outside Discrete"):
        codec.decode_action(codec.num_actions, 0)
    with pytest.raises(ValueError, match="window"):
        ActionCodec(rules, window=9)  # an unbounded game in a small window would lose squares


def test_window_variant_makes_outside_moves_illegal_in_engine_too():
    env = kardinal_v0.raw_env(players=2, window=5)
    env.reset()
    assert env.num_actions == env.game.num_actions == 17 * 25 + 5
    assert env.observation_space("player_0")["observation"].shape == (NUM_CHANNELS, 5, 5)
    game = env.game
    with pytest.raises(IllegalMoveError, match="window") as info:
        game.play("H0@-3,0")
    assert info.value.rule == "window"
    rng = random.Random(1)
    _random_play(env, rng)
    for b in env.game.buildings():
        assert all(abs(x) <= 2 and abs(y) <= 2 for x, y in b.squares)


def test_illegal_actions_raw_raises_and_env_terminates_with_penalty():
    raw = kardinal_v0.raw_env(players=2)
    raw.reset()
    with pytest.raises(IllegalMoveError, match=r"rule IV: house 0 at -1,0 touches the nave"):
        raw.step(raw.encode_move("H0@-1,0"))
    with pytest.raises(IllegalMoveError, match=r"rule II: tower 0 at 2,0 touches no house"):
        raw.step(raw.encode_move("T0@2,0"))
    with pytest.raises(IllegalMoveError, match="outside Discrete"):
        raw.step(raw.num_actions + 5)
    env = kardinal_v0.env(players=2)
    env.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(env.unwrapped.encode_move("H0@-1,0"))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0}
    assert env.agent_selection == "player_0" and env.last()[1] == -1.0  # the offender's accumulated reward


@pytest.mark.parametrize("reward", ["win_loss", "margin"])
def test_terminal_rewards_are_credited_to_each_seat(reward):
    env = kardinal_v0.raw_env(players=3, reward=reward)
    env.reset()
    rng = random.Random(4)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        totals[agent] += r
        if term:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    scores, winners = env.game.scores(), env.game.winners()
    for seat, agent in enumerate(env.possible_agents):
        if reward == "win_loss":
            assert totals[agent] == (1.0 if seat in winners else -1.0)
        else:
            best_other = max(s for i, s in enumerate(scores) if i != seat)
            assert totals[agent] == pytest.approx(np.clip((scores[seat] - best_other) / 20, -1, 1))


def test_chip_shaping_goes_to_the_acting_agent():
    env = kardinal_v0.raw_env(players=2, chip_shaping=0.1)
    env.reset()
    env.step(env.encode_move("T1@-1,0"))  # seat 0 builds; no chip yet (only the cathedral touched)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    env.step(env.encode_move("chip:3"))  # compensation chip
    assert env.rewards["player_0"] == pytest.approx(0.1) and env.rewards["player_1"] == 0.0
    env.step(env.encode_move("C@0,1"))
    assert env.agent_selection == "player_1"
    env.step(env.encode_move("H2@-2,0"))  # touches tower 1 of seat 0: seat 1 takes a chip of colour 1
    assert env.rewards["player_1"] == pytest.approx(0.1) and env.rewards["player_0"] == 0.0


def test_registration_and_light_import():
    env = pettingzoo.make("aec", "kardinal/kardinal-v0", players=3)
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    assert env.unwrapped.metadata["name"] == "kardinal_v0"
    code = "import sys, kardinal_env; print('torch' in sys.modules, 'pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_spaces_are_built_once_and_shared():
    env = kardinal_v0.raw_env(players=4)
    spaces = {id(env.observation_space(a)) for a in env.possible_agents}
    assert len(spaces) == 1 and env.observation_space("player_0") is env.observation_space("player_0")
    assert env.action_space("player_3").n == 17 * 53 * 53 + 5


def test_render_modes():
    env = kardinal_v0.raw_env(players=4, render_mode="ansi")
    env.reset()
    _random_play(env, random.Random(0))
    text = env.render()
    assert "N nave" in text and "scores:" in text
    env = kardinal_v0.raw_env(players=2, render_mode="rgb_array")
    env.reset()
    blank = env.render()
    env.step(env.encode_move("T1@-1,0"))
    env.step(env.encode_move("chip:0"))
    env.step(env.encode_move("C@0,1"))
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] == img.shape[1]
    assert (img != blank).any(axis=2).sum() > 50  # the house and the cardinal changed pixels
    assert len({tuple(p) for p in img.reshape(-1, 3)}) >= 5  # cathedral, house, cardinal, sites, ground


@pytest.mark.parametrize(
    ("game", "options", "message"),
    [
        ("kardinal", {"window": 10}, "window must be an odd integer"),
        ("kardinal", {"reward": "elo"}, "reward must be one of"),
        ("kardinal", {"players": 5}, "players must be 2, 3 or 4"),
        ("kardinal", {"render_mode": "pygame"}, "render_mode"),
        ("kardinal_koenig", {"reward": "winloss"}, "reward must be one of"),
        ("kardinal_koenig", {"players": 2}, "players"),
        ("kardinal_koenig", {"render_mode": "video"}, "render_mode"),
    ],
)
def test_bad_options_raise_clear_errors(game, options, message):
    """kardinal_v0's and kardinal_koenig_v1's."""
    with pytest.raises(ValueError, match=message):
        get_game(game).load("env_module").raw_env(**options)


def test_gym_single_agent_view_plays_full_games():
    env = gymnasium.make("kardinal/KardinalVsBots-v0", players=3, learner_seat="random")
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        assert env.observation_space.contains(obs)
        total = 0.0
        while True:
            mask = env.unwrapped.action_masks()
            assert mask.dtype == bool and mask.any()
            np.testing.assert_array_equal(mask, obs["action_mask"].astype(bool))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            if terminated:
                break
        assert total == (1.0 if info["learner_seat"] in info["winners"] else -1.0)
    with pytest.raises(ValueError, match="learner_seat"):
        gymnasium.make("kardinal/KardinalVsBots-v0", players=2, learner_seat=2)


def test_constant_planes_match_the_public_game_state():
    """Every constant plane equals the value computed from the engine's public accessors."""
    rng = random.Random(9)
    names = {n: i for i, n in enumerate(CHANNEL_NAMES)}
    for kw in VARIANTS:
        rules = Rules(**kw)
        n = rules.players
        game = Game(rules)
        enc = ObservationEncoder(rules)
        while True:
            for seat in range(n):
                obs = enc.encode(game, seat)
                order = colour_order(rules, seat)

                def value(name, obs=obs):
                    plane = obs[names[name]]
                    assert plane.min() == plane.max(), f"{name} is not constant"
                    return int(plane[0, 0])

                for j, c in enumerate(order):
                    assert value(f"supply_slot{j}") == game.supply()[c]
                    for s_index, shape in enumerate(("house", "tower", "yard")):
                        assert value(f"left_slot{j}_{shape}") == game.edifices_left()[c][s_index]
                    assert value(f"buildable_slot{j}") == (c in game.seat_colours(seat))
                for k in range(4):
                    other = (seat + k) % n
                    for j, c in enumerate(order):
                        assert value(f"held_seat{k}_slot{j}") == (game.chips()[other][c] if k < n else 0)
                    assert value(f"cathedral_touch_seat{k}") == (game.cathedral_touches()[other] if k < n else 0)
                    deciding = not game.is_over and k < n and other == game.current_player
                    assert value(f"on_turn_seat{k}") == deciding
                for phase in ("build", "chip", "cardinal"):
                    assert value(f"phase_{phase}") == (game.phase == phase)
                assert value("pending_chips") == game.pending_chips
                assert value(f"players_{n}") == 1
                assert value("opt_shared_pool") == rules.shared_pool
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
