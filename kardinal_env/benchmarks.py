"""Speed benchmarks of the engines, for every registered game, and what every benchmark shares (timing,
games, rules, positions): the library behind ``python scripts/benchmark.py NAME --game GAME`` (the
script only parses arguments). The environment benchmarks are :mod:`kardinal_env.env_benchmarks`, the
search and training ones :mod:`agents.benchmarks`. Each ``bench_*`` prints its rows and returns their
medians; none asserts a speed.

======================  ====================================================================================
benchmark               what it times (``--game``: any registered game unless said)
======================  ====================================================================================
``engine``              :func:`bench_engine`: random games through the public ``Game`` (``legal_moves`` +
                        ``play``)
``core``                :func:`bench_core`: the compiled core against the Python engine, six rows (a)-(f)
``core-obs``            :func:`bench_core_obs`: observation + mask, the core's buffers against the Python
                        encoder and a mask from ``legal_actions()``
``env``, ``vector``     :mod:`kardinal_env.env_benchmarks`: the game's PettingZoo AEC loop beside
                        ``connect_four_v3``; :class:`kardinal_env.vector.VectorEnv` of every registered game
======================  ====================================================================================

**Per game, from the registry and the game objects, never from a game's name.** The rules:
``GameSpec.rules(players, **options)`` (the registered rule options; a keyword the rules class takes but
the registry does not list, such as a window variant, goes to the rules class, :func:`make_rules`); a
game: ``GameSpec.new_game(rules, seed)`` (a game without chance ignores the seed) and the game class's
``reference`` (the Python engine, whatever the backend); the core: the ``core`` of a core-backed game
(``game.compiled``, :class:`kardinal_env.core.backend.CoreBacked`); whether each game of a row is a
new deal or a copy of one start: ``GameSpec.chance``; the environment: the game's PettingZoo entry
point (:func:`kardinal_env.core.registration.pettingzoo_entry`). Games are played through the game
protocol only: action ids (``legal_actions`` + ``apply_action``), or notation where a row says so.

**Timing.** A row runs its function until ``seconds`` pass, ``repeats`` times, after one warm-up call;
rates are per wall-clock second, median (min-max) over the repeats. Where a benchmark compares rows,
the repeats are interleaved (all rows see the same machine load) and the ratio of two rows is taken
per repeat: on a shared machine that ratio is the stable number.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kardinal_env.core.backend import BUILD_HINT
from kardinal_env.core.registry import GameSpec, games, get_game

__all__ = [
    "BENCHMARK_PLAYERS",
    "BENCHMARKS",
    "Benchmark",
    "bench_core",
    "bench_core_obs",
    "bench_engine",
    "core_game",
    "fmt",
    "make_rules",
    "pick_game",
    "play_randomly",
    "random_positions",
    "seats",
    "timed",
]

#: The seat count of the benchmarks when ``players`` is not given, for a game that plays it (else the
#: game's ``default_players``): the figures of docs/benchmarks.md are of 4-player games.
BENCHMARK_PLAYERS = 4
#: Whole games per call of the core's ``random_playouts`` in row (c) of :func:`bench_core`.
PLAYOUTS_PER_CALL = 100


# ---------------------------------------------------------------- timing


def timed(fn: Callable[[], tuple[int, int]], seconds: float, repeats: int) -> tuple[list[float], list[float]]:
    """Run ``fn() -> (decisions, games)`` until ``seconds`` pass, ``repeats`` times (after one warm-up
    call): the rates per second of each repeat, of decisions and of games."""
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


def interleaved(fns: Mapping[Any, Callable[[], tuple[int, int]]], seconds: float, repeats: int) -> dict:
    """:func:`timed` of every ``fn`` once per repeat, the repeats interleaved (all see the same machine
    load): per key, the rates per repeat of decisions and of games."""
    rates: dict[Any, tuple[list[float], list[float]]] = {key: ([], []) for key in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            steps, played = timed(fn, seconds, 1)
            rates[key][0].extend(steps)
            rates[key][1].extend(played)
    return rates


def fmt(rates: Sequence[float]) -> str:
    """``median (min-max)`` of ``rates``, whole numbers with thousands separators."""
    return f"{statistics.median(rates):,.0f} ({min(rates):,.0f}-{max(rates):,.0f})"


def ratios(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """``a[i] / b[i]`` per repeat."""
    return [x / y for x, y in zip(a, b)]


def ratio_text(values: Sequence[float], digits: int = 1) -> str:
    """``median (per-repeat min-max)`` of per-repeat ratios."""
    return f"{statistics.median(values):.{digits}f}x (per-repeat {min(values):.{digits}f}-{max(values):.{digits}f})"


# ---------------------------------------------------------------- games, rules, positions


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of ``scripts/benchmark.py``: its function, and which games it applies to
    (``needs(spec)``; ``None``: every game; ``needs_text`` says what for messages)."""

    name: str
    run: Callable[..., dict]
    needs: Callable[[GameSpec], bool] | None = None
    needs_text: str = ""

    def applies(self, spec: GameSpec) -> bool:
        return self.needs is None or self.needs(spec)

    def games(self) -> list[str]:
        """The registered games it applies to."""
        return [name for name, spec in games().items() if self.applies(spec)]

    def game(self, name: str | GameSpec | None) -> GameSpec:
        """:func:`pick_game` for this benchmark."""
        return pick_game(name, self.needs, self.needs_text, self.name)


def pick_game(
    name: str | GameSpec | None,
    needs: Callable[[GameSpec], bool] | None = None,
    needs_text: str = "",
    what: str = "this benchmark",
) -> GameSpec:
    """The game ``name`` (``None``: the first registered game that ``needs`` accepts); ``ValueError``
    naming the games that would do when it does not apply."""
    fits = [spec for spec in games().values() if needs is None or needs(spec)]
    if name is None:
        if not fits:
            raise ValueError(f"{what} needs a game with {needs_text}; no registered game has one")
        return fits[0]
    spec = get_game(name)
    if needs is not None and not needs(spec):
        raise ValueError(
            f"{what} needs a game with {needs_text}; {spec.name} has none (games that have: "
            f"{', '.join(s.name for s in fits) or 'none'})"
        )
    return spec


def seats(spec: GameSpec, players: int | None, nearest: bool = False) -> int:
    """``players``, checked against the game (``ValueError``), or the nearest seat count it plays when
    ``nearest``; ``None``: :data:`BENCHMARK_PLAYERS` where the game plays it, else its ``default_players``."""
    if players is None:
        return BENCHMARK_PLAYERS if BENCHMARK_PLAYERS in spec.players else spec.default_players
    if nearest and players not in spec.players:
        return min(spec.players, key=lambda p: (abs(p - players), p))
    return spec.check_players(players)


def make_rules(spec: GameSpec, players: int, options: Mapping[str, Any] | None = None) -> Any:
    """``spec.rules(players, **options)``; options the registry does not list (a keyword the rules class
    takes, such as Kardinal's ``window``) go to the rules class itself. Options left ``None`` keep their
    defaults."""
    given = {k: v for k, v in (options or {}).items() if v is not None}
    if set(given) <= {o.name for o in spec.rule_options}:
        return spec.rules(players, **given)
    return spec.load("rules_class")(players=spec.check_players(players), **given)


def setup(
    game: str | GameSpec | None, players: int | None, options: Mapping[str, Any] | None = None
) -> tuple[GameSpec, int, Any]:
    """``(spec, players, rules)`` of a benchmark: :func:`pick_game`, :func:`seats`, :func:`make_rules`."""
    spec = pick_game(game)
    players = seats(spec, players)
    return spec, players, make_rules(spec, players, options)


def options_text(options: Mapping[str, Any] | None) -> str:
    """``", name='value'"`` for each option given: what the titles print after the players."""
    return "".join(f", {k}={v!r}" for k, v in (options or {}).items() if v is not None)


def core_game(spec: GameSpec, rules: Any, seed: int | None = None) -> Any:
    """A new core-backed game (``game.compiled``; its ``core`` is the compiled core's object);
    ``RuntimeError`` saying how to get the core when ``Game(...)`` is not core-backed here."""
    game = spec.new_game(rules, seed=seed)
    if not getattr(game, "compiled", False):
        raise RuntimeError(
            f"{spec.name}: Game(...) is not backed by the compiled core here (the game has no compiled "
            f"engine, the core is not built, or KARDINAL_ENV_BACKEND=python); {BUILD_HINT}"
        )
    return game


def play_randomly(game: Any, rng: random.Random, ids: bool = True) -> int:
    """Play ``game`` to its end with uniformly random legal moves through the protocol: action ids
    (``legal_actions`` + ``apply_action``), or with ``ids=False`` notation (``legal_moves`` + ``play``);
    the number of decisions."""
    moves, move = (game.legal_actions, game.apply_action) if ids else (game.legal_moves, game.play)
    randrange = rng.randrange
    n = 0
    while not game.is_over:
        legal = moves()
        move(legal[randrange(len(legal))])
        n += 1
    return n


def random_positions(spec: GameSpec, rules: Any, seed: int, count: int, reference: bool = False) -> list:
    """``count`` positions with a choice of moves: a quarter, half and three quarters into random games
    of ``rules`` (deals 1, 2, ...; the action ids drawn from ``seed``), on the Python engine
    (``reference``) or on ``Game(...)`` (core-backed where the core is used)."""
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


# ---------------------------------------------------------------- engines


def bench_engine(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Random games through the public ``Game(...)`` (``GameSpec.new_game``, a new deal 0, 1, ... each
    game; core-backed where the core is used) and the protocol's action ids (``legal_actions`` +
    ``apply_action``): decisions/s and games/s, and decisions per CPU second of the process (on a shared
    machine wall time includes waiting)."""
    spec, players, rules = setup(game, players, options)
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
    print(f"  decisions/s  {fmt(steps)}   median (min-max) of {repeats} x {seconds:g} s")
    print(f"  games/s      {fmt(per_game)}")
    print(f"  decisions per CPU second (all repeats): {per_cpu:,.0f}")
    med = statistics.median
    return {"decisions_per_s": med(steps), "games_per_s": med(per_game), "per_cpu_s": per_cpu}


def engine_comparison(title: str, rows, targets, seconds: float, repeats: int) -> dict:
    """Time each ``(name, label, fn)`` of ``rows`` for ``seconds`` per repeat, the repeats interleaved;
    print decisions/s and, for each ``(a, b, target)`` of ``targets``, the ratio a/b per repeat (median
    and range; ``target`` None: no target). The medians and ratios as a dict."""
    letters = dict(zip([name for name, _, _ in rows], "abcdefgh"))
    rates = {name: r[0] for name, r in interleaved({name: fn for name, _, fn in rows}, seconds, repeats).items()}
    print(f"{title}, {repeats} x {seconds:g} s:")
    width = max(len(label) for _, label, _ in rows) + 1
    for name, label, _ in rows:
        print(f"  ({letters[name]}) {label + ':':<{width}} {fmt(rates[name])} decisions/s")
    out = {name: statistics.median(v) for name, v in rates.items()}
    for a, b, target in targets:
        r = ratios(rates[a], rates[b])
        goal = f"   (target >= {target}x)" if target else ""
        print(f"  ratio {letters[a]}/{letters[b]}: {ratio_text(r)}{goal}")
        out[f"{a}/{b}"] = statistics.median(r)
    return out


def bench_core(
    players: int | None = None,
    seconds: float = 2.0,
    repeats: int = 5,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """The compiled core's engine against the Python engine (the game class's ``reference``), random
    games, repeats interleaved, decisions/s of the Python engine through the protocol's (a) notation
    (``legal_moves`` + ``play``) and (b) action ids (``legal_actions`` + ``apply_action``); (c) the
    core's ``random_playouts`` (whole games inside C++, its own generator, from one start); the public
    ``Game(...)``, core-backed, through (d) action ids and (e) notation; the ratios c/a, c/b, d/b, e/a
    per repeat. Every row but (c) plays a new seeded deal each game."""
    spec, players, rules = setup(game, players, options)
    start = core_game(spec, rules, seed)  # RuntimeError naming how to get the core when it is missing
    reference = spec.load("game_class").reference
    core_start = start.core
    rng = random.Random(seed)
    deals, playout_seeds = itertools.count(seed + 1), itertools.count(seed + 1)

    def playing(make: Callable[..., Any], ids: bool) -> Callable[[], tuple[int, int]]:
        """Whole random games on a new deal each, through ids or notation."""
        return lambda: (play_randomly(make(rules, seed=next(deals)), rng, ids), 1)

    def core_playouts() -> tuple[int, int]:
        summary = core_start.random_playouts(PLAYOUTS_PER_CALL, next(playout_seeds))
        return summary["decisions"], summary["games"]

    rows = (
        ("python_strings", "Python engine, legal_moves + play", playing(reference, False)),
        ("python_ids", "Python engine, legal_actions + apply_action", playing(reference, True)),
        ("core_playouts", "core random_playouts (whole games in C++)", core_playouts),
        ("game_ids", "Game (core-backed), legal_actions + apply_action", playing(spec.new_game, True)),
        ("game_strings", "Game (core-backed), legal_moves + play", playing(spec.new_game, False)),
    )
    targets = (
        ("core_playouts", "python_strings", 20),
        ("core_playouts", "python_ids", 20),
        ("game_ids", "python_ids", 4),
        ("game_strings", "python_strings", None),
    )
    title = (
        f"{spec.title} engine, {players} players{options_text(options)}, random legal moves, compiled core vs Python"
    )
    return engine_comparison(title, rows, targets, seconds, repeats)


def bench_core_obs(
    players: int | None = None,
    repeats: int = 5,
    games: int = 20,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Observations + action masks per second over every position of ``games`` seeded random games
    (deals ``seed``, ``seed + 1``, ...), the seat deciding observing (as the environment does): the
    Python encoder's ``encode`` (``GameSpec.make_encoder``; following the game on the Python engine,
    its incremental path where it has one; a new array each call) + a mask from ``legal_actions()``,
    against the core-backed ``Game``'s ``encode_into`` + ``action_mask_into`` writing into
    preallocated buffers (what the environment calls: :mod:`kardinal_env.core.env_base`); only those
    calls are timed (the moves are played untimed), repeats interleaved; the ratio core / python per
    repeat."""
    spec, players, rules = setup(game, players, options)
    core_game(spec, rules)  # RuntimeError naming how to get the core when it is missing
    reference = spec.load("game_class").reference
    rng = random.Random(seed)
    histories = []  # (deal, the action ids) of seeded random games, the same for both sides
    for g in range(games):
        played = spec.new_game(rules, seed=seed + g)
        moves = []
        while not played.is_over:
            moves.append(rng.choice(played.legal_actions()))
            played.apply_action(moves[-1])
        histories.append((seed + g, moves))
    positions = sum(len(moves) + 1 for _, moves in histories)
    timer = time.perf_counter

    def run(make, encode, mask) -> float:
        spent = 0.0
        for deal, moves in histories:
            g = make(rules, seed=deal)
            apply = g.apply_action
            for i in range(len(moves) + 1):
                seat = g.current_player
                start = timer()
                encode(g, 0 if seat is None else seat)
                mask(g)
                spent += timer() - start
                if i < len(moves):
                    apply(moves[i])
        return positions / spent

    first = reference(rules, seed=seed)
    obs = np.zeros_like(spec.make_encoder(rules).encode(first, 0))  # the encoder's shape and dtype
    buf = np.zeros(first.num_actions, dtype=np.int8)  # the environment's mask

    def python_mask(g: Any) -> np.ndarray:  # the environment's mask on a Python game
        mask = np.zeros(first.num_actions, dtype=np.int8)
        mask[g.legal_actions()] = 1
        return mask

    def python_side() -> float:
        enc = spec.make_encoder(rules)  # a fresh encoder follows its games anew
        return run(reference, enc.encode, python_mask)

    def core_side() -> float:
        return run(spec.new_game, lambda g, seat: g.encode_into(seat, obs), lambda g: g.action_mask_into(buf))

    python_side(), core_side()  # warm-up
    python, core = [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        python.append(python_side())
        core.append(core_side())
    r = ratios(core, python)
    shape = "x".join(map(str, obs.shape))
    print(
        f"{spec.title} observation ({shape} {obs.dtype}) + action mask ({buf.size:,} {buf.dtype}), {players} "
        f"players{options_text(options)}, {positions} positions of {games} random games, {repeats} repeats:"
    )
    print(f"  Python ObservationEncoder.encode + a mask from legal_actions(): {fmt(python)} per s")
    print(f"  core encode_into + action_mask_into (preallocated buffers): {fmt(core)} per s")
    print(f"  ratio core / python: {ratio_text(r)}")
    med = statistics.median
    return {"python": med(python), "core": med(core), "ratio": med(r)}


#: The benchmarks of this module, as ``scripts/benchmark.py`` names them (every game).
BENCHMARKS = (
    Benchmark("engine", bench_engine),
    Benchmark("core", bench_core),
    Benchmark("core-obs", bench_core_obs),
)
