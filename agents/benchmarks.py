"""Speed benchmarks of the search agents and of search training, for the registered games whose agents' entry has what
they need (registered in :data:`kardinal_env.benchmarks.BENCHMARKS`, whose timing, rules and positions they share); the
compiled-against-Python ones check that both sides choose the same moves where the compiled code promises it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.registry import game_agents
from kardinal_env.benchmarks import (
    BENCHMARKS,
    alternate,
    benchmark,
    core_game,
    make_rules,
    median,
    options_text,
    random_positions,
    ratio_text,
    ratios,
    seats,
    span,
)
from kardinal_env.core.registry import GameSpec

__all__ = [
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


def _has(field: str) -> Callable[[GameSpec], bool]:
    return lambda spec: getattr(game_agents(spec), field) is not None


def _seconds_each(fn: Callable[[Any], Any], items: Sequence) -> tuple[float, list]:
    """Seconds per ``fn(item)`` over ``items`` (e.g. ``agent.select_move`` over positions), and the results."""
    start = time.perf_counter()
    results = [fn(item) for item in items]
    return (time.perf_counter() - start) / len(items), results


def _python_vs_compiled(repeats: int, run, differ: str | None = None) -> tuple[list[float], ...]:
    """The seconds of ``run(compiled) -> (seconds, result)``, interleaved, Python's, compiled's and their ratios per
    repeat; ``differ``: assert equal results with it."""
    runs = alternate({False: lambda: run(False), True: lambda: run(True)}, repeats)
    assert differ is None or [r for _, r in runs[False]] == [r for _, r in runs[True]], differ
    python, compiled = [s for s, _ in runs[False]], [s for s, _ in runs[True]]
    return python, compiled, ratios(python, compiled)


def _search_comparison(what: str, agent_class, players, repeats, simulations, game, options, seed, same: bool):
    """Seconds per decision, compiled against Python, interleaved (``same``: core-backed positions, the same moves)."""
    spec, players, rules = BENCHMARKS[what].setup(game, players, options)
    core_game(spec, rules)  # RuntimeError naming how to get the core when it is missing
    positions = random_positions(spec, rules, seed, POSITIONS, reference=not same)

    def per_decision(compiled: bool) -> tuple[float, list[str]]:
        return _seconds_each(agent_class(simulations, seed=seed, compiled=compiled, game=spec).select_move, positions)

    per_decision(True)  # warm-up (imports, the core's caches)
    py, cc, r = _python_vs_compiled(repeats, per_decision, "the compiled search chose other moves" if same else None)
    print(
        f"{spec.title} {what.removeprefix('core-')}:{simulations}, {players} players, "
        f"seconds per decision over {len(positions)} positions, {repeats} repeats"
        + (" (the same moves on both):" if same else ":")
    )
    print(f"  Python search: {span(py, '.4f')} s")
    print(f"  core search:   {span(cc, '.4f')} s")
    print(f"  ratio python/core: {ratio_text(r)}   (issue 22 target >= 10x)")
    return {"python": median(py), "core": median(cc), "ratio": median(r)}


@benchmark("core-mcts", _has("compiled_search"), "a compiled_search")
def bench_core_mcts(
    players: int | None = None,
    repeats: int = 5,
    simulations: int = 200,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Seconds per ``mcts:N`` decision, Python against the compiled search (``compiled_search``; replaying
    the Python engine's position into the core included) on 8 positions of seeded random games; the
    ratio per repeat (the core draws its own random numbers: other moves may be chosen)."""
    from agents.search.mcts import MCTSAgent

    return _search_comparison("core-mcts", MCTSAgent, players, repeats, simulations, game, options, seed, False)


@benchmark("core-ismcts", _has("compiled_ismcts"), "a compiled_ismcts")
def bench_core_ismcts(
    players: int | None = None,
    repeats: int = 5,
    simulations: int = 200,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """Seconds per ``ismcts:N`` decision, Python against the compiled search (``compiled_ismcts``; the
    seat's knowledge built in Python included, the worlds dealt in C++) on 8 positions of seeded random
    games; both choose the same moves; the ratio per repeat."""
    from agents.search.ismcts import ISMCTSAgent

    return _search_comparison("core-ismcts", ISMCTSAgent, players, repeats, simulations, game, options, seed, True)


@benchmark("heuristic", lambda spec: game_agents(spec).has_baseline("heuristic"), "a heuristic baseline")
def bench_heuristic(
    players: int | None = None,
    repeats: int = 3,
    games: int = 2,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """The game's ``heuristic`` baseline, Python against compiled (the candidates valued by the core):
    seconds per decision on 8 positions of seeded random games and per whole game with every seat the
    agent (deals 1000, 1001, ...), repeats interleaved; both play the same moves; the ratios per repeat."""
    spec, players, rules = BENCHMARKS["heuristic"].setup(game, players, options)
    agent_class = game_agents(spec).baseline("heuristic")
    positions = random_positions(spec, rules, seed, POSITIONS)

    def per_decision(compiled: bool) -> tuple[float, list[str]]:
        return _seconds_each(agent_class(seed=seed, compiled=compiled).select_move, positions)

    histories: list[list[str]] = []  # of the last run

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
    py_dec, cc_dec, dec_ratios = _python_vs_compiled(repeats, per_decision, "the compiled heuristic chose other moves")
    py_game, cc_game, game_ratios = _python_vs_compiled(repeats, per_game, "the compiled heuristic played other games")
    decisions = sum(len(h) for h in histories)
    print(
        f"{spec.title} heuristic, {players} players{options_text(options)}, {repeats} repeats (the same moves and "
        f"games on both): seconds per decision over {len(positions)} positions; seconds per game over {games} "
        f"games of {decisions / games:.0f} decisions (every seat the agent, forced single moves included)"
    )
    print(f"  Python heuristic:   {span(py_dec, '.5f')} s/decision, {span(py_game, '.3f')} s/game")
    print(f"  compiled heuristic: {span(cc_dec, '.5f')} s/decision, {span(cc_game, '.3f')} s/game")
    print(
        f"  ratio python/compiled: {span(dec_ratios, '.1f', 'x per decision', per_repeat=True)}, "
        f"{span(game_ratios, '.1f', 'x per game')}"
    )
    values = (py_dec, cc_dec, py_game, cc_game, dec_ratios, game_ratios)
    keys = ("python_decision", "core_decision", "python_game", "core_game", "ratio_decision", "ratio_game")
    return {key: median(v) for key, v in zip(keys, values)}


def _has_heuristic_rollouts(spec: GameSpec) -> bool:
    from agents.search.heuristic_rollouts import HeuristicRolloutAgent

    cls = game_agents(spec).load("rollout_search")
    return isinstance(cls, type) and issubclass(cls, HeuristicRolloutAgent)


@benchmark("rollout", _has_heuristic_rollouts, "a rollout_search of agents.search.heuristic_rollouts")
def bench_rollout(
    players: int | None = None,
    repeats: int = 3,
    simulations: int = 512,
    *,
    game: str | GameSpec | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict:
    """The game's ``rollout:N`` agent (its playouts in the core): seconds and worlds per decision on 8
    positions of seeded random games; seconds per playout (``rollout_values``, one world, one move),
    Python against the core, on the 3 positions nearest the end, repeats interleaved, the same values."""
    from agents.search.heuristic_rollouts import rollout_values

    spec, players, rules = BENCHMARKS["rollout"].setup(game, players, options)
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
        return _seconds_each(lambda g: rollout_values(g, list(g.legal_actions())[:1], 1, seed, compiled=compiled), late)

    per_decision()  # warm-up (imports)
    decision = [per_decision() for _ in range(repeats)]
    python, core, r = _python_vs_compiled(repeats, per_playout, "the compiled playouts gave other values")
    print(f"{spec.title} rollout:{simulations}, {players} players{options_text(options)}, {repeats} repeats:")
    print(
        f"  seconds per decision over {len(positions)} positions: {span(decision, '.3f')}; "
        f"worlds played per decision {statistics.mean(played):.1f} (at most {simulations})"
    )
    print(
        f"  seconds per playout from the {len(late)} latest positions (moves {sorted(g.move_count for g in late)}): "
        f"Python {median(python):.3f}, core {median(core):.4f}; ratio python/core {span(r, '.0f', 'x', True)}"
    )
    return {
        "decision": median(decision),
        "worlds": statistics.mean(played),
        "python_playout": median(python),
        "core_playout": median(core),
        "ratio": median(r),
    }


@benchmark("puct", _has("network"), "a network")
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
    """``puct:N:MODEL`` per decision on 6 positions of seeded random games, the Python engine against the core-backed
    ``Game``, repeats interleaved, and the forward pass's share of the time (1 / that share bounds what a compiled tree,
    engine and encoder could give). ``players``: default the model's. ``rollouts``: playouts from every new leaf
    (``None``: the model's defaults; in the core on the core-backed game)."""
    from agents import load_agent

    spec = BENCHMARKS["puct"].game(game)
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
        out = plain_forward(*args, **kwargs)
        forward_seconds[0] += time.perf_counter() - start
        return out

    net.forward = timed_forward

    def per_decision(positions) -> tuple[float, float]:
        agent.reset(seed)
        forward_seconds[0] = 0.0
        seconds, _ = _seconds_each(agent.select_move, positions)
        return seconds, forward_seconds[0] / (seconds * len(positions))

    per_decision(core_positions[:1])  # warm-up
    runs = alternate(
        {"python": lambda: per_decision(python_positions), "core": lambda: per_decision(core_positions)}, repeats
    )
    (python, python_share), (core, core_share) = (list(zip(*runs[side])) for side in ("python", "core"))
    ratio = median(ratios(python, core))
    bound = 1.0 / median(core_share)
    print(
        f"{spec.title} puct:{simulations}:{model} ({agent.rollouts} playouts a leaf, batch {agent.batch_size}), "
        f"{players} players{options_text(options)}, seconds per decision over {len(python_positions)} positions, "
        f"{repeats} repeats:"
    )
    print(f"  Python engine: {median(python):.3f} s, network forward {median(python_share):.0%}")
    print(f"  core engine:   {median(core):.3f} s, network forward {median(core_share):.0%}")
    print(
        f"  ratio python/core: {ratio:.2f}x (issue 22 target >= 3x); a search whose tree, engine and encoding "
        f"cost nothing would be at most {bound:.2f}x faster than the core-backed one (the forward pass stays)"
    )
    return {"python": median(python), "core": median(core), "ratio": ratio, "bound": bound}


def search_preset(spec: GameSpec) -> str | None:
    """The game's first preset of the search trainer, or ``None`` (none, or no YAML reader)."""
    from agents.training.config import load_yaml

    try:
        for name in game_agents(spec).presets:
            if load_yaml(f"{spec.name}:{name}").get("algorithm") == "search":
                return name
    except ImportError:
        return None
    return None


@benchmark("search-training", lambda spec: search_preset(spec) is not None, "a preset of the search trainer")
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
    """Iterations of the search trainer on a preset (``config``; default :func:`search_preset`),
    ``examples`` an iteration, ``envs`` games at a time, the teacher's ``simulations`` (fast searches an
    eighth): stored examples per second of self-play, update and the whole iteration, with ``workers``
    self-play processes and updates on ``device``; the first iteration (process start) not counted."""
    from agents.training.config import load_yaml, make_config
    from agents.training.run import make_trainer
    from agents.training.search_training import SearchTrainer

    data = load_yaml(config) if config else None
    spec = BENCHMARKS["search-training"].game(game if game is not None or data is None else data.get("game"))
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
    play, update, total = 0.0, 0.0, 0  # seconds of self-play and update, stored examples
    try:
        for i in range(repeats + 1):
            start = time.perf_counter()
            rollout = trainer.collect_rollout()
            played = time.perf_counter()
            trainer.update(rollout)
            if i:  # the first iteration (process start) is not counted
                play += played - start
                update += time.perf_counter() - played
                total += len(rollout)
    finally:
        trainer.close()
    out = {"selfplay": total / play, "update": total / update, "iteration": total / (play + update)}
    print(
        f"{spec.title} search training, {settings.players} players, {settings.search}:{simulations} teacher, "
        f"{workers} self-play process(es), updates on {device}, {repeats} iterations ({total:,} examples):"
    )
    print(
        f"  stored examples/s: self-play {out['selfplay']:.1f}, update {out['update']:.1f}, "
        f"whole iteration {out['iteration']:.1f}"
    )
    return out
