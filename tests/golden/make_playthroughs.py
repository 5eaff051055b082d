"""Golden playthroughs of the PettingZoo env (OpenSpiel's habit): regenerate or check them.

    .venv/bin/python tests/golden/make_playthroughs.py           # rewrite tests/golden/playthroughs/*.json
    .venv/bin/python tests/golden/make_playthroughs.py --check   # compare with the current code, write nothing

Each file is one full seeded game played through ``kardinal_v0.raw_env``: ``env.reset(seed=seed)``, then at
every decision a ``random.Random(seed)`` picks uniformly among the nonzero indices of the selected agent's
``action_mask``. Per decision it freezes the selected seat, the phase, ``sorted(game.legal_moves())``, the
mask's nonzero indices, the 72 per-channel sums of the observation and 72 position-weighted sums (so a
moved plane shows too), the action taken and its notation (``env.unwrapped.decode_action``); at a few
decisions also the observation of a non-selected agent (whose mask must be all zeros). At the end:
scores, winners and the final rewards.

The files are the referee for refactors of the engine, the action codec and the observation encoder:
``tests/test_playthroughs.py`` replays them and names the first value that changed. Only regenerate
them for an intended change of behaviour or layout, and say so in the commit message.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

from kardinal_env import kardinal_v0

HERE = Path(__file__).parent / "playthroughs"

#: name -> (raw_env keyword arguments, seeds). One file per (name, seed).
VARIANTS: dict[str, tuple[dict, tuple[int, ...]]] = {
    "english_2p": (dict(players=2), (1, 2, 3)),
    "german_3p_neutral": (dict(players=3, preset="german"), (4, 5, 6)),
    "english_3p_shared_pool": (dict(players=3, shared_pool=True), (7, 8, 9)),
    "english_4p": (dict(players=4), (10, 11, 12)),
    "german_4p_shared_pool": (dict(players=4, preset="german", shared_pool=True), (13, 14, 15)),
    "english_3p_window9": (dict(players=3, window=9), (16, 17, 18)),
}

#: Decisions (0-based, when the game is that long) at which a non-selected agent is observed too.
OTHER_AGENT_DECISIONS = (0, 1, 26)


def file_name(name: str, seed: int) -> str:
    return f"{name}_seed{seed}.json"


def channel_sums(obs: np.ndarray) -> list[int]:
    return obs.reshape(obs.shape[0], -1).sum(axis=1, dtype=np.int64).tolist()


def channel_moments(obs: np.ndarray) -> list[int]:
    """Per channel, the sum of value x (1 + flat square index): unlike the plain sum it changes when
    a plane's squares move (a flipped or shifted layout), and still names the channel."""
    flat = obs.reshape(obs.shape[0], -1).astype(np.int64)
    return (flat @ np.arange(1, flat.shape[1] + 1, dtype=np.int64)).tolist()


def decision_frame(env, agent: str) -> dict:
    """The frozen values of the decision now pending, without the action (see the module docstring)."""
    game = env.unwrapped.game
    seat = env.unwrapped.agent_name_mapping[agent]
    ob = env.observe(agent)
    return {
        "seat": seat,
        "agent": agent,
        "phase": game.phase,
        "legal_moves": sorted(game.legal_moves()),
        "mask": np.flatnonzero(ob["action_mask"]).tolist(),
        "obs_sums": channel_sums(ob["observation"]),
        "obs_moments": channel_moments(ob["observation"]),
    }


def other_frame(env, agent: str) -> dict:
    ob = env.observe(agent)
    return {
        "agent": agent,
        "obs_sums": channel_sums(ob["observation"]),
        "obs_moments": channel_moments(ob["observation"]),
        "mask_nonzero": int(np.count_nonzero(ob["action_mask"])),
    }


def play(options: dict, seed: int) -> dict:
    """Play one seeded game through ``raw_env`` and return its playthrough record."""
    env = kardinal_v0.raw_env(**options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    decisions = []
    while not all(env.terminations.values()):
        agent = env.agent_selection
        frame = decision_frame(env, agent)
        if len(decisions) in OTHER_AGENT_DECISIONS:
            agents = env.possible_agents
            other = agents[(agents.index(agent) + 1) % len(agents)]
            frame["other"] = other_frame(env, other)
        action = rng.choice(frame["mask"])
        frame["action"] = action
        frame["move"] = env.decode_action(action)
        decisions.append(frame)
        env.step(action)
    game = env.game
    return {
        "env_kwargs": options,
        "seed": seed,
        "policy": "env.reset(seed=seed); random.Random(seed).choice(mask nonzero indices) at every decision",
        "decisions": decisions,
        "scores": game.scores(),
        "winners": game.winners(),
        "rewards": [env.rewards[a] for a in env.possible_agents],
        "final_obs_sums": {a: channel_sums(env.observe(a)["observation"]) for a in env.possible_agents},
    }


def all_games():
    for name, (options, seeds) in VARIANTS.items():
        for seed in seeds:
            yield file_name(name, seed), options, seed


def dump(record: dict) -> bytes:
    """JSON with one decision per line (readable diffs when something changes on purpose)."""
    compact = {k: v for k, v in record.items() if k != "decisions"}
    lines = [json.dumps(compact, separators=(",", ":"))[:-1] + ',"decisions":[']
    lines += [json.dumps(d, separators=(",", ":")) + "," for d in record["decisions"]]
    lines[-1] = lines[-1].rstrip(",")
    lines.append("]}")
    return ("\n".join(lines) + "\n").encode()


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files, write nothing")
    args = parser.parse_args(argv)
    failures = 0
    for fname, options, seed in all_games():
        record = play(options, seed)
        path = HERE / fname
        summary = (
            f"{fname}: {len(record['decisions'])} decisions, scores {record['scores']}, winners {record['winners']}"
        )
        if args.check:
            if not path.exists():
                print(f"MISSING {summary}")
                failures += 1
            elif load(path) != json.loads(json.dumps(record)):
                print(f"CHANGED {summary}")
                failures += 1
            else:
                print(f"ok      {summary}")
        else:
            HERE.mkdir(parents=True, exist_ok=True)
            path.write_bytes(dump(record))
            print(f"wrote   {summary} ({path.stat().st_size} bytes)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
