"""The ``illegal_action`` option (issue 54): one rule for an action the mask forbids, on every environment.

* The rule (:mod:`kardinal_env.core.illegal`, :func:`kardinal_env.core.rewards.forfeit_rewards`): the
  modes, a forfeit's rewards under both reward schemes and its report.
* The AEC environments (``kardinal_v0``, ``kardinal_koenig_v1`` on the compiled core and on the Python
  engine, the generic ``GameEnv`` of the test-only Nim): ``"raise"`` is the default and unchanged (the
  engine's error, nothing changes); ``"lose"`` ends the episode — the offender's loss reward and the
  others' win reward, every agent's ``infos`` naming the rule and the action, the game untouched, masks
  all zero, the AEC loop drains, ``reset`` starts afresh, pickling keeps it, PettingZoo's ``api_test``
  passes; a value outside the action space raises in every mode; ``env()`` keeps PettingZoo's
  ``TerminateIllegalWrapper`` unless ``illegal_action`` is given.
* The Gymnasium view: ``gymnasium.utils.env_checker.check_env`` with its default arguments on every id
  this package registers with Gymnasium (found in ``gymnasium.registry`` by entry point, Nim's
  included), and failing on the built-in ids under ``"raise"``; the forfeit step; ``"raise"``
  unchanged; an opponent's illegal move raises in every mode.
* ``VectorEnv``: the python backend against AEC envs in ``"lose"`` with illegal actions mixed in
  (rewards, terminations, final observations and infos, the next games); the core backend byte for
  byte in lockstep with the python backend through forfeits, natural ends, auto-resets and resets with
  and without seeds (both games; ``game(i)`` and the legal ids too); ids outside the action space raise.
* RLlib (``integration``): RLlib's pre-check on the environment of ``env_creator`` for every registered
  game; an env runner built from ``ppo_config`` runs the pre-check; a forfeit through ``PettingZooEnv``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
import third_game
from gymnasium.utils.env_checker import check_env
from helpers import check_decisions_as_aec, kardinal_core_or_skip, step_as_aec
from pettingzoo.test import api_test

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.illegal import ILLEGAL_ACTIONS, check_illegal_action, forfeit
from kardinal_env.core.registration import gymnasium_entry
from kardinal_env.core.registry import games, get_game
from kardinal_env.core.rewards import LOSS_AND_WIN, REWARD_SCHEMES, forfeit_rewards
from kardinal_env.integrations.common import aec_env
from kardinal_env.vector import IllegalActionError, VectorEnv

#: What PettingZoo's api_test says about every env with the classic Dict(observation, action_mask).
API_TEST_WARNINGS = ("probably should be gymnasium.spaces.box", "Observation is not a NumPy array")
ARRAYS = ("observation", "action_mask", "current_player", "rewards", "terminated", "truncated", "final_observation")
BUILT_IN_GYM_IDS = ("kardinal/KardinalVsBots-v0", "kardinal/KardinalKoenigVsBots-v1")


@pytest.fixture
def nim():
    with third_game.registered() as spec:
        yield spec


@pytest.fixture(params=["core", "python"])
def engine(request, monkeypatch):
    """The games on the compiled core (skipped where it is not built) or on the Python engines."""
    if request.param == "core":
        kardinal_core_or_skip()
        monkeypatch.delenv("KARDINAL_ENV_BACKEND", raising=False)
    else:
        monkeypatch.setenv("KARDINAL_ENV_BACKEND", "python")
    return request.param


def _illegal(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A random id of the action space that ``mask`` forbids."""
    forbidden = np.flatnonzero(np.asarray(mask) == 0)
    return int(forbidden[rng.integers(len(forbidden))])


def _to_an_illegal_decision(env, rng: np.random.Generator, moves: int) -> None:
    """Play ``moves`` random legal moves in the AEC env, then its first legal action until its mask forbids
    something (Nim: take one stone until fewer than three are left)."""
    played = 0
    while played < moves or env.action_mask().all():
        legal = env.legal_actions()
        env.step(int(legal[rng.integers(len(legal))] if played < moves else legal[0]))
        played += 1
        assert not any(env.terminations.values()), "the game ended before an illegal action could be tried"


def _expected_report(error: IllegalMoveError, action: int, seat: int, players: int) -> dict:
    move = error.move if isinstance(error.move, str) else None
    report = {"rule": error.rule, "message": str(error), "action": action, "move": move, "seat": seat}
    return {"scores": None, "winners": [s for s in range(players) if s != seat], "illegal_action": report}


# ---------------------------------------------------------------- the rule


@pytest.mark.parametrize("scheme", REWARD_SCHEMES)
def test_forfeit_rewards_are_the_schemes_loss_and_win(scheme):
    loss, win = LOSS_AND_WIN[scheme]
    assert (loss, win) == (-1.0, 1.0)  # the ends of both schemes' ranges (margin: its clipped scale)
    for players in (2, 3, 5):
        for loser in range(players):
            assert forfeit_rewards(players, loser, scheme) == [loss if s == loser else win for s in range(players)]
    with pytest.raises(ValueError, match="loser must be a seat 0..2"):
        forfeit_rewards(3, 3, scheme)
    with pytest.raises(ValueError, match="reward must be one of"):
        forfeit_rewards(3, 0, "points")


def test_the_modes_and_the_report():
    assert ILLEGAL_ACTIONS == ("raise", "lose")
    for mode in ILLEGAL_ACTIONS:
        assert check_illegal_action(mode) == mode
    for bad in ("terminate", "LOSE", None, True, 1):
        with pytest.raises(ValueError, match=r"illegal_action must be one of \['raise', 'lose'\]"):
            check_illegal_action(bad)
    error = IllegalMoveError("payment: too few cards ('K@LO5/22')", "payment", "K@LO5/22")
    lost = forfeit(error, np.int64(17), 2, 4, "margin")
    assert lost.rewards == (1.0, 1.0, -1.0, 1.0) and lost.winners == [0, 1, 3]
    info = lost.info()
    assert info == _expected_report(error, 17, 2, 4) and type(info["illegal_action"]["action"]) is int
    info["illegal_action"]["rule"] = "changed"  # a new dict each time
    assert lost.info()["illegal_action"]["rule"] == "payment"
    assert forfeit(IllegalMoveError("x", "pile", 3), 1, 0, 2, "win_loss").illegal_action["move"] is None


# ---------------------------------------------------------------- AEC environments

AEC_GAMES = [
    ("kardinal", {"players": 3}),
    ("kardinal", {"players": 2, "window": 9, "chip_shaping": 0.5}),
    ("kardinal_koenig", {"players": 4}),
    ("nim", {"players": 3, "pile": 12}),
]
AEC_IDS = [f"{game}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for game, kw in AEC_GAMES]


@pytest.mark.parametrize("reward", REWARD_SCHEMES)
@pytest.mark.parametrize("game, kw", AEC_GAMES, ids=AEC_IDS)
def test_aec_lose_ends_the_episode_by_forfeit(nim, engine, game, kw, reward):
    env = aec_env(game, wrapped=False, illegal_action="lose", reward=reward, **kw)
    twin = aec_env(game, wrapped=False, reward=reward, **kw)  # the default: raise
    assert env.illegal_action == "lose" and twin.illegal_action == "raise"
    env.reset(seed=3)
    rng = np.random.default_rng(1)
    _to_an_illegal_decision(env, rng, moves=3)
    twin.reset(seed=3)
    for move in env.game.history:
        twin.step(twin.encode_move(move))
    if game != "nim":
        assert env.game.compiled == (engine == "core")  # both mask paths of the env are exercised
    agent, seat = env.agent_selection, env.agent_name_mapping[env.agent_selection]
    action = _illegal(env.action_mask(), rng)
    with pytest.raises(IllegalMoveError) as raised:
        twin.step(action)
    assert raised.value.rule != "action"
    history = list(env.game.history)
    env.step(action)

    players = len(env.possible_agents)
    assert env.forfeited is not None and env.forfeited.seat == seat
    assert env.rewards == {a: -1.0 if a == agent else 1.0 for a in env.possible_agents}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    report = _expected_report(raised.value, action, seat, players)
    assert report["illegal_action"]["move"] == env.decode_action(action)
    assert all(env.infos[a] == report for a in env.possible_agents), env.infos[agent]
    assert env.game.history == history and not env.game.is_over  # no move was played
    assert env.legal_actions().size == 0
    for a in env.possible_agents:
        assert not env.action_mask(a).any() and not env.observe(a)["action_mask"].any()
    copy = pickle.loads(pickle.dumps(env))  # an unpickled env continues: still forfeited
    assert copy.forfeited == env.forfeited and copy.infos == env.infos and not copy.action_mask(agent).any()

    finals = {}
    for a in env.agent_iter():  # the AEC loop hands every agent its final reward once, then drains
        obs, r, term, trunc, info = env.last()
        assert term and not trunc and info == report and not obs["action_mask"].any()
        finals[a] = r
        env.step(None)
    assert finals == {a: -1.0 if a == agent else 1.0 for a in env.possible_agents} and not env.agents

    env.reset(seed=3)
    assert env.forfeited is None and env.action_mask().any() and env.game.move_count == 0
    assert not any(env.terminations.values()) and all(info == {} for info in env.infos.values())
    env.step(int(env.legal_actions()[0]))


@pytest.mark.parametrize("game, kw", AEC_GAMES, ids=AEC_IDS)
def test_aec_raise_is_the_default_and_changes_nothing(nim, game, kw):
    env = aec_env(game, wrapped=False, **kw)
    env.reset(seed=5)
    rng = np.random.default_rng(2)
    _to_an_illegal_decision(env, rng, moves=2)
    history, agent, mask = list(env.game.history), env.agent_selection, env.action_mask().copy()
    with pytest.raises(IllegalMoveError) as raised:
        env.step(_illegal(mask, rng))
    assert raised.value.rule != "action" and env.forfeited is None
    assert env.game.history == history and env.agent_selection == agent
    assert np.array_equal(env.action_mask(), mask) and not any(env.terminations.values())
    assert all(info == {} for info in env.infos.values())
    env.step(int(env.legal_actions()[0]))  # the game goes on
    assert len(env.game.history) == len(history) + 1


@pytest.mark.parametrize("mode", ILLEGAL_ACTIONS)
@pytest.mark.parametrize("game, kw", AEC_GAMES, ids=AEC_IDS)
def test_aec_values_outside_the_action_space_raise_in_every_mode(nim, game, kw, mode):
    env = aec_env(game, wrapped=False, illegal_action=mode, **kw)
    env.reset(seed=0)
    n = env.num_actions
    for bad in (-1, n, n + 7, 2**63, 1.5, True, "3", np.float32(2.0)):
        with pytest.raises(IllegalMoveError) as raised:
            env.step(bad)
        assert raised.value.rule == "action", bad
    assert env.forfeited is None and not any(env.terminations.values()) and env.game.move_count == 0
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        aec_env(game, wrapped=False, illegal_action="terminate", **kw)


@pytest.mark.parametrize("game, kw", AEC_GAMES, ids=AEC_IDS)
def test_env_keeps_the_classic_wrapper_unless_illegal_action_is_given(nim, game, kw):
    rng = np.random.default_rng(4)

    def stepped(**options):
        env = aec_env(game, **options, **kw)  # env(): the classic wrappers
        env.reset(seed=1)
        _to_an_illegal_decision(env.unwrapped, rng, moves=2)
        return env, env.agent_selection, _illegal(env.unwrapped.action_mask(), rng)

    classic, agent, action = stepped()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's "Illegal move made" warning
        classic.step(action)
    assert classic.rewards == {a: -1.0 if a == agent else 0 for a in classic.possible_agents}
    assert all(classic.terminations.values()) and classic.unwrapped.forfeited is None  # the wrapper's doing

    lose, agent, action = stepped(illegal_action="lose")
    lose.step(action)
    assert lose.rewards == {a: -1.0 if a == agent else 1.0 for a in lose.possible_agents}
    assert lose.infos[agent]["illegal_action"]["action"] == action and lose.unwrapped.forfeited is not None

    raising, _, action = stepped(illegal_action="raise")
    with pytest.raises(IllegalMoveError):
        raising.step(action)
    with pytest.raises(IllegalMoveError, match="outside Discrete"):
        raising.step(raising.unwrapped.num_actions)


@pytest.mark.parametrize("game, kw", [AEC_GAMES[1], AEC_GAMES[2], AEC_GAMES[3]], ids=AEC_IDS[1:])
def test_pettingzoo_api_test_passes_under_lose(nim, game, kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(aec_env(game, illegal_action="lose", **kw), num_cycles=100)
        api_test(aec_env(game, wrapped=False, illegal_action="lose", **kw), num_cycles=100)
    unexpected = [str(w.message) for w in caught if not any(a in str(w.message) for a in API_TEST_WARNINGS)]
    assert not unexpected, unexpected


# ---------------------------------------------------------------- the Gymnasium view


def _our_gym_ids() -> list[str]:
    """Every Gymnasium id this package registered: the registry's ids whose entry point is ours."""
    entry_point = gymnasium_entry(get_game("kardinal"))[0]
    return sorted(i for i, spec in gymnasium.registry.items() if spec.entry_point == entry_point)


def test_gymnasium_check_env_passes_on_every_registered_id(nim):
    ids = _our_gym_ids()
    assert set(ids) == {spec.gym_id for spec in games().values() if spec.gym_id is not None}
    assert set(ids) >= {*BUILT_IN_GYM_IDS, nim.gym_id}
    for gym_id in ids:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("always")
            check_env(gymnasium.make(gym_id).unwrapped)  # default arguments: render modes checked too
        assert not caught, (gym_id, [str(w.message) for w in caught])


@pytest.mark.parametrize("gym_id", BUILT_IN_GYM_IDS)
def test_gymnasium_check_env_fails_under_raise(gym_id):
    """What made the default "lose": the checker steps unmasked samples."""
    with pytest.raises(IllegalMoveError), contextlib.redirect_stdout(io.StringIO()):
        check_env(gymnasium.make(gym_id, illegal_action="raise").unwrapped)


GYM_CASES = [
    ("kardinal/KardinalVsBots-v0", {"players": 2}),
    ("kardinal/KardinalKoenigVsBots-v1", {"players": 3}),
    (third_game.SPEC.gym_id, {"players": 2, "pile": 4}),
]


@pytest.mark.parametrize("reward", REWARD_SCHEMES)
@pytest.mark.parametrize("gym_id, kw", GYM_CASES, ids=[c[0] for c in GYM_CASES])
def test_gym_view_lose_ends_the_episode_by_forfeit(nim, gym_id, kw, reward):
    env = gymnasium.make(gym_id, reward=reward, learner_seat=1, **kw).unwrapped
    twin = gymnasium.make(gym_id, reward=reward, learner_seat=1, illegal_action="raise", **kw).unwrapped
    assert env.illegal_action == "lose" and twin.illegal_action == "raise"
    rng = np.random.default_rng(0)
    for seed in range(20):  # Nim: a position where the learner has an illegal action
        env.reset(seed=seed)
        if not env.action_masks().all():
            break
    twin.reset(seed=seed)
    action = _illegal(env.action_masks(), rng)
    with pytest.raises(IllegalMoveError) as raised:
        twin.step(action)
    history = list(env.aec.game.history)
    obs, r, terminated, truncated, info = env.step(action)
    players = env.players
    assert terminated and not truncated and r == -1.0 and type(r) is float
    assert info == {"learner_seat": 1, **_expected_report(raised.value, action, 1, players)}
    assert env.observation_space.contains(obs) and not obs["action_mask"].any() and not env.action_masks().any()
    assert env.aec.game.history == history and env.forfeited is not None
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(action)
    obs, info = env.reset(seed=seed)
    assert env.forfeited is None and obs["action_mask"].any() and env.action_masks().any()
    env.step(int(np.flatnonzero(env.action_masks())[0]))


@pytest.mark.parametrize("mode", ILLEGAL_ACTIONS)
@pytest.mark.parametrize("gym_id, kw", GYM_CASES[:2], ids=list(BUILT_IN_GYM_IDS))
def test_gym_view_raise_mode_and_values_outside_the_action_space(gym_id, kw, mode):
    env = gymnasium.make(gym_id, illegal_action=mode, **kw).unwrapped
    env.reset(seed=0)
    n = int(env.action_space.n)
    for bad in (-1, n, 1.5, True):
        with pytest.raises(IllegalMoveError) as raised:
            env.step(bad)
        assert raised.value.rule == "action"
    assert env.forfeited is None and env.action_masks().any()
    if mode == "raise":
        history = list(env.aec.game.history)
        with pytest.raises(IllegalMoveError) as raised:
            env.step(_illegal(env.action_masks(), np.random.default_rng(0)))
        assert raised.value.rule != "action" and env.aec.game.history == history
        env.step(int(np.flatnonzero(env.action_masks())[0]))  # the episode goes on
        assert len(env.aec.game.history) > len(history)
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        gymnasium.make(gym_id, illegal_action="terminate", **kw)


@pytest.mark.parametrize("mode", ILLEGAL_ACTIONS)
def test_an_opponents_illegal_move_raises_in_every_mode(mode):
    env = gymnasium.make(
        BUILT_IN_GYM_IDS[0], players=2, learner_seat=1, opponents=lambda game: "H0@-1,0", illegal_action=mode
    ).unwrapped
    with pytest.raises(IllegalMoveError, match="rule IV: house 0 at -1,0 touches the nave"):
        env.reset(seed=0)  # the opponent (seat 0) moves first


# ---------------------------------------------------------------- VectorEnv


def _actions(env: VectorEnv, rng: np.random.Generator, p: float) -> np.ndarray:
    """Random legal actions, each replaced with probability ``p`` by an illegal id of its game."""
    actions = env.random_actions(rng)
    for i in np.flatnonzero(rng.random(env.num_envs) < p):
        if not env.action_mask[i].all():
            actions[i] = _illegal(env.action_mask[i], rng)
    return actions


VECTOR_AEC_CASES = [
    ("kardinal", 2, {"window": 9}, "win_loss", 0.5, 400, 0.03),
    ("kardinal", 3, {}, "margin", 0.0, 200, 0.03),
    ("kardinal_koenig", 3, {}, "win_loss", 0.0, 300, 0.03),
    ("kardinal_koenig", 4, {"discard": "any"}, "margin", 0.0, 300, 0.03),
    ("nim", 3, {"pile": 9}, "win_loss", 0.0, 150, 0.3),
]


@pytest.mark.parametrize("game, players, options, reward, chip_shaping, steps, p", VECTOR_AEC_CASES, ids=repr)
def test_vector_python_backend_forfeits_as_the_aec_envs(nim, game, players, options, reward, chip_shaping, steps, p):
    n, seed = 3, 7
    extra = {"chip_shaping": chip_shaping} if chip_shaping else {}
    common = dict(players=players, reward=reward, illegal_action="lose", **options, **extra)
    env = VectorEnv(game, n, seed=seed, backend="python", **common)
    envs = [aec_env(game, wrapped=False, **common) for _ in range(n)]
    for i, aec in enumerate(envs):
        aec.reset(seed=seed + i)
    env.reset()
    rng = np.random.default_rng(3)
    forfeits = natural = 0
    for step in range(steps):
        _, ended = step_as_aec(env, envs, _actions(env, rng, p), f"step {step}")
        for i in ended:
            forfeits += envs[i].forfeited is not None
            natural += envs[i].forfeited is None
            envs[i].reset()  # the next game: its generator goes on, as the slot's does
        check_decisions_as_aec(env, envs, f"step {step}")
    assert forfeits >= n and natural >= 1, (forfeits, natural)


VECTOR_CORE_CASES = [
    ("kardinal", 2, {}, "win_loss", 0.0, 0),
    ("kardinal", 3, {"window": 9, "preset": "german"}, "margin", 0.5, 2),
    ("kardinal_koenig", 3, {}, "win_loss", 0.0, 0),
    ("kardinal_koenig", 5, {"discard": "any"}, "margin", 0.0, 2),
]


def _same(py: VectorEnv, cc: VectorEnv, where: str) -> None:
    for name in ARRAYS:
        a, b = getattr(py, name), getattr(cc, name)
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), f"{where}: {name}"
    assert py.final_info == cc.final_info, f"{where}: final_info"
    assert [ids.tolist() for ids in py.legal_actions()] == [ids.tolist() for ids in cc.legal_actions()], where


@pytest.mark.parametrize("game, players, options, reward, chip_shaping, threads", VECTOR_CORE_CASES, ids=repr)
def test_vector_core_backend_forfeits_as_the_python_backend(
    core, game, players, options, reward, chip_shaping, threads
):
    n = 4
    extra = {"chip_shaping": chip_shaping} if chip_shaping else {}
    common = dict(players=players, reward=reward, illegal_action="lose", seed=11, **options, **extra)
    py = VectorEnv(game, n, backend="python", **common)
    cc = VectorEnv(game, n, backend="core", threads=threads, **common)
    rng = np.random.default_rng(5)
    forfeits = natural = 0
    plan = [(None, 300, 0.02), ("again", 150, 0.05), (23, 250, 0.01)]  # reset seeds, steps, forfeit rate
    for seed, steps, p in plan:
        for env in (py, cc):
            env.reset() if seed == "again" else env.reset(seed=seed)
        _same(py, cc, f"reset {seed}")
        for step in range(steps):
            twin = copy.deepcopy(rng)
            actions = py.random_actions(rng)
            assert np.array_equal(actions, cc.random_actions(twin))  # the same legal ids, detached slots too
            for i in np.flatnonzero(rng.random(n) < p):
                actions[i] = _illegal(py.action_mask[i], rng)
            py.step(actions)
            cc.step(actions)
            where = f"reset {seed} step {step}"
            _same(py, cc, where)
            for info in py.final_info.values():
                forfeits += "illegal_action" in info
                natural += "illegal_action" not in info
            i = step % n
            assert py.game(i).history == cc.game(i).history, f"{where}: game({i})"
    assert forfeits >= 2 * n and natural >= 2, (forfeits, natural)


@pytest.mark.parametrize("game", ["kardinal", "kardinal_koenig"])
def test_vector_ids_outside_the_action_space_raise_under_lose(engine, game):
    env = VectorEnv(game, 3, seed=0, backend=engine, illegal_action="lose")
    assert env.illegal_action == "lose" and VectorEnv(game, 1, backend=engine).illegal_action == "raise"
    env.reset()
    rng = np.random.default_rng(0)
    env.step(_actions(env, rng, 1.0))  # every game forfeited once (the core: its slots go on in Python)
    assert len(env.final_info) == 3 and all("illegal_action" in info for info in env.final_info.values())
    before = {name: getattr(env, name).copy() for name in ARRAYS}
    for bad in (-1, env.num_actions):
        actions = env.random_actions(rng)
        actions[1] = bad
        with pytest.raises(IllegalActionError, match=r"^game 1: action: ") as raised:
            env.step(actions)
        assert raised.value.rule == "action" and raised.value.index == 1
        assert all(np.array_equal(getattr(env, name), before[name]) for name in ARRAYS)  # nothing moved
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        VectorEnv(game, 2, backend=engine, illegal_action="terminate")


# ---------------------------------------------------------------- RLlib


@pytest.mark.integration
def test_rllib_precheck_passes_on_every_registered_game(nim):
    pytest.importorskip("ray.rllib")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from kardinal_env.integrations.rllib import env_creator

    names = sorted(games())
    assert {"kardinal", "kardinal_koenig", "nim"} <= set(names)
    for name in names:
        for _ in range(3):  # unmasked samples: mostly forfeits, sometimes a legal move
            check_multiagent_environments(env_creator({}, game=name))


@pytest.mark.integration
def test_rllib_forfeit_through_pettingzoo_env():
    pytest.importorskip("ray.rllib")
    from kardinal_env.integrations.rllib import ILLEGAL_ACTION, env_creator

    assert ILLEGAL_ACTION == "lose"
    env = env_creator({"players": 3}, game="kardinal_koenig")
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    action = _illegal(obs[agent]["action_mask"], np.random.default_rng(0))
    _, rewards, terminated, truncated, infos = env.step({agent: action})
    assert terminated["__all__"] and not truncated["__all__"]
    assert rewards == {a: -1.0 if a == agent else 1.0 for a in rewards} and len(rewards) == 3
    assert all(info["illegal_action"]["action"] == action for info in infos.values())
    classic = env_creator({"players": 3, "illegal_action": None}, game="kardinal_koenig")  # PettingZoo's wrapper
    obs, _ = classic.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, rewards, terminated, _, _ = classic.step({agent: action})
    assert terminated["__all__"] and rewards[agent] == -1.0 and sorted(rewards.values()) == [-1.0, 0, 0]


@pytest.mark.integration
@pytest.mark.parametrize("game", ["kardinal", "kardinal_koenig"])
def test_rllib_ppo_config_runs_the_env_precheck(monkeypatch, game):
    pytest.importorskip("ray.rllib")
    import ray.rllib.env.multi_agent_env_runner as runner_module

    from kardinal_env.integrations.rllib import ppo_config

    config = ppo_config(game, players=3, env_config={"window": 9} if game == "kardinal" else None)
    assert config.disable_env_checking is False
    checked = []
    check = runner_module.check_multiagent_environments

    def spy(env):
        check(env)  # RLlib's own pre-check: raises on a failure
        checked.append(env)

    monkeypatch.setattr(runner_module, "check_multiagent_environments", spy)
    runner = runner_module.MultiAgentEnvRunner(config=config)
    try:
        assert len(checked) == config.num_envs_per_env_runner == 1
    finally:
        runner.stop()
