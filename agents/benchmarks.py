"""Speed benchmarks of the search agents and of search training, for the registered games that have
them: the library behind ``python scripts/benchmark.py NAME --game GAME`` (the engine and environment
benchmarks are :mod:`kardinal_env.benchmarks`, whose timing, rules and positions these share). Each
``bench_*`` prints its rows and returns their medians; the compiled-against-Python ones check that
both sides choose the same moves where the compiled code promises it.

======================  ====================================================================================
benchmark               the games it applies to (their registry entries)
======================  ====================================================================================
``core-mcts``           :func:`bench_core_mcts`: a ``compiled_search`` (``mcts:N`` in the core)
``core-ismcts``         :func:`bench_core_ismcts`: a ``compiled_ismcts`` (``ismcts:N`` in the core)
``heuristic``           :func:`bench_heuristic`: a ``heuristic`` baseline valued in the core
``rollout``             :func:`bench_rollout`: a ``rollout_search`` of
                        :mod:`agents.search.heuristic_rollouts` (its playouts in the core)
``puct``                :func:`bench_puct`: a ``network`` (the model's game: ``--model``)
``search-training``     :func:`bench_search_training`: a preset of the search trainer (``algorithm: search``)
======================  ====================================================================================
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from typing import Any

from agents.registry import game_agents
from kardinal_env.benchmarks import (
    Benchmark,
    core_game,
    make_rules,
    options_text,
    pick_game,
    random_positions,
    ratio_text,
    ratios,
    seats,
)
from kardinal_env.core.registry import GameSpec

__all__ = [
    "BENCHMARKS",
    "DEFAULT_PUCT_MODEL",
    "bench_core_ismcts",
    "bench_core_mcts",
    "bench_heuristic",
    "bench_puct",
    "bench_rollout",
    "bench_search_training",
    "search_preset",
]

#: The network ``puct`` searches when no ``--model`` is given: the shipped 2-player plain network.
DEFAULT_PUCT_MODEL = "zoo:kardinal-2p-cnn"
#: The positions the per-decision benchmarks search (a quarter, half and three quarters into games).
POSITIONS = 8


def _has(field: str):
    """Whether a game's agents' entry sets ``field`` (a predicate of :class:`Benchmark`)."""
    return lambda spec: getattr(game_agents(spec), field) is not None


def _setup(
    what: str, game, field: str, players: int | None, options: Mapping[str, Any] | None
) -> tuple[GameSpec, int, Any]:
    """The game of benchmark ``what`` (the first registered one whose entry sets ``field`` when ``game``
    is None), its seat count and rules; ``RuntimeError`` naming how to get the core when it is missing."""
    spec = pick_game(game, _has(field), f"a {field}", what)
    players = seats(spec, players)
    rules = make_rules(spec, players, options)
    core_game(spec, rules)
    return spec, players, rules


def _span(values: list[float], digits: int = 4) -> str:
    """``median (min-max)`` of timings."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def _per_decision(agent, positions) -> tuple[float, list[str]]:
    """Seconds per ``agent.select_move`` over ``positions``, and the moves chosen."""
    start = time.perf_counter()
    chosen = [agent.select_move(g) for g in positions]
    return (time.perf_counter() - start) / len(positions), chosen


def _interleaved(repeats: int, run, differ: str | None = None) -> tuple[list[float], list[float]]:
    """The seconds of ``run(compiled)`` (``(seconds, result)``), Python then compiled, ``repeats``
    times interleaved so both see the same machine load; ``differ``: the assertion message when the
    two results differ (``None``: they may)."""
    python, core = [], []
    for _ in range(repeats):
        (slow, slow_result), (fast, fast_result) = run(False), run(True)
        python.append(slow)
        core.append(fast)
        assert differ is None or fast_result == slow_result, differ
    return python, core


def _search_comparison(
    spec, players: int, kind: str, agent_class, positions, simulations: int, repeats: int, seed: int, same: bool
):
    """Seconds per ``kind:N`` decision over ``positions``, ``agent_class(compiled=False)`` against
    ``compiled=True``, repeats interleaved (``same``: the two must choose the same moves)."""

    def per_decision(compiled: bool) -> tuple[float, list[str]]:
        return _per_decision(agent_class(simulations, seed=seed, compiled=compiled, game=spec), positions)

    per_decision(True)  # warm-up (imports, the core's caches)
    python, core = _interleaved(repeats, per_decision, "the compiled search chose other moves" if same else None)
    r = ratios(python, core)
    print(
        f"{spec.title} {kind}:{simulations}, {players} players, "
        f"seconds per decision over {len(positions)} positions, {repeats} repeats"
        + (" (the same moves on both):" if same else ":")
    )
    print(f"  Python search: {_span(python)} s")
    print(f"  core search:   {_span(core)} s")
    print(f"  ratio python/core: {ratio_text(r)}   (issue 22 target >= 10x)")
    med = statistics.median
    return {"python": med(python), "core": med(core), "ratio": med(r)}


def bench_core_mcts(
    players: int | None = None,
    repeats: int = 5,
    simulations: int = 200,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Seconds per ``mcts:N`` decision, the Python search (``MCTSAgent(compiled=False)``) against the
    compiled one (``GameAgents.compiled_search``; the position replayed into the core included: the
    positions are the Python engine's), on the same 8 positions of seeded random games, repeats
    interleaved; the ratio python / core per repeat (the core draws its own random numbers: other moves
    may be chosen)."""
    from agents.search.mcts import MCTSAgent

    spec, players, rules = _setup("core-mcts", game, "compiled_search", players, options)
    positions = random_positions(spec, rules, seed, POSITIONS, reference=True)
    return _search_comparison(spec, players, "mcts", MCTSAgent, positions, simulations, repeats, seed, same=False)


def bench_core_ismcts(
    players: int | None = None,
    repeats: int = 5,
    simulations: int = 200,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Seconds per ``ismcts:N`` decision, the Python search (``ISMCTSAgent(compiled=False)``) against the
    compiled one (``GameAgents.compiled_ismcts``; the seat's knowledge built in Python and the position
    copied into the core included, the worlds dealt in C++), on the same 8 positions of seeded random
    games (core-backed), repeats interleaved; both choose the same moves; the ratio python / core per
    repeat."""
    from agents.search.ismcts import ISMCTSAgent

    spec, players, rules = _setup("core-ismcts", game, "compiled_ismcts", players, options)
    positions = random_positions(spec, rules, seed, POSITIONS)
    return _search_comparison(spec, players, "ismcts", ISMCTSAgent, positions, simulations, repeats, seed, same=True)


def _has_heuristic(spec: GameSpec) -> bool:
    return game_agents(spec).has_baseline("heuristic")


def bench_heuristic(
    players: int | None = None,
    repeats: int = 3,
    games: int = 2,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """The game's ``heuristic`` baseline, Python (``compiled=False``) against compiled (the candidates
    valued by the core; what the agent computes in Python for it included): seconds per
    decision on 8 positions of seeded random games, and seconds per whole game with every seat the agent
    (``games`` seeded deals 1000, 1001, ... per repeat), repeats interleaved; both choose the same moves
    and play the same games; the ratios python / compiled per repeat."""
    spec = pick_game(game, _has_heuristic, "a heuristic baseline", "heuristic")
    players = seats(spec, players)
    rules = make_rules(spec, players, options)
    agent_class = game_agents(spec).baseline("heuristic")
    positions = random_positions(spec, rules, seed, POSITIONS)

    def per_decision(compiled: bool) -> tuple[float, list[str]]:
        return _per_decision(agent_class(seed=seed, compiled=compiled), positions)

    histories: list[list[str]] = []

    def per_game(compiled: bool) -> tuple[float, list[list[str]]]:
        histories.clear()
        start = time.perf_counter()
        for g in range(games):
            played = spec.new_game(rules, seed=1000 + g)
            agents = [agent_class(seed=s, compiled=compiled) for s in range(players)]
            while not played.is_over:
                played.play(agents[played.current_player].select_move(played))
            histories.append(played.history)
        return (time.perf_counter() - start) / games, list(histories)

    per_decision(True)  # warm-up (imports)
    py_dec, cc_dec = _interleaved(repeats, per_decision, "the compiled heuristic chose other moves")
    py_game, cc_game = _interleaved(repeats, per_game, "the compiled heuristic played other games")
    decisions = sum(len(h) for h in histories)
    dec_ratios, game_ratios = ratios(py_dec, cc_dec), ratios(py_game, cc_game)
    med = statistics.median
    print(
        f"{spec.title} heuristic, {players} players{options_text(options)}, {repeats} repeats (the same moves and "
        f"games on both): seconds per decision over {len(positions)} positions; seconds per game over {games} "
        f"games of {decisions / games:.0f} decisions (every seat the agent, forced single moves included)"
    )
    print(f"  Python heuristic:   {_span(py_dec, 5)} s/decision, {_span(py_game, 3)} s/game")
    print(f"  compiled heuristic: {_span(cc_dec, 5)} s/decision, {_span(cc_game, 3)} s/game")
    print(
        f"  ratio python/compiled: {med(dec_ratios):.1f}x per decision (per-repeat {min(dec_ratios):.1f}-"
        f"{max(dec_ratios):.1f}), {med(game_ratios):.1f}x per game ({min(game_ratios):.1f}-{max(game_ratios):.1f})"
    )
    return {
        "python_decision": med(py_dec),
        "core_decision": med(cc_dec),
        "python_game": med(py_game),
        "core_game": med(cc_game),
        "ratio_decision": med(dec_ratios),
        "ratio_game": med(game_ratios),
    }


def _has_heuristic_rollouts(spec: GameSpec) -> bool:
    from agents.search.heuristic_rollouts import HeuristicRolloutAgent

    cls = game_agents(spec).load("rollout_search")
    return isinstance(cls, type) and issubclass(cls, HeuristicRolloutAgent)


def bench_rollout(
    players: int | None = None,
    repeats: int = 3,
    simulations: int = 512,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """The game's ``rollout:N`` agent (``GameAgents.rollout_search``, built as ``cls(N, seed=, game=)``;
    up to N worlds per candidate, its playouts in the core): seconds per decision and worlds played per
    decision on 8 positions of seeded random games, and seconds per playout (one world, one move:
    :func:`agents.search.heuristic_rollouts.rollout_values`) of the Python reference against the core
    on the three positions nearest the end, repeats interleaved; both give the same values;
    the ratio python / core per repeat."""
    from agents.search.heuristic_rollouts import rollout_values

    spec = pick_game(game, _has_heuristic_rollouts, "a rollout_search of agents.search.heuristic_rollouts", "rollout")
    players = seats(spec, players)
    rules = make_rules(spec, players, options)
    agent_class = game_agents(spec).load("rollout_search")
    positions = random_positions(spec, rules, seed, POSITIONS)
    late = sorted(positions, key=lambda g: -g.move_count)[:3]
    played: list[int] = []

    def per_decision() -> float:
        agent = agent_class(simulations, seed=seed, game=spec)
        start = time.perf_counter()
        for g in positions:
            agent.select_move(g)
            played.append(agent.last_worlds)
        return (time.perf_counter() - start) / len(positions)

    def per_playout(compiled: bool) -> tuple[float, list]:
        start = time.perf_counter()
        values = [rollout_values(g, list(g.legal_actions())[:1], 1, seed, compiled=compiled) for g in late]
        return (time.perf_counter() - start) / len(late), values

    per_decision()  # warm-up (imports)
    decision = [per_decision() for _ in range(repeats)]
    python, core = _interleaved(repeats, per_playout, "the compiled playouts gave other values")
    r = ratios(python, core)
    med = statistics.median
    print(f"{spec.title} rollout:{simulations}, {players} players{options_text(options)}, {repeats} repeats:")
    print(
        f"  seconds per decision over {len(positions)} positions: {_span(decision, 3)}; "
        f"worlds played per decision {statistics.mean(played):.1f} (at most {simulations})"
    )
    print(
        f"  seconds per playout from the {len(late)} latest positions (moves {sorted(g.move_count for g in late)}): "
        f"Python {med(python):.3f}, core {med(core):.4f}; ratio python/core {med(r):.0f}x "
        f"(per-repeat {min(r):.0f}-{max(r):.0f})"
    )
    return {
        "decision": med(decision),
        "worlds": statistics.mean(played),
        "python_playout": med(python),
        "core_playout": med(core),
        "ratio": med(r),
    }


def bench_puct(
    players: int | None = None,
    repeats: int = 5,
    simulations: int = 256,
    model: str = DEFAULT_PUCT_MODEL,
    seed: int = 0,
    rollouts: int | None = None,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
) -> dict:
    """``puct:N:MODEL`` per decision on 6 positions of seeded random games (``model``: a network of the
    game, which ``load_agent`` checks) on the Python engine and on the core-backed ``Game``, repeats
    interleaved, and the share of the time the network's forward pass takes (what no compiled tree can
    remove): 1 / that share bounds what a compiled tree, engine and encoder could give. ``players``:
    default the model's (the seats it was trained for). ``rollouts``: playouts from every new leaf
    (``None``: the model's own search defaults); on the core-backed game they run in the core
    (``GameAgents.compiled_playout``), on the Python engine in Python."""
    from agents import load_agent

    spec = pick_game(game, _has("network"), "a network", "puct")
    agent = load_agent(
        f"puct:{simulations}:{model}", game=spec, seed=seed, **({} if rollouts is None else {"rollouts": rollouts})
    )
    if players is None:
        trained = getattr(agent.evaluator, "trained_players", None)
        players = trained if trained in spec.players else seats(spec, None)
    rules = make_rules(spec, players, options)
    python_positions = random_positions(spec, rules, seed, 6, reference=True)
    core_positions = [spec.from_record(p.to_record()) for p in python_positions]  # core-backed where it is used
    net = agent.evaluator.net
    forward_seconds = [0.0]
    plain_forward = net.forward

    def timed_forward(*args, **kwargs):
        start = time.perf_counter()
        try:
            return plain_forward(*args, **kwargs)
        finally:
            forward_seconds[0] += time.perf_counter() - start

    net.forward = timed_forward

    def per_decision(positions) -> tuple[float, float]:
        agent.reset(seed)
        forward_seconds[0] = 0.0
        start = time.perf_counter()
        for g in positions:
            agent.select_move(g)
        total = time.perf_counter() - start
        return total / len(positions), forward_seconds[0] / total

    per_decision(core_positions[:1])  # warm-up
    python, core, python_share, core_share = [], [], [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        seconds, share = per_decision(python_positions)
        python.append(seconds)
        python_share.append(share)
        seconds, share = per_decision(core_positions)
        core.append(seconds)
        core_share.append(share)
    med = statistics.median
    ratio = med(ratios(python, core))
    bound = 1.0 / med(core_share)
    print(
        f"{spec.title} puct:{simulations}:{model} ({agent.rollouts} playouts a leaf, batch {agent.batch_size}), "
        f"{players} players{options_text(options)}, seconds per decision over {len(python_positions)} positions, "
        f"{repeats} repeats:"
    )
    print(f"  Python engine: {med(python):.3f} s, network forward {med(python_share):.0%}")
    print(f"  core engine:   {med(core):.3f} s, network forward {med(core_share):.0%}")
    print(
        f"  ratio python/core: {ratio:.2f}x (issue 22 target >= 3x); a search whose tree, engine and encoding "
        f"cost nothing would be at most {bound:.2f}x faster than the core-backed one (the forward pass stays)"
    )
    return {"python": med(python), "core": med(core), "ratio": ratio, "bound": bound}


def search_preset(spec: GameSpec) -> str | None:
    """The game's first preset of the search trainer (``algorithm: search``), or ``None`` (none, or
    no YAML reader: the train extra)."""
    from agents.training.config import load_yaml

    try:
        for name in game_agents(spec).presets:
            if load_yaml(f"{spec.name}:{name}").get("algorithm") == "search":
                return name
    except ImportError:
        return None
    return None


def _has_search_preset(spec: GameSpec) -> bool:
    return search_preset(spec) is not None


def bench_search_training(
    players: int | None = None,
    repeats: int = 3,
    workers: int = 1,
    device: str = "cpu",
    simulations: int = 800,
    examples: int = 1024,
    envs: int = 16,
    seed: int = 0,
    *,
    game: str | GameSpec | None = None,
    config: str | None = None,
) -> dict:
    """Iterations of the search trainer on a preset of the game (``config``; default
    :func:`search_preset`: for Kardinal ``search_2p``, its network, teacher and DAgger/baseline
    shares), ``examples`` stored examples an iteration, ``envs`` games at a time, the teacher's
    ``simulations`` (its fast searches an eighth), self-play and update timed apart: stored examples
    per second of each and of the whole iteration, with ``workers`` self-play processes and the
    updates on ``device``. ``players``: default the preset's. The first iteration (process start) is
    not counted."""
    from agents.training.config import load_yaml, make_config
    from agents.training.run import make_trainer
    from agents.training.search_training import SearchTrainer

    data = load_yaml(config) if config else None
    named = game if game is not None or data is None else data.get("game")
    spec = pick_game(named, _has_search_preset, "a preset of the search trainer", "search-training")
    preset = config or search_preset(spec)
    if data is None:
        data = load_yaml(f"{spec.name}:{preset}")
    overrides = {
        "game": spec.name,
        "players": data.get("players", spec.default_players) if players is None else players,
        "seed": seed,
        "simulations": simulations,
        "fast_simulations": max(1, simulations // 8),
        "bc_games": 0,
        "steps_per_iter": examples,
        "num_envs": envs,
        "selfplay_workers": workers,
        "device": device,
        "deterministic": device == "cpu",
        "policy_play_share": 0.5,
        "greedy_share": 0.25,
        "track": False,
        "progress": False,
    }
    settings = make_config((str(preset), data), ("benchmark", overrides))
    trainer = make_trainer(settings)
    if not isinstance(trainer, SearchTrainer):
        raise ValueError(f"{preset}: not a preset of the search trainer (algorithm: search)")
    play, update, stored = [], [], []
    try:
        for i in range(repeats + 1):
            start = time.perf_counter()
            rollout = trainer.collect_rollout()
            played = time.perf_counter()
            trainer.update(rollout)
            done = time.perf_counter()
            if i:
                play.append(played - start)
                update.append(done - played)
                stored.append(len(rollout))
    finally:
        trainer.close()
    total = sum(stored)
    out = {
        "selfplay": total / sum(play),
        "update": total / sum(update),
        "iteration": total / (sum(play) + sum(update)),
    }
    print(
        f"{spec.title} search training, {settings.players} players, {settings.search}:{simulations} teacher, "
        f"{workers} self-play process(es), updates on {device}, {repeats} iterations ({total:,} examples):"
    )
    print(
        f"  stored examples/s: self-play {out['selfplay']:.1f}, update {out['update']:.1f}, "
        f"whole iteration {out['iteration']:.1f}"
    )
    return out


#: The benchmarks of this module, as ``scripts/benchmark.py`` names them, and the games they apply to.
BENCHMARKS = (
    Benchmark("core-mcts", bench_core_mcts, _has("compiled_search"), "a compiled_search"),
    Benchmark("core-ismcts", bench_core_ismcts, _has("compiled_ismcts"), "a compiled_ismcts"),
    Benchmark("heuristic", bench_heuristic, _has_heuristic, "a heuristic baseline"),
    Benchmark(
        "rollout", bench_rollout, _has_heuristic_rollouts, "a rollout_search of agents.search.heuristic_rollouts"
    ),
    Benchmark("puct", bench_puct, _has("network"), "a network"),
    Benchmark("search-training", bench_search_training, _has_search_preset, "a preset of the search trainer"),
)
