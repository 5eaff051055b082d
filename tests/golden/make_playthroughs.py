"""Golden playthroughs of both PettingZoo envs (OpenSpiel's habit): regenerate or check them.

    .venv/bin/python tests/golden/make_playthroughs.py           # rewrite tests/golden/playthroughs/*.json
    .venv/bin/python tests/golden/make_playthroughs.py --check   # compare with the current code, write nothing

Each file is one full seeded game played through the game's ``raw_env`` (``kardinal_v0`` or
``kardinal_koenig_v1``): ``env.reset(seed=seed)``, then at every decision a ``random.Random(seed)``
picks uniformly among the nonzero indices of the selected agent's ``action_mask``. Per decision it
freezes the selected seat, the phase, ``sorted(game.legal_moves())``, the mask's nonzero indices, the
observation's per-part sums and position-weighted sums (so a moved value shows too), the action
taken and its notation (``env.unwrapped.decode_action``); at a few decisions also the observation
of a non-selected agent (whose mask must be all zeros). At the end: scores, winners and the final
rewards.

The parts of an observation: Kardinal's 72 channels (planes of ``W x W``); Kardinal & König's
segments (``ObservationEncoder.segments``, in layout order). A Kardinal & König file names its game
(``"game": "kardinal_koenig"``); a file without ``game`` is Kardinal's (those files predate the field).

The files are the referee for refactors of the engines, the action codecs and the observation
encoders: ``tests/test_playthroughs.py`` replays them and names the first value that changed. Only
regenerate them for an intended change of behaviour or layout, and say so in the commit message.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

from kardinal_env import kardinal_koenig_v1, kardinal_v0

HERE = Path(__file__).parent / "playthroughs"

KARDINAL = "kardinal"
KOENIG = "kardinal_koenig"
ENV_MODULES = {KARDINAL: kardinal_v0, KOENIG: kardinal_koenig_v1}

#: name -> (game, raw_env keyword arguments, seeds). One file per (name, seed).
VARIANTS: dict[str, tuple[str, dict, tuple[int, ...]]] = {
    "english_2p": (KARDINAL, dict(players=2), (1, 2, 3)),
    "german_3p_neutral": (KARDINAL, dict(players=3, preset="german"), (4, 5, 6)),
    "english_3p_shared_pool": (KARDINAL, dict(players=3, shared_pool=True), (7, 8, 9)),
    "english_4p": (KARDINAL, dict(players=4), (10, 11, 12)),
    "german_4p_shared_pool": (KARDINAL, dict(players=4, preset="german", shared_pool=True), (13, 14, 15)),
    "english_3p_window9": (KARDINAL, dict(players=3, window=9), (16, 17, 18)),
    "koenig_3p_one": (KOENIG, dict(players=3), (101,)),
    "koenig_3p_any": (KOENIG, dict(players=3, discard="any"), (102,)),
    "koenig_4p_one": (KOENIG, dict(players=4), (103,)),
    "koenig_4p_any": (KOENIG, dict(players=4, discard="any"), (104,)),
    "koenig_5p_one": (KOENIG, dict(players=5), (105,)),
    "koenig_5p_any": (KOENIG, dict(players=5, discard="any"), (106,)),
}

#: Decisions (0-based, when the game is that long) at which a non-selected agent is observed too.
OTHER_AGENT_DECISIONS = (0, 1, 26)


def file_name(name: str, seed: int) -> str:
    return f"{name}_seed{seed}.json"


def game_of_record(record: dict) -> str:
    return record.get("game", KARDINAL)


def make_env(game: str, options: dict):
    return ENV_MODULES[game].raw_env(**options)


def observation_parts(env, obs: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """``(name, values)`` per part of an observation: Kardinal's channels, K&K's segments."""
    segments = getattr(env.unwrapped.encoder, "segments", None)
    if segments is None:  # Kardinal: channel planes
        flat = obs.reshape(obs.shape[0], -1)
        return [(f"channel {c}", flat[c]) for c in range(flat.shape[0])]
    return [(f"segment {name}", obs[s]) for name, s in segments.items()]


def _integers(values: np.ndarray) -> np.ndarray:
    out = values.astype(np.int64)
    if not np.array_equal(out, values):
        raise AssertionError("an observation holds a value that is not an integer count")
    return out


def part_sums(env, obs: np.ndarray) -> list[int]:
    return [int(_integers(v).sum()) for _, v in observation_parts(env, obs)]


def part_moments(env, obs: np.ndarray) -> list[int]:
    """Per part, the sum of value x (1 + index within the part): unlike the plain sum it changes when
    a part's values move (a flipped or shifted layout), and still names the part."""
    return [int(_integers(v) @ np.arange(1, v.shape[0] + 1, dtype=np.int64)) for _, v in observation_parts(env, obs)]


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
        "obs_sums": part_sums(env, ob["observation"]),
        "obs_moments": part_moments(env, ob["observation"]),
    }


def other_frame(env, agent: str) -> dict:
    ob = env.observe(agent)
    return {
        "agent": agent,
        "obs_sums": part_sums(env, ob["observation"]),
        "obs_moments": part_moments(env, ob["observation"]),
        "mask_nonzero": int(np.count_nonzero(ob["action_mask"])),
    }


def play(game_name: str, options: dict, seed: int) -> dict:
    """Play one seeded game through the game's ``raw_env`` and return its playthrough record."""
    env = make_env(game_name, options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    decisions: list[dict] = []
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
    record: dict = {} if game_name == KARDINAL else {"game": game_name}
    record.update(
        {
            "env_kwargs": options,
            "seed": seed,
            "policy": "env.reset(seed=seed); random.Random(seed).choice(mask nonzero indices) at every decision",
            "decisions": decisions,
            "scores": game.scores(),
            "winners": game.winners(),
            "rewards": [env.rewards[a] for a in env.possible_agents],
            "final_obs_sums": {a: part_sums(env, env.observe(a)["observation"]) for a in env.possible_agents},
        }
    )
    return record


def all_games():
    """``(file name, game, env options, seed)`` of every playthrough."""
    for name, (game, options, seeds) in VARIANTS.items():
        for seed in seeds:
            yield file_name(name, seed), game, options, seed


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
    parser.add_argument("--game", choices=sorted(ENV_MODULES), help="only this game's files (default: both)")
    args = parser.parse_args(argv)
    failures = 0
    for fname, game, options, seed in all_games():
        if args.game and game != args.game:
            continue
        record = play(game, options, seed)
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
