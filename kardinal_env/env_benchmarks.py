"""Speed benchmarks of the environments, for every registered game: ``env`` (:func:`bench_env`, the
game's PettingZoo AEC loop beside ``connect_four_v3``) and ``vector`` (:func:`bench_vector`,
:class:`kardinal_env.vector.VectorEnv` of every registered game) of ``python scripts/benchmark.py``.
The timing, games and rules are :mod:`kardinal_env.benchmarks`' (whose docstring says how each
benchmark times and where the differences between games come from); ``connect_four_v3`` needs pygame
(the dev extra).
"""

from __future__ import annotations

import os
import random
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kardinal_env.benchmarks import Benchmark, fmt, interleaved, options_text, pick_game, ratios, seats
from kardinal_env.core.registry import GameSpec, games
from kardinal_env.integrations.common import aec_env

__all__ = ["BENCHMARKS", "aec_game", "bench_env", "bench_vector"]


def aec_game(env, rng: random.Random) -> tuple[int, int]:
    """One game through the AEC loop (``agent_iter`` / ``last`` / ``step``), a uniformly random action
    among the mask's: (agent-steps, 1)."""
    env.reset()
    n = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
        env.step(int(legal[rng.randrange(len(legal))]))
        n += 1
    return n, 1


def bench_env(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Random masked play through the game's ``env()`` (:func:`aec_game`; observation and mask built
    every step) side by side, repeats interleaved, with PettingZoo's ``connect_four_v3.env()`` (the same
    sampler and loop; needs pygame, the dev extra); the ratio game / connect_four per repeat."""
    from pettingzoo.classic import connect_four_v3

    spec = pick_game(game)
    players = seats(spec, players)
    rng = random.Random(seed)
    env = aec_env(spec, players=players, **{k: v for k, v in (options or {}).items() if v is not None})
    connect4 = connect_four_v3.env()
    rates = interleaved({"game": lambda: aec_game(env, rng), "c4": lambda: aec_game(connect4, rng)}, seconds, repeats)
    (g_steps, g_games), c_steps = rates["game"], rates["c4"][0]
    r = ratios(g_steps, c_steps)
    raw = env.unwrapped
    agent = raw.possible_agents[0]
    shape = raw.observation_space(agent)["observation"].shape
    print(f"AEC loop through env() (agent_iter / last / step), random masked actions, {repeats} x {seconds:g} s:")
    print(
        f"  {spec.env_name} ({players} players{options_text(options)}, {raw.action_space(agent).n} actions, "
        f"obs {shape}): {fmt(g_steps)} agent-steps/s, {fmt(g_games)} games/s"
    )
    print(f"  connect_four_v3:                     {fmt(c_steps)} agent-steps/s")
    print(f"  ratio {spec.name} / connect_four: {statistics.median(r):.2f} (per-repeat {min(r):.2f}-{max(r):.2f})")
    med = statistics.median
    return {"game": med(g_steps), "connect_four": med(c_steps), "ratio": med(r)}


def load_text() -> str:
    """The machine's load average, as the vector benchmark prints it."""
    try:
        return "load average " + " / ".join(f"{x:.1f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"
    except OSError:
        return "load average unknown"


def bench_vector(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    sizes: Sequence[int] = (8, 32, 128, 512),
    threads: Sequence[int] = (0, 2),
    compare_at: int = 32,
    *,
    game: str | GameSpec | None = None,
    seed: int = 0,
) -> dict:
    """:class:`kardinal_env.vector.VectorEnv` (N games per ``step`` call, auto-reset, a uniformly random
    legal action per game from ``random_actions``) of every registered game with the core backend, at
    every batch size of ``sizes`` and every thread count of ``threads`` (a game without a compiled
    batch is skipped, saying so), agent-steps/s, and per repeat the ratio of each thread count to the
    first; beside them, at ``compare_at`` games, every game's python backend and the AEC loops of
    ``game``'s environment (default: the first registered game) and ``connect_four_v3`` (``env``'s
    sampler and loop), with the ratio to connect_four per repeat. Every cell is timed once per repeat,
    repeats interleaved; each game plays ``players`` seats, or its nearest seat count. The machine's
    usable cores and load average are printed before and after."""
    from pettingzoo.classic import connect_four_v3

    from kardinal_env.vector import VectorEnv

    aec_spec = pick_game(game)
    seat_counts = {name: seats(spec, players, nearest=True) for name, spec in games().items()}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {cores} usable cores, {load_text()}")
    envs: dict[tuple[str, int, int | str], VectorEnv] = {}
    for name, n in seat_counts.items():
        try:
            for size in sizes:
                for k in threads:
                    envs[name, size, k] = VectorEnv(
                        game=name, num_envs=size, players=n, seed=seed, backend="core", threads=k
                    )
        except (ImportError, RuntimeError, ValueError) as exc:  # no compiled batch: say so, measure the rest
            print(f"  ({name} core: skipped, {exc})")
        envs[name, compare_at, "python"] = VectorEnv(
            game=name, num_envs=compare_at, players=n, seed=seed, backend="python"
        )
    rng = np.random.default_rng(seed)

    def vector_chunk(env):
        calls = max(1, 320 // env.num_envs)  # step calls per timed chunk: ~320 agent-steps

        def run() -> tuple[int, int]:
            done = 0
            for _ in range(calls):
                done += int(env.step(env.random_actions(rng)).terminated.sum())
            return calls * env.num_envs, done

        return run

    py_rng = random.Random(seed)
    connect4 = connect_four_v3.env()
    aec_players = seats(aec_spec, players, nearest=True)
    aec = aec_env(aec_spec, players=aec_players)
    for env in envs.values():
        env.reset()
    fns: dict[Any, Any] = {key: vector_chunk(env) for key, env in envs.items()}
    fns["aec"], fns["c4"] = lambda: aec_game(aec, py_rng), lambda: aec_game(connect4, py_rng)
    rates = {key: r[0] for key, r in interleaved(fns, seconds, repeats).items()}
    c4 = rates["c4"]

    def ratio(values: list[float], base: list[float], digits: int = 2) -> str:
        r = ratios(values, base)
        return f"{statistics.median(r):.{digits}f} ({min(r):.{digits}f}-{max(r):.{digits}f})"

    print(
        f"VectorEnv, core backend, a random legal action per game (random_actions), {repeats} x {seconds:g} s per "
        "cell, repeats interleaved; agent-steps/s, median (min-max):"
    )
    out: dict[str, float] = {}
    base_k = threads[0]
    for name, n in seat_counts.items():
        print(f"  {name} ({n} players)")
        print(
            f"    {'games':>5}  "
            + "".join(f"{f'threads={k}':<28}" for k in threads)
            + "".join(f"threads={k} / threads={base_k} per repeat" for k in threads[1:])
        )
        for size in sizes:
            if (name, size, base_k) not in envs:
                continue
            cells = "".join(f"{fmt(rates[name, size, k]):<28}" for k in threads)
            versus = "".join(f"{ratio(rates[name, size, k], rates[name, size, base_k]):<33}" for k in threads[1:])
            print(f"    {size:>5}  {cells}{versus}")
            for k in threads:
                out[f"{name} core, {size} games, threads={k}"] = statistics.median(rates[name, size, k])
    print(f"  beside them, {compare_at} games (the core rows at {compare_at} from the table above):")
    lines = [
        (f"{name} core, threads={k}", rates[name, compare_at, k])
        for name in seat_counts
        for k in threads
        if (name, compare_at, k) in envs
    ]
    lines += [(f"{name} python backend", rates[name, compare_at, "python"]) for name in seat_counts]
    lines += [(f"{aec_spec.env_name} AEC ({aec_players} players)", rates["aec"]), ("connect_four_v3 AEC", c4)]
    for label, values in lines:
        line = f"    {label:<36} {fmt(values):<28}"
        if values is not c4:
            line += f" ratio to connect_four: {ratio(values, c4)}"
            out[f"{label}/connect_four"] = statistics.median(ratios(values, c4))
        print(line)
        out[label] = statistics.median(values)
    for name in seat_counts:
        env = envs[name, compare_at, "python"]
        space = env.single_observation_space
        nbytes = int(np.prod(space.shape)) * np.dtype(space.dtype).itemsize
        print(
            f"  {name}'s observation: {space.shape} {space.dtype} = {nbytes:,} bytes a game, "
            f"{env.num_actions:,} actions; connect four's is 84 bytes and 7 actions."
        )
    print(f"machine: {load_text()} at the end")
    return out


#: The benchmarks of this module, as ``scripts/benchmark.py`` names them (every game).
BENCHMARKS = (Benchmark("env", bench_env), Benchmark("vector", bench_vector))
