"""Speed benchmarks of the engines and environments, and what every benchmark shares (timing, games, rules, positions):
the library of ``python scripts/benchmark.py NAME --game GAME`` (search and training: :mod:`agents.benchmarks`). Each
``bench_*`` prints its rows and returns their medians; none asserts a speed; ``--help`` lists them with what each times.

**Per game, from the registry and the game objects, never from a game's name**; games are played through the game
protocol: action ids, or notation where a row says so.

**Timing.** A row runs its function until ``seconds`` pass, ``repeats`` times, after one warm-up call; rates are per
wall-clock second, median (min-max) over the repeats. Where a benchmark compares rows, the repeats are interleaved (all
rows see the same machine load) and the ratio of two rows is taken per repeat: on a shared machine that ratio is the
stable number.
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kardinal_env.core.backend import BUILD_HINT, core_module
from kardinal_env.core.registry import GameSpec, games, get_game

__all__ = [
    "BENCHMARK_PLAYERS",
    "BENCHMARKS",
    "Benchmark",
    "aec_game",
    "alternate",
    "bench_core",
    "bench_core_obs",
    "bench_engine",
    "bench_env",
    "bench_vector",
    "benchmark",
    "core_game",
    "make_rules",
    "play_randomly",
    "random_positions",
    "seats",
    "span",
    "timed",
]

#: The seats when ``players`` is not given, where the game plays it (docs/benchmarks.md: 4-player games).
BENCHMARK_PLAYERS = 4
median = statistics.median


def timed(fn: Callable[[], tuple[int, int]], seconds: float, repeats: int) -> tuple[list[float], list[float]]:
    """``fn() -> (decisions, games)`` run for ``seconds``, ``repeats`` times after a warm-up: the rates."""
    fn()  # warm-up
    per_step, per_game = [], []
    for _ in range(repeats):
        steps = played = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            s, g = fn()
            steps += s
            played += g
        per_step.append(steps / elapsed)
        per_game.append(played / elapsed)
    return per_step, per_game


def alternate(fns: Mapping[Any, Callable[[], Any]], repeats: int) -> dict[Any, list]:
    """Every ``fn()`` once per repeat, interleaved (all see the same machine load): the results per key."""
    out: dict[Any, list] = {key: [] for key in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            out[key].append(fn())
    return out


def interleaved(fns: Mapping[Any, Callable[[], tuple[int, int]]], seconds: float, repeats: int) -> dict:
    """:func:`timed` of every ``fn`` once per repeat, interleaved: per key, its (decisions/s, games/s)."""
    runs = alternate({key: functools.partial(timed, fn, seconds, 1) for key, fn in fns.items()}, repeats)
    return {key: ([s[0] for s, _ in r], [g[0] for _, g in r]) for key, r in runs.items()}


def span(values: Sequence[float], spec: str = ",.0f", unit: str = "", per_repeat: bool = False) -> str:
    """``median (min-max)`` of ``values`` in the format ``spec``, ``unit`` after the median."""
    return f"{median(values):{spec}}{unit} ({'per-repeat ' * per_repeat}{min(values):{spec}}-{max(values):{spec}})"


def ratios(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [x / y for x, y in zip(a, b)]


def ratio_text(values: Sequence[float]) -> str:
    return span(values, ".1f", "x", per_repeat=True)


@dataclass(frozen=True)
class Benchmark:
    """A benchmark: its function and the games it applies to (``needs``; ``None``: every game)."""

    name: str
    run: Callable[..., dict]
    needs: Callable[[GameSpec], bool] | None = None
    needs_text: str = ""

    def games(self) -> list[str]:
        return [spec.name for spec in games().values() if self.needs is None or self.needs(spec)]

    def game(self, name: str | GameSpec | None) -> GameSpec:
        """The game ``name`` (``None``: the first that applies); ``ValueError`` naming those that do."""
        fits = [get_game(fit) for fit in self.games()]
        if name is None:
            if not fits:
                raise ValueError(f"{self.name} needs a game with {self.needs_text}; no registered game has one")
            return fits[0]
        spec = get_game(name)
        if self.needs is not None and not self.needs(spec):
            raise ValueError(
                f"{self.name} needs a game with {self.needs_text}; {spec.name} has none (games that have: "
                f"{', '.join(s.name for s in fits) or 'none'})"
            )
        return spec

    def setup(self, game: str | GameSpec | None, players: int | None, options: Mapping[str, Any] | None) -> tuple:
        spec = self.game(game)
        players = seats(spec, players)
        return spec, players, make_rules(spec, players, options)


#: Every benchmark of ``scripts/benchmark.py`` by name (:func:`benchmark`; :mod:`agents.benchmarks` adds its own).
BENCHMARKS: dict[str, Benchmark] = {}


def benchmark(name: str, needs: Callable[[GameSpec], bool] | None = None, needs_text: str = "") -> Callable:
    """Register the decorated ``bench_*`` function as the benchmark ``name`` (:data:`BENCHMARKS`)."""

    def register(run: Callable[..., dict]) -> Callable[..., dict]:
        BENCHMARKS[name] = Benchmark(name, run, needs, needs_text)
        return run

    return register


def seats(spec: GameSpec, players: int | None, nearest: bool = False) -> int:
    """``players`` checked (``ValueError``; ``nearest``: the nearest count the game plays); ``None``:
    :data:`BENCHMARK_PLAYERS` where the game plays it, else its ``default_players``."""
    if players is None:
        return BENCHMARK_PLAYERS if BENCHMARK_PLAYERS in spec.players else spec.default_players
    if nearest and players not in spec.players:
        return min(spec.players, key=lambda p: (abs(p - players), p))
    return spec.check_players(players)


def given(options: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (options or {}).items() if v is not None}


def make_rules(spec: GameSpec, players: int, options: Mapping[str, Any] | None = None) -> Any:
    """``spec.rules(players, **options)``; unlisted options (Kardinal's ``window``) go to the rules class."""
    options = given(options)
    if set(options) <= {o.name for o in spec.rule_options}:
        return spec.rules(players, **options)
    return spec.load("rules_class")(players=spec.check_players(players), **options)


def options_text(options: Mapping[str, Any] | None) -> str:
    """``", name='value'"`` for each option given: what the titles print after the players."""
    return "".join(f", {k}={v!r}" for k, v in given(options).items())


def core_game(spec: GameSpec, rules: Any, seed: int | None = None) -> Any:
    """A new core-backed game; ``RuntimeError`` saying how to get the core when there is none."""
    game = spec.new_game(rules, seed=seed)
    if not getattr(game, "compiled", False):
        raise RuntimeError(
            f"{spec.name}: Game(...) is not backed by the compiled core here (the game has no compiled "
            f"engine, the core is not built, or KARDINAL_ENV_BACKEND=python); {BUILD_HINT}"
        )
    return game


def play_randomly(game: Any, rng: random.Random, ids: bool = True) -> int:
    """Play ``game`` to its end by random action ids (``ids=False``: notation); the decisions."""
    moves, move = (game.legal_actions, game.apply_action) if ids else (game.legal_moves, game.play)
    randrange = rng.randrange
    n = 0
    while not game.is_over:
        legal = moves()
        move(legal[randrange(len(legal))])
        n += 1
    return n


def random_positions(spec: GameSpec, rules: Any, seed: int, count: int, reference: bool = False) -> list:
    """``count`` positions with a choice a quarter, half and three quarters into random games (deals 1, 2, ...; moves
    from ``seed``), on the Python engine (``reference``) or ``Game(...)``."""
    make = spec.load("game_class").reference if reference else spec.new_game
    rng = random.Random(seed)
    positions: list = []
    deal = 0
    while len(positions) < count:
        deal += 1
        game = make(rules, seed=deal)
        seen: list = []
        while not game.is_over:
            seen.append(game.clone())
            game.apply_action(rng.choice(game.legal_actions()))
        for at in (len(seen) // 4, len(seen) // 2, 3 * len(seen) // 4):
            if len(seen[at].legal_moves()) > 1 and len(positions) < count:
                positions.append(seen[at])
    return positions


@benchmark("engine")
def bench_engine(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Random games (deals 0, 1, ...) through the public ``Game(...)`` (core-backed where the core is used) and action
    ids: decisions/s, games/s and decisions per CPU second of the process."""
    spec, players, rules = BENCHMARKS["engine"].setup(game, players, options)
    rng = random.Random(seed)
    deals = itertools.count()
    cpu = [0, 0.0]

    def one_game() -> tuple[int, int]:
        start = time.process_time()
        n = play_randomly(spec.new_game(rules, seed=next(deals)), rng)
        cpu[0] += n
        cpu[1] += time.process_time() - start
        return n, 1

    steps, per_game = timed(one_game, seconds, repeats)
    per_cpu = cpu[0] / max(cpu[1], 1e-9)
    backend = "core-backed" if getattr(spec.new_game(rules), "compiled", False) else "Python"
    print(
        f"{spec.title} engine ({backend} Game), {players} players{options_text(options)}, random legal moves "
        "(legal_actions + apply_action):"
    )
    print(f"  decisions/s  {span(steps)}   median (min-max) of {repeats} x {seconds:g} s")
    print(f"  games/s      {span(per_game)}")
    print(f"  decisions per CPU second (all repeats): {per_cpu:,.0f}")
    return {"decisions_per_s": median(steps), "games_per_s": median(per_game), "per_cpu_s": per_cpu}


@benchmark("core")
def bench_core(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Random games, decisions/s: the Python engine through (a) notation and (b) action ids; (c) the core's
    ``random_playouts`` (whole games in C++ from one start); the core-backed ``Game(...)`` through (d) action ids and
    (e) notation; the ratios c/a, c/b, d/b, e/a per repeat, repeats interleaved. All but (c) deal anew each game."""
    spec, players, rules = BENCHMARKS["core"].setup(game, players, options)
    core_start = core_game(spec, rules, seed).core  # RuntimeError naming how to get the core when it is missing
    reference = spec.load("game_class").reference
    rng = random.Random(seed)
    deals, playout_seeds = itertools.count(seed + 1), itertools.count(seed + 1)

    def playing(make: Callable[..., Any], ids: bool) -> Callable[[], tuple[int, int]]:
        return lambda: (play_randomly(make(rules, seed=next(deals)), rng, ids), 1)

    module = core_module("core")
    assert module is not None  # core_game made sure of the core
    search = module.koenig_search if isinstance(core_start, module.KoenigGame) else module.kardinal_search

    def core_playouts() -> tuple[int, int]:
        summary = search.random_playouts(core_start, 100, next(playout_seeds))  # 100 whole games a call
        return summary["decisions"], summary["games"]

    rows = {
        "python_strings": ("Python engine, legal_moves + play", playing(reference, False)),
        "python_ids": ("Python engine, legal_actions + apply_action", playing(reference, True)),
        "core_playouts": ("core random_playouts (whole games in C++)", core_playouts),
        "game_ids": ("Game (core-backed), legal_actions + apply_action", playing(spec.new_game, True)),
        "game_strings": ("Game (core-backed), legal_moves + play", playing(spec.new_game, False)),
    }
    letters = dict(zip("abcde", rows))
    rates = {name: r[0] for name, r in interleaved({k: fn for k, (_, fn) in rows.items()}, seconds, repeats).items()}
    print(
        f"{spec.title} engine, {players} players{options_text(options)}, random legal moves, compiled core vs "
        f"Python, {repeats} x {seconds:g} s:"
    )
    width = max(len(label) for label, _ in rows.values()) + 1
    for letter, name in letters.items():
        print(f"  ({letter}) {rows[name][0] + ':':<{width}} {span(rates[name])} decisions/s")
    out = {name: median(v) for name, v in rates.items()}
    for a, b, target in (("c", "a", 20), ("c", "b", 20), ("d", "b", 4), ("e", "a", None)):  # ratios a/b, targets
        r = ratios(rates[letters[a]], rates[letters[b]])
        goal = f"   (target >= {target}x)" if target else ""
        print(f"  ratio {a}/{b}: {ratio_text(r)}{goal}")
        out[f"{letters[a]}/{letters[b]}"] = median(r)
    return out


@benchmark("core-obs")
def bench_core_obs(
    players: int | None = None,
    repeats: int = 5,
    games: int = 20,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Observations of the deciding seat + action masks per second over every position of ``games`` seeded random games:
    the Python encoder's ``encode`` + a mask from ``legal_actions()``, against the core-backed ``Game``'s
    ``encode_into`` + ``action_mask_into`` into preallocated buffers (as the environment does); only those calls timed,
    repeats interleaved; the ratio core / python per repeat."""
    spec, players, rules = BENCHMARKS["core-obs"].setup(game, players, options)
    core_game(spec, rules)  # RuntimeError naming how to get the core when it is missing
    reference = spec.load("game_class").reference
    rng = random.Random(seed)
    histories = []  # (deal, the moves) of seeded random games, the same for both sides
    for deal in range(seed, seed + games):
        played = spec.new_game(rules, seed=deal)
        play_randomly(played, rng)
        histories.append((deal, played.history))
    positions = sum(len(moves) + 1 for _, moves in histories)
    timer = time.perf_counter

    def run(make, encode, mask) -> float:
        spent = 0.0
        for deal, moves in histories:
            g = make(rules, seed=deal)
            for i in range(len(moves) + 1):
                seat = g.current_player
                start = timer()
                encode(g, 0 if seat is None else seat)
                mask(g)
                spent += timer() - start
                if i < len(moves):
                    g.play(moves[i])
        return positions / spent

    first = reference(rules, seed=seed)
    obs = np.zeros_like(spec.make_encoder(rules).encode(first, 0))  # the encoder's shape and dtype
    buf = np.zeros(first.num_actions, dtype=np.int8)  # the environment's mask

    def python_mask(g: Any) -> np.ndarray:  # the environment's mask on a Python game
        mask = np.zeros(first.num_actions, dtype=np.int8)
        mask[g.legal_actions()] = 1
        return mask

    sides = {  # a fresh encoder follows its games anew
        "python": lambda: run(reference, spec.make_encoder(rules).encode, python_mask),
        "core": lambda: run(spec.new_game, lambda g, seat: g.encode_into(seat, obs), lambda g: g.action_mask_into(buf)),
    }
    for side in sides.values():  # warm-up
        side()
    python, core = alternate(sides, repeats).values()
    r = ratios(core, python)
    shape = "x".join(map(str, obs.shape))
    print(
        f"{spec.title} observation ({shape} {obs.dtype}) + action mask ({buf.size:,} {buf.dtype}), {players} "
        f"players{options_text(options)}, {positions} positions of {games} random games, {repeats} repeats:"
    )
    print(f"  Python ObservationEncoder.encode + a mask from legal_actions(): {span(python)} per s")
    print(f"  core encode_into + action_mask_into (preallocated buffers): {span(core)} per s")
    print(f"  ratio core / python: {ratio_text(r)}")
    return {"python": median(python), "core": median(core), "ratio": median(r)}


def aec_game(env, rng: random.Random) -> tuple[int, int]:
    """One game through the AEC loop, a random action among the mask's: (agent-steps, 1)."""
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


def _envs(spec: GameSpec, players: int, options: Mapping[str, Any] | None = None) -> tuple[Any, Any]:
    """The game's AEC environment and PettingZoo's ``connect_four_v3`` (needs pygame, the dev extra)."""
    from pettingzoo.classic import connect_four_v3

    from kardinal_env.integrations.common import aec_env

    return aec_env(spec, players=players, **given(options)), connect_four_v3.env()


@benchmark("env")
def bench_env(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Random masked play through the game's ``env()`` (:func:`aec_game`) beside PettingZoo's ``connect_four_v3.env()``
    (the same loop; needs pygame), repeats interleaved; the ratio per repeat."""
    spec = BENCHMARKS["env"].game(game)
    players = seats(spec, players)
    rng = random.Random(seed)
    env, connect4 = _envs(spec, players, options)
    rates = interleaved({"game": lambda: aec_game(env, rng), "c4": lambda: aec_game(connect4, rng)}, seconds, repeats)
    (g_steps, g_games), c_steps = rates["game"], rates["c4"][0]
    r = ratios(g_steps, c_steps)
    raw = env.unwrapped
    agent = raw.possible_agents[0]
    shape = raw.observation_space(agent)["observation"].shape
    print(f"AEC loop through env() (agent_iter / last / step), random masked actions, {repeats} x {seconds:g} s:")
    print(
        f"  {spec.env_name} ({players} players{options_text(options)}, {raw.action_space(agent).n} actions, "
        f"obs {shape}): {span(g_steps)} agent-steps/s, {span(g_games)} games/s"
    )
    print(f"  connect_four_v3:                     {span(c_steps)} agent-steps/s")
    print(f"  ratio {spec.name} / connect_four: {span(r, '.2f', per_repeat=True)}")
    return {"game": median(g_steps), "connect_four": median(c_steps), "ratio": median(r)}


def load_text() -> str:
    try:
        return "load average " + " / ".join(f"{x:.1f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"
    except OSError:
        return "load average unknown"


@benchmark("vector")
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
    """:class:`kardinal_env.vector.VectorEnv` of every registered game (``random_actions``), agent-steps/s: the core
    backend at every size of ``sizes`` and thread count of ``threads`` (a game without a compiled batch skipped, saying
    so), with the ratio of each thread count to the first; at ``compare_at`` games, every game's python backend and the
    AEC loops of ``game``'s environment and ``connect_four_v3``, with the ratio to connect_four. Repeats interleaved;
    each game plays ``players`` seats or its nearest count; cores and load printed before and after."""
    from kardinal_env.vector import VectorEnv

    aec_spec = BENCHMARKS["vector"].game(game)
    seat_counts = {name: seats(spec, players, nearest=True) for name, spec in games().items()}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {cores} usable cores, {load_text()}")
    envs: dict[tuple[str, int, int | str], VectorEnv] = {}
    for name, n in seat_counts.items():
        try:
            for size, k in itertools.product(sizes, threads):
                envs[name, size, k] = VectorEnv(name, size, n, seed=seed, backend="core", threads=k)
        except (ImportError, RuntimeError, ValueError) as exc:  # no compiled batch: say so, measure the rest
            print(f"  ({name} core: skipped, {exc})")
        envs[name, compare_at, "python"] = VectorEnv(name, compare_at, n, seed=seed, backend="python")
    rng = np.random.default_rng(seed)

    def vector_chunk(env, calls: int) -> Callable[[], tuple[int, int]]:  # calls: ~320 agent-steps a chunk
        env.reset()
        return lambda: (
            calls * env.num_envs,
            sum(int(env.step(env.random_actions(rng)).terminated.sum()) for _ in range(calls)),
        )

    py_rng = random.Random(seed)
    aec_players = seats(aec_spec, players, nearest=True)
    aec, connect4 = _envs(aec_spec, aec_players)
    fns: dict[Any, Any] = {key: vector_chunk(env, max(1, 320 // env.num_envs)) for key, env in envs.items()}
    fns["aec"], fns["c4"] = lambda: aec_game(aec, py_rng), lambda: aec_game(connect4, py_rng)
    rates = {key: r[0] for key, r in interleaved(fns, seconds, repeats).items()}
    c4 = rates["c4"]
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
            cells = "".join(f"{span(rates[name, size, k]):<28}" for k in threads)
            versus = "".join(
                f"{span(ratios(rates[name, size, k], rates[name, size, base_k]), '.2f'):<33}" for k in threads[1:]
            )
            print(f"    {size:>5}  {cells}{versus}")
            for k in threads:
                out[f"{name} core, {size} games, threads={k}"] = median(rates[name, size, k])
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
        line = f"    {label:<36} {span(values):<28}"
        if values is not c4:
            line += f" ratio to connect_four: {span(ratios(values, c4), '.2f')}"
            out[f"{label}/connect_four"] = median(ratios(values, c4))
        print(line)
        out[label] = median(values)
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
