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
                        encoder and codec
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
point (:func:`kardinal_env.core.registration.pettingzoo_entry`). The engines' fast path — moves as
numbers — has no place in the game protocol; :func:`fast_path` finds it by its method names
(:data:`FAST_PATHS`), else uses the protocol's ``legal_moves`` + ``play``.

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
    "FAST_PATHS",
    "FastPath",
    "bench_core",
    "bench_core_obs",
    "bench_engine",
    "core_game",
    "fast_path",
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


@dataclass(frozen=True)
class FastPath:
    """An engine's moves as numbers: ``legal()`` lists them, ``apply(m)`` plays one known to be legal,
    ``play(m)`` checks it first (the method names)."""

    legal: str
    apply: str
    play: str


#: The engines' fast paths, found by their method names (:func:`fast_path`): Kardinal's move codes,
#: Kardinal & König's move ids (the Python engines, the core-backed games and the core's objects).
FAST_PATHS = (
    FastPath("legal_move_codes", "apply_legal_code", "play_code"),
    FastPath("legal_move_ids", "apply_legal_id", "play_id"),
)
#: The game protocol's moves (notation strings): every game has them.
STRINGS = FastPath("legal_moves", "play", "play")


def fast_path(game: Any, member: str = "apply") -> FastPath:
    """The first of :data:`FAST_PATHS` whose ``legal`` and ``member`` (``"apply"`` or ``"play"``)
    methods ``game`` has, else :data:`STRINGS`."""
    for path in FAST_PATHS:
        if hasattr(game, path.legal) and hasattr(game, getattr(path, member)):
            return path
    return STRINGS


def play_randomly(game: Any, rng: random.Random, legal: str = "legal_moves", play: str = "play") -> int:
    """Play ``game`` to its end with uniformly random legal moves through its methods ``legal`` and
    ``play``; the number of decisions."""
    moves, move, choice = getattr(game, legal), getattr(game, play), rng.choice
    n = 0
    while not game.is_over:
        move(choice(moves()))
        n += 1
    return n


def random_positions(spec: GameSpec, rules: Any, seed: int, count: int, reference: bool = False) -> list:
    """``count`` positions with a choice of moves: a quarter, half and three quarters into random games
    of ``rules`` (deals 1, 2, ...; the moves drawn from ``seed`` on the fast path), on the Python engine
    (``reference``) or on ``Game(...)`` (core-backed where the core is used)."""
    make = spec.load("game_class").reference if reference else spec.new_game
    rng = random.Random(seed)
    positions: list = []
    deal = 0
    while len(positions) < count:
        deal += 1
        game = make(rules, seed=deal)
        path = fast_path(game)
        seen: list = []
        while not game.is_over:
            seen.append(game.clone())
            getattr(game, path.apply)(rng.choice(getattr(game, path.legal)()))
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
    game; core-backed where the core is used): decisions/s and games/s, ``legal_moves`` + ``play(str)``,
    and decisions per CPU second of the process (on a shared machine wall time includes waiting)."""
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
        "(legal_moves + play):"
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
        goal = f"   (issue 22 target >= {target}x)" if target else ""
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
    games, repeats interleaved, decisions/s of (a) the Python engine, ``legal_moves`` + ``play(str)``;
    (b) the Python engine on its fast path (:func:`fast_path`: move codes or ids, ``legal`` +
    ``apply``); (c) the core's ``random_playouts`` (whole games inside C++, its own generator, from one
    start); (d) the core stepped from Python, ``legal`` + ``play`` (checked); the public ``Game(...)``,
    core-backed, (e) on its fast path and (f) on strings; the ratios c/a, c/b, d/a, d/b, e/b, f/a per
    repeat. (a), (b), (e), (f) — and (d) for a game with chance (``GameSpec.chance``) — play a new
    seeded deal each game; (d) of a game without chance plays copies of one start."""
    spec, players, rules = setup(game, players, options)
    start = core_game(spec, rules, seed)  # RuntimeError naming how to get the core when it is missing
    reference = spec.load("game_class").reference
    core_start = start.core
    rng = random.Random(seed)
    deals, playout_seeds = itertools.count(seed + 1), itertools.count(seed + 1)
    python_path = fast_path(reference(rules, seed=seed))
    game_path = fast_path(start)
    core_path = fast_path(core_start, "play")

    def playing(make: Callable[..., Any], path: FastPath = STRINGS) -> Callable[[], tuple[int, int]]:
        """Whole random games on a new deal each, through ``path``'s ``legal`` and ``apply``."""
        return lambda: (play_randomly(make(rules, seed=next(deals)), rng, path.legal, path.apply), 1)

    def core_playouts() -> tuple[int, int]:
        summary = core_start.random_playouts(PLAYOUTS_PER_CALL, next(playout_seeds))
        return summary["decisions"], summary["games"]

    def core_stepped() -> tuple[int, int]:
        core = core_game(spec, rules, next(deals)).core if spec.chance else core_start.clone()
        return play_randomly(core, rng, core_path.legal, core_path.play), 1

    python_strings, python_fast = playing(reference), playing(reference, python_path)
    game_fast, game_strings = playing(spec.new_game, game_path), playing(spec.new_game)  # the public Game
    rows = (
        ("python_strings", "Python engine, legal_moves + play(str)", python_strings),
        ("python_fast", f"Python engine, {python_path.legal} + {python_path.apply}", python_fast),
        ("core_playouts", "core random_playouts (whole games in C++)", core_playouts),
        ("core_stepped", f"core stepped from Python ({core_path.legal} + {core_path.play})", core_stepped),
        ("game_fast", f"Game (core-backed), {game_path.legal} + {game_path.apply}", game_fast),
        ("game_strings", "Game (core-backed), legal_moves + play(str)", game_strings),
    )
    targets = (
        ("core_playouts", "python_strings", 20),
        ("core_playouts", "python_fast", 20),
        ("core_stepped", "python_strings", 4),
        ("core_stepped", "python_fast", 4),
        ("game_fast", "python_fast", 4),
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
    its incremental path where it has one; a new array each call) + the codec's ``action_mask``,
    against the core-backed ``Game``'s ``encode_into`` + ``action_mask_into`` writing into
    preallocated buffers (what the environment calls: :mod:`kardinal_env.core.env_base`); only those
    calls are timed (the moves are played untimed), repeats interleaved; the ratio core / python per
    repeat."""
    spec, players, rules = setup(game, players, options)
    core_game(spec, rules)  # RuntimeError naming how to get the core when it is missing
    reference = spec.load("game_class").reference
    rng = random.Random(seed)
    histories = []  # (deal, the fast-path moves) of seeded random games, the same for both sides
    for g in range(games):
        played = spec.new_game(rules, seed=seed + g)
        path = fast_path(played)
        moves = []
        while not played.is_over:
            moves.append(rng.choice(getattr(played, path.legal)()))
            getattr(played, path.apply)(moves[-1])
        histories.append((seed + g, moves))
    positions = sum(len(moves) + 1 for _, moves in histories)
    timer = time.perf_counter

    def run(make, encode, mask) -> float:
        spent = 0.0
        for deal, moves in histories:
            g = make(rules, seed=deal)
            apply = getattr(g, fast_path(g).apply)
            for i in range(len(moves) + 1):
                seat = g.current_player
                start = timer()
                encode(g, 0 if seat is None else seat)
                mask(g)
                spent += timer() - start
                if i < len(moves):
                    apply(moves[i])
        return positions / spent

    encoder, codec = spec.make_encoder(rules), spec.make_codec(rules)
    obs = np.zeros_like(encoder.encode(reference(rules, seed=seed), 0))  # the encoder's shape and dtype
    buf = np.zeros(codec.num_actions, dtype=np.int8)  # the environment's mask

    def python_side() -> float:
        enc, cod = spec.make_encoder(rules), spec.make_codec(rules)  # a fresh encoder follows its games anew
        return run(reference, enc.encode, cod.action_mask)

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
    print(f"  Python ObservationEncoder.encode + ActionCodec.action_mask: {fmt(python)} per s")
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
