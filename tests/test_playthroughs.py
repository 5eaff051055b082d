"""Replay the golden playthroughs (tests/golden/playthroughs/*.json) through the games' ``raw_env``.

Each file froze, per decision of one seeded random game of Kardinal (``kardinal_v0``) or Kardinal &
König (``kardinal_koenig_v1``), the selected seat, the phase, the sorted legal moves, the action
mask's nonzero indices, the per-part sums (plain and position-weighted) of the observation —
Kardinal's 72 channels, Kardinal & König's segments — the action taken and its notation; and at the
end the scores, winners and rewards (see tests/golden/make_playthroughs.py).
Every frozen value must equal what the current code gives: a changed rule, action layout or observation
layout fails here with the game, the decision and the channel, segment or index that changed.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]

PLAYTHROUGHS = Path(__file__).parent / "golden" / "playthroughs"
FILES = sorted(PLAYTHROUGHS.glob("*.json"))


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_playthroughs", PLAYTHROUGHS.parent / "make_playthroughs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _load_generator()

#: Phases every game of a variant decides in (and observes a non-selected agent in).
PHASES = {
    GEN.KARDINAL: ({"build", "chip", "cardinal"}, {"build", "chip", "cardinal"}),
    GEN.KOENIG: ({"place", "second", "draw"}, {"place", "draw"}),
}


def _compare_parts(where: str, what: str, names: list[str], frozen: list[int], now: list[int]) -> None:
    changed = [(names[c], f, n) for c, (f, n) in enumerate(zip(frozen, now)) if f != n]
    assert not changed, "observation layout changed: {}: {}".format(
        where, "; ".join(f"{name} {what} {n}, frozen {f}" for name, f, n in changed[:8])
    )


def _check_obs(where: str, env, frozen: dict, obs: np.ndarray) -> None:
    """``frozen`` holds ``obs_sums`` and (except for final positions) ``obs_moments``."""
    sums = frozen["obs_sums"]
    names = [name for name, _ in GEN.observation_parts(env, obs)]
    assert len(names) == len(sums), f"observation layout changed: {where}: {len(names)} parts, frozen {len(sums)}"
    _compare_parts(where, "sum", names, sums, GEN.part_sums(env, obs))
    if "obs_moments" in frozen:  # equal sums but moved values
        _compare_parts(where, "position-weighted sum", names, frozen["obs_moments"], GEN.part_moments(env, obs))


def _check_mask(where: str, frozen: list[int], mask: np.ndarray) -> None:
    now = np.flatnonzero(mask).tolist()
    if now != frozen:
        added = sorted(set(now) - set(frozen))[:10]
        removed = sorted(set(frozen) - set(now))[:10]
        raise AssertionError(
            f"action mask changed: {where}: {len(now)} legal actions, frozen {len(frozen)}; "
            f"new indices {added}, missing indices {removed}"
        )
    assert set(np.unique(mask).tolist()) <= {0, 1}, f"action mask changed: {where}: values other than 0/1"


def _check_other(where: str, env, other: dict) -> None:
    ob = env.observe(other["agent"])
    _check_obs(f"{where}, non-selected {other['agent']}", env, other, ob["observation"])
    nonzero = int(np.count_nonzero(ob["action_mask"]))
    assert nonzero == other["mask_nonzero"] == 0, f"{where}: non-selected {other['agent']} has {nonzero} mask ones"


def test_the_files_are_the_generators_games():
    """Every game the generator lists has its file, and there is no stale file."""
    expected = {name for name, _, _, _ in GEN.all_games()}
    assert {f.name for f in FILES} == expected
    games = [game for _, game, _, _ in GEN.all_games()]
    assert games.count(GEN.KARDINAL) >= 18 and games.count(GEN.KOENIG) >= 6


def test_the_variants_are_covered():
    records = [json.loads(f.read_text()) for f in FILES]
    kinds = {(GEN.game_of_record(r), json.dumps(r["env_kwargs"], sort_keys=True)) for r in records}
    for game, kwargs in [
        (GEN.KARDINAL, {"players": 2}),
        (GEN.KARDINAL, {"players": 3, "preset": "german"}),
        (GEN.KARDINAL, {"players": 3, "shared_pool": True}),
        (GEN.KARDINAL, {"players": 4}),
        (GEN.KARDINAL, {"players": 4, "preset": "german", "shared_pool": True}),
        (GEN.KARDINAL, {"players": 3, "window": 9}),
    ] + [
        (GEN.KOENIG, {"players": p, **({"discard": "any"} if discard == "any" else {})})
        for p in (3, 4, 5)
        for discard in ("one", "any")
    ]:
        assert (game, json.dumps(kwargs, sort_keys=True)) in kinds, (game, kwargs)
    for r in records:  # each game decides in every phase and observes a non-selected agent in some
        decided, observed = PHASES[GEN.game_of_record(r)]
        phases = {d["phase"] for d in r["decisions"]}
        if r["env_kwargs"].get("discard") == "any":
            decided = decided | {"discard"}
        assert phases == decided, (r["env_kwargs"], r["seed"], phases)
        assert {d["phase"] for d in r["decisions"] if "other" in d} >= observed


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_playthrough(path):
    record = json.loads(path.read_text())
    name = path.stem
    env = GEN.make_env(GEN.game_of_record(record), record["env_kwargs"])
    env.reset(seed=record["seed"])
    decisions = record["decisions"]
    for i, frozen in enumerate(decisions):
        where = f"{name} decision {i} (seat {frozen['seat']}, {frozen['phase']})"
        assert not any(env.terminations.values()), f"{where}: the game ended early"
        agent = env.agent_selection
        assert agent == frozen["agent"], f"turn order changed: {where}: {agent} is selected"
        seat = env.agent_name_mapping[agent]
        game = env.game
        assert seat == frozen["seat"] == game.current_player, f"turn order changed: {where}: seat {seat}"
        assert game.phase == frozen["phase"], f"phase changed: {where}: now {game.phase!r}"
        moves = sorted(game.legal_moves())
        if moves != frozen["legal_moves"]:
            raise AssertionError(
                f"legal moves changed: {where}: new {sorted(set(moves) - set(frozen['legal_moves']))[:10]}, "
                f"missing {sorted(set(frozen['legal_moves']) - set(moves))[:10]}"
            )
        ob = env.observe(agent)
        assert ob["action_mask"].dtype == np.int8, f"{where}: mask dtype {ob['action_mask'].dtype}"
        _check_mask(where, frozen["mask"], ob["action_mask"])
        _check_obs(where, env, frozen, ob["observation"])
        if "other" in frozen:
            _check_other(where, env, frozen["other"])
        action = frozen["action"]
        move = env.decode_action(action)
        assert move == frozen["move"], f"action layout changed: {where}: action {action} decodes to {move!r}"
        assert move in moves, f"{where}: the recorded move {move!r} is not legal"
        assert env.encode_move(move) == action, f"action layout changed: {where}: {move!r} encodes differently"
        env.step(action)
    assert all(env.terminations.values()), f"{name}: the game is not over after {len(decisions)} decisions"
    game = env.game
    assert game.scores() == record["scores"], f"{name}: final scores {game.scores()}"
    assert game.winners() == record["winners"], f"{name}: winners {game.winners()}"
    assert [env.rewards[a] for a in env.possible_agents] == record["rewards"], f"{name}: final rewards"
    for agent, frozen in record["final_obs_sums"].items():
        _check_obs(f"{name} final position, {agent}", env, {"obs_sums": frozen}, env.observe(agent)["observation"])
        assert not env.observe(agent)["action_mask"].any(), f"{name}: {agent} has mask ones after the end"


@pytest.mark.parametrize("game", [GEN.KARDINAL, GEN.KOENIG])
def test_the_policy_is_reproducible(game):
    """The recorded actions are what the generator's seeded random policy picks (so --check can regenerate)."""
    path = next(f for f in FILES if GEN.game_of_record(json.loads(f.read_text())) == game)
    record = json.loads(path.read_text())
    assert GEN.play(game, record["env_kwargs"], record["seed"]) == record


def test_a_changed_segment_is_named():
    """The comparison names the part that changed (here a K&K segment)."""
    path = PLAYTHROUGHS / "koenig_3p_one_seed101.json"
    record = json.loads(path.read_text())
    env = GEN.make_env(GEN.KOENIG, record["env_kwargs"])
    env.reset(seed=record["seed"])
    frozen = dict(record["decisions"][0])
    index = list(env.unwrapped.encoder.segments).index("hand")
    frozen["obs_sums"] = list(frozen["obs_sums"])
    frozen["obs_sums"][index] += 1
    with pytest.raises(AssertionError, match="segment hand sum"):
        _check_obs("decision 0", env, frozen, env.observe(frozen["agent"])["observation"])
