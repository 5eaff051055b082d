"""Speed benchmarks. Prints numbers; asserts nothing.

    python scripts/benchmark.py engine [--players 4] [--seconds 2] [--repeats 5]
        Engine decisions/s and games/s for uniformly random full games through the public API
        (game.legal_moves() + game.play(str)); median (min-max) over the repeats.
    python scripts/benchmark.py koenig-engine [--players 4] [--seconds 2] [--repeats 5] [--discard one]
        The same for the Kardinal & König engine (kardinal_env.koenig; 3-5 players, default board).
    python scripts/benchmark.py koenig-env [--players 4] [--seconds 2] [--repeats 5] [--discard one]
        Random masked play through kardinal_koenig_v1.env() side by side with connect_four_v3 (the same
        sampler and loop as ``env``); prints both and the ratio koenig / connect_four.
    python scripts/benchmark.py core [--players 4] [--seconds 2] [--repeats 5]
        The compiled core's Kardinal engine (kardinal_core, cpp/; bash scripts/setup.sh builds it)
        against the Python engine, in the same run, repeats interleaved: uniformly random games as
        decisions/s of (a) the Python engine as ``engine`` measures it (legal_moves + play(str)),
        (b) the Python engine on move codes (legal_move_codes + apply_legal_code, its fast path),
        (c) the core's random_playouts (whole games inside C++, its own generator), (d) the core
        stepped from Python one decision at a time (legal_move_codes + play_code, checked), and the
        public Game backed by the core (kardinal_env.kardinal.core_game.CoreGame) stepped the same
        way, (e) on codes (legal_move_codes + play_code) and (f) on strings (legal_moves + play);
        the ratios c/a, c/b, d/a, d/b, e/b, f/a per repeat (median and range). The Python engine
        is Game.reference (Game(...) is core-backed when the core is used).
    python scripts/benchmark.py koenig-core [--players 4] [--seconds 2] [--repeats 5] [--discard one]
        The same comparison for the core's Kardinal & König engine (kardinal_core.KoenigGame; default
        board), repeats interleaved, decisions/s of (a) the Python engine, legal_moves + play(str),
        (b) the Python engine on move ids, legal_move_ids + apply_legal_id (its fast path), (c) the
        core's random_playouts (whole games inside C++) and (d) the core stepped from Python one
        decision at a time on action ids (legal_move_ids + play_id, checked; each game a fresh seeded
        deal like (a) and (b)); (e) and (f) the public ``Game(...)``, core-backed (CoreGame), on ids
        and on strings; the ratios c/a, c/b, d/a, d/b, e/b, f/a per repeat (median and range). The
        Python engine is ``Game.reference``.
    python scripts/benchmark.py core-mcts [--players 4] [--repeats 5] [--simulations 200]
        Seconds per ``mcts:N`` decision, the Python search (MCTSAgent(compiled=False)) against the
        compiled core's (MCTSAgent: GameSpec.compiled_search, position replayed into the core
        included), on the same 8 positions of seeded random games, repeats interleaved; the ratio
        python / core per repeat (median and range).
    python scripts/benchmark.py puct [--players 4] [--repeats 5] [--simulations 256] [--model zoo:kardinal-2p-cnn]
                                     [--rollouts R]
        Seconds per ``puct:N:MODEL`` decision (default: the shipped 2-player plain network's own search;
        ``--rollouts``: playouts from every new leaf, else the model's own search defaults) on
        6 positions of seeded random games, on the Python engine (Game.reference) and on the
        core-backed Game, repeats interleaved, and the share of the time spent in the network's forward
        pass: the bound on what a compiled tree, engine and encoder could give (1 / that share).
    python scripts/benchmark.py koenig-ismcts [--players 4] [--repeats 5] [--simulations 200]
        Seconds per ``ismcts:N`` decision on Kardinal & König, the Python search (ISMCTSAgent(compiled=False))
        against the compiled core's (ISMCTSAgent: GameSpec.compiled_ismcts; the seat's knowledge built
        in Python and the position copied into the core included, the worlds dealt in C++), on the same 8
        positions of seeded random games, repeats interleaved; both choose the same moves; the ratio
        python / core per repeat.
    python scripts/benchmark.py koenig-heuristic [--players 4] [--repeats 3] [--games 2]
        The Kardinal & König ``heuristic`` agent, Python (KoenigHeuristicAgent(compiled=False)) against
        compiled (KoenigHeuristicAgent: kardinal_env.koenig.compiled.heuristic_values on the core-backed
        Game; the seat's deck probabilities computed in Python included): seconds per decision on 8
        positions of seeded random games, and seconds per whole game with every seat the agent (--games
        seeded games per repeat), repeats interleaved; both choose the same moves and play the same
        games; the ratios python / compiled per repeat (median and range).
    python scripts/benchmark.py koenig-rollout [--players 4] [--repeats 3] [--simulations 512]
        The Kardinal & König ``rollout:N`` agent (up to N worlds per candidate; compiled playouts): seconds
        per decision and worlds played per decision on 8 positions of seeded random games, and seconds per
        playout (one world, one move) of the Python reference against the core on the three positions
        nearest the end, repeats interleaved; both give the same values; the ratio python / core per repeat.
    python scripts/benchmark.py search-training [--players 2] [--repeats 3] [--workers 1] [--device cpu]
                                                 [--simulations 800]
        Iterations of the search trainer on Kardinal (configs/search_2p.yaml's network, mcts:N teacher,
        DAgger and baseline games, 1,024 examples each), self-play and update timed apart: stored examples
        per second of each and of the whole iteration, with --workers self-play processes
        (selfplay_workers) and the updates on --device; the first iteration is not counted.
    python scripts/benchmark.py core-obs [--players 4] [--repeats 5] [--games 20] [--window W]
        Observations + action masks per second over every position of seeded random games, the seat
        deciding observing (as the environment does): the Python ObservationEncoder.encode (following
        the game, its incremental fast path; a new array each call) + ActionCodec.action_mask, against
        the compiled core's KardinalGame.encode_into + action_mask_into writing into preallocated
        buffers; only those calls are timed (the moves are played untimed), repeats interleaved; the
        ratio core / python per repeat (median and range). --window: a window variant (Rules(window=W)).
    python scripts/benchmark.py koenig-obs [--players 4] [--repeats 5] [--games 20] [--discard one]
        The same for Kardinal & König: the Python ObservationEncoder.encode + ActionCodec.action_mask
        (Game.reference, its board-block cache) against the core-backed Game's encode_into +
        action_mask_into into preallocated buffers, the seat deciding observing; only those calls are
        timed, repeats interleaved; the ratio core / python per repeat (median and range).
    python scripts/benchmark.py env [--players 4] [--seconds 2] [--repeats 5]
        Random masked play through kardinal_v0.env() (agent_iter / last / step; observation and
        mask built every step) side by side, in the same run, with PettingZoo's connect_four_v3
        env(); prints both, and the ratio kardinal / connect_four.
    python scripts/benchmark.py vector [--players 4] [--seconds 2] [--repeats 5] [--num-envs 8,32,128,512]
                                       [--threads 0,2]
        kardinal_env.vector.VectorEnv (N games per step call, auto-reset, a uniformly random legal
        action per game from VectorEnv.random_actions, which reads the legal ids, not the masks) with the
        core backend: agent-steps/s (N per call) of Kardinal and of Kardinal & König at every batch size
        of --num-envs and every thread count of --threads, and per repeat the ratio of each thread count
        to the first (threads=2 / threads=0); beside them, at 32 games, both games' python backend and
        the AEC loops of kardinal_v0 and connect_four_v3 (``env``'s sampler and loop), with the ratio to
        connect_four per repeat. Every cell is timed once per repeat, repeats interleaved; the machine's
        usable cores and load average are printed before and after.

Run nothing else on the machine meanwhile: the box has 2 cores and figures move 10-40 % between
runs; the side-by-side ratio is the stable number.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np


def _timed(fn, seconds: float, repeats: int) -> tuple[list[float], list[float]]:
    """Run ``fn() -> (decisions, games)`` until ``seconds`` pass, ``repeats`` times; rates per repeat."""
    fn()  # warm-up
    per_step, per_game = [], []
    for _ in range(repeats):
        steps = games = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            s, g = fn()
            steps += s
            games += g
        per_step.append(steps / elapsed)
        per_game.append(games / elapsed)
    return per_step, per_game


def _fmt(rates: list[float]) -> str:
    return f"{statistics.median(rates):,.0f} ({min(rates):,.0f}-{max(rates):,.0f})"


def _random_game(game, rng) -> tuple[int, int]:
    """Play ``game`` to the end with uniformly random legal moves (``legal_moves`` + ``play``):
    (decisions, 1)."""
    n = 0
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
        n += 1
    return n, 1


def bench_engine(players: int, seconds: float, repeats: int, seed: int = 0) -> dict:
    from kardinal_env.kardinal import Game, Rules

    rules = Rules(players=players)
    rng = random.Random(seed)
    steps, games = _timed(lambda: _random_game(Game(rules), rng), seconds, repeats)
    backend = "core-backed" if Game(rules).compiled else "Python"
    print(f"engine ({backend} Game), {players} players, random legal moves (legal_moves + play):")
    print(f"  decisions/s  {_fmt(steps)}   median (min-max) of {repeats} x {seconds:g} s")
    print(f"  games/s      {_fmt(games)}")
    return {"decisions_per_s": statistics.median(steps), "games_per_s": statistics.median(games)}


def bench_koenig_engine(players: int, seconds: float, repeats: int, discard: str = "one", seed: int = 0) -> dict:
    from kardinal_env.koenig import Game, Rules

    rules = Rules(players=players, discard=discard)
    rng = random.Random(seed)
    games = [0]

    def one_game():
        game = Game(rules, seed=games[0])
        games[0] += 1
        n = 0
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
            n += 1
        return n, 1

    cpu_rates = []

    def one_game_cpu():  # also count the process's CPU time: on a shared machine wall time includes waiting
        start = time.process_time()
        n, g = one_game()
        cpu_rates.append((n, time.process_time() - start))
        return n, g

    steps, per_game = _timed(one_game_cpu, seconds, repeats)
    cpu = sum(n for n, _ in cpu_rates) / max(sum(t for _, t in cpu_rates), 1e-9)
    print(f"koenig engine, {players} players, discard={discard!r}, random legal moves (legal_moves + play):")
    print(f"  decisions/s  {_fmt(steps)}   median (min-max) of {repeats} x {seconds:g} s")
    print(f"  games/s      {_fmt(per_game)}")
    print(f"  decisions per CPU second (all repeats): {cpu:,.0f}")
    return {"decisions_per_s": statistics.median(steps), "games_per_s": statistics.median(per_game), "per_cpu_s": cpu}


def _engine_comparison(title: str, rows, targets, seconds: float, repeats: int) -> dict:
    """Time each ``(name, label, fn)`` of ``rows`` for ``seconds`` per repeat, the repeats interleaved so
    that all of them see the same machine load; print decisions/s and, for each ``(a, b, target)`` of
    ``targets``, the ratio a/b per repeat (median and range; ``target`` None: no target). The medians
    and ratios as a dict."""
    names = [name for name, _, _ in rows]
    letters = dict(zip(names, "abcdefgh"))
    rates: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(repeats):
        for name, _, fn in rows:
            rates[name] += _timed(fn, seconds, 1)[0]
    print(f"{title}, {repeats} x {seconds:g} s:")
    width = max(len(label) for _, label, _ in rows) + 1
    for name, label, _ in rows:
        print(f"  ({letters[name]}) {label + ':':<{width}} {_fmt(rates[name])} decisions/s")
    out = {name: statistics.median(v) for name, v in rates.items()}
    for a, b, target in targets:
        r = [x / y for x, y in zip(rates[a], rates[b])]
        text = f"{statistics.median(r):.1f}x (per-repeat {min(r):.1f}-{max(r):.1f})"
        print(f"  ratio {letters[a]}/{letters[b]}: {text}" + (f"   (issue 22 target >= {target}x)" if target else ""))
        out[f"{a}/{b}"] = statistics.median(r)
    return out


def bench_core(players: int, seconds: float, repeats: int, seed: int = 0) -> dict:
    from kardinal_env.kardinal import Game, Rules
    from kardinal_env.kardinal.compiled import core_game

    rules = Rules(players=players)
    rng = random.Random(seed)
    core_start = core_game(rules)  # RuntimeError naming how to build the core when it is missing
    playout_seed = [seed]

    def python_strings():
        return _random_game(Game.reference(rules), rng)

    def python_codes():
        game = Game.reference(rules)
        n = 0
        while not game.is_over:
            game.apply_legal_code(rng.choice(game.legal_move_codes()))
            n += 1
        return n, 1

    def core_playouts():  # 200 whole games inside C++ per call
        playout_seed[0] += 1
        summary = core_start.random_playouts(200, playout_seed[0])
        return summary["decisions"], summary["games"]

    def core_stepped():
        game = core_start.clone()
        n = 0
        while not game.is_over:
            game.play_code(rng.choice(game.legal_move_codes()))
            n += 1
        return n, 1

    def game_codes():  # the public Game, core-backed: what agents and the environments call
        game = Game(rules)
        n = 0
        while not game.is_over:
            game.play_code(rng.choice(game.legal_move_codes()))
            n += 1
        return n, 1

    def game_strings():
        return _random_game(Game(rules), rng)

    if not Game(rules).compiled:
        raise RuntimeError("Game(rules) is not core-backed here (KARDINAL_ENV_BACKEND=python?)")
    rows = (
        ("python_strings", "Python engine, legal_moves + play(str)", python_strings),
        ("python_codes", "Python engine, legal_move_codes + apply_legal_code", python_codes),
        ("core_playouts", "core random_playouts (whole games in C++)", core_playouts),
        ("core_stepped", "core stepped from Python (codes + play_code)", core_stepped),
        ("game_codes", "Game (core-backed), legal_move_codes + play_code", game_codes),
        ("game_strings", "Game (core-backed), legal_moves + play(str)", game_strings),
    )
    targets = (
        ("core_playouts", "python_strings", 20),
        ("core_playouts", "python_codes", 20),
        ("core_stepped", "python_strings", 4),
        ("core_stepped", "python_codes", 4),
        ("game_codes", "python_codes", 4),
        ("game_strings", "python_strings", None),
    )
    title = f"Kardinal engine, {players} players, random legal moves, compiled core vs Python"
    return _engine_comparison(title, rows, targets, seconds, repeats)


def bench_koenig_core(players: int, seconds: float, repeats: int, discard: str = "one", seed: int = 0) -> dict:
    from kardinal_env.koenig import Game, Rules
    from kardinal_env.koenig.compiled import core_game

    rules = Rules(players=players, discard=discard)
    rng = random.Random(seed)
    core_start = core_game(rules, seed)  # RuntimeError naming how to build the core when it is missing
    deal = [seed]
    playout_seed = [seed]

    def next_seed() -> int:
        deal[0] += 1
        return deal[0]

    def python_strings():
        game = Game.reference(rules, seed=next_seed())
        n = 0
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
            n += 1
        return n, 1

    def python_ids():
        game = Game.reference(rules, seed=next_seed())
        n = 0
        while not game.is_over:
            game.apply_legal_id(rng.choice(game.legal_move_ids()))
            n += 1
        return n, 1

    def core_playouts():  # 100 whole games inside C++ per call
        playout_seed[0] += 1
        summary = core_start.random_playouts(100, playout_seed[0])
        return summary["decisions"], summary["games"]

    def core_stepped():
        game = core_game(rules, next_seed())
        n = 0
        while not game.is_over:
            game.play_id(rng.choice(game.legal_move_ids()))
            n += 1
        return n, 1

    def game_ids():  # the public Game(...), core-backed (CoreGame), on ids
        game = Game(rules, seed=next_seed())
        n = 0
        while not game.is_over:
            game.apply_legal_id(rng.choice(game.legal_move_ids()))
            n += 1
        return n, 1

    def game_strings():  # the public Game(...), core-backed (CoreGame), on strings
        game = Game(rules, seed=next_seed())
        n = 0
        while not game.is_over:
            game.play(rng.choice(game.legal_moves()))
            n += 1
        return n, 1

    rows = (
        ("python_strings", "Python engine, legal_moves + play(str)", python_strings),
        ("python_ids", "Python engine, legal_move_ids + apply_legal_id", python_ids),
        ("core_playouts", "core random_playouts (whole games in C++)", core_playouts),
        ("core_stepped", "core stepped from Python (legal_move_ids + play_id)", core_stepped),
        ("game_ids", "Game (core-backed), legal_move_ids + apply_legal_id", game_ids),
        ("game_strings", "Game (core-backed), legal_moves + play(str)", game_strings),
    )
    targets = (
        ("core_playouts", "python_strings", 20),
        ("core_playouts", "python_ids", 20),
        ("core_stepped", "python_strings", 4),
        ("core_stepped", "python_ids", 4),
        ("game_ids", "python_ids", 4),
        ("game_strings", "python_strings", None),
    )
    title = (
        f"Kardinal & König engine, {players} players, discard={discard!r}, random legal moves, compiled core vs Python"
    )
    return _engine_comparison(title, rows, targets, seconds, repeats)


def bench_core_mcts(players: int, repeats: int, simulations: int = 200, seed: int = 0) -> dict:
    from agents.search.mcts import MCTSAgent
    from kardinal_env.kardinal import Game, Rules
    from kardinal_env.kardinal.compiled import core_game

    rules = Rules(players=players)
    core_game(rules)  # RuntimeError naming how to build the core when it is missing
    rng = random.Random(seed)
    positions = []
    while len(positions) < 8:  # one position a quarter, half, three quarters into a random game
        game = Game.reference(rules)  # the Python engine (the core search replays it, as before)
        moves: list = []
        while not game.is_over:
            moves.append(game.clone())
            game.apply_legal_code(rng.choice(game.legal_move_codes()))
        for at in (len(moves) // 4, len(moves) // 2, 3 * len(moves) // 4):
            if len(moves[at].legal_moves()) > 1 and len(positions) < 8:
                positions.append(moves[at])

    def per_decision(compiled: bool) -> float:
        agent = MCTSAgent(simulations, seed=seed, compiled=compiled)
        start = time.perf_counter()
        for game in positions:
            agent.select_move(game)
        return (time.perf_counter() - start) / len(positions)

    per_decision(True)  # warm-up (imports, the core's tuple cache)
    python, core = [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        python.append(per_decision(False))
        core.append(per_decision(True))
    ratios = [p / c for p, c in zip(python, core)]
    print(
        f"Kardinal mcts:{simulations}, {players} players, seconds per decision over {len(positions)} positions, "
        f"{repeats} repeats:"
    )
    print(f"  Python search: {statistics.median(python):.3f} s ({min(python):.3f}-{max(python):.3f})")
    print(f"  core search:   {statistics.median(core):.4f} s ({min(core):.4f}-{max(core):.4f})")
    print(
        f"  ratio python/core: {statistics.median(ratios):.1f}x (per-repeat {min(ratios):.1f}-{max(ratios):.1f})"
        "   (issue 22 target >= 10x)"
    )
    return {"python": statistics.median(python), "core": statistics.median(core), "ratio": statistics.median(ratios)}


def bench_puct(
    players: int,
    repeats: int,
    simulations: int = 256,
    model: str = "zoo:kardinal-2p-cnn",
    seed: int = 0,
    rollouts: int | None = None,
) -> dict:
    """``puct:N`` on a shipped network, per decision, on the Python engine and on the core-backed game,
    and the share of the time the network's forward pass takes (what no compiled tree can remove).
    ``rollouts``: playouts from every new leaf (``None``: the model's own search defaults); on the
    core-backed game they run in the core (``GameSpec.compiled_playout``), on the Python engine in Python."""
    from agents import load_agent
    from kardinal_env.kardinal import Game, Rules

    rules = Rules(players=players)
    rng = random.Random(seed)
    python_positions = []
    while len(python_positions) < 6:  # a quarter, half, three quarters into random games
        game = Game.reference(rules)
        seen: list = []
        while not game.is_over:
            seen.append(game.clone())
            game.apply_legal_code(rng.choice(game.legal_move_codes()))
        for at in (len(seen) // 4, len(seen) // 2, 3 * len(seen) // 4):
            if len(seen[at].legal_moves()) > 1 and len(python_positions) < 6:
                python_positions.append(seen[at])
    core_positions = []
    for position in python_positions:
        game = Game(rules)  # core-backed where the core is built and used
        for code in position.history_codes:
            game.play_code(code)
        core_positions.append(game)
    agent = load_agent(f"puct:{simulations}:{model}", seed=seed, **({} if rollouts is None else {"rollouts": rollouts}))
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
        for game in positions:
            agent.select_move(game)
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
    ratio = statistics.median(p / c for p, c in zip(python, core))
    bound = 1.0 / statistics.median(core_share)
    print(
        f"Kardinal puct:{simulations}:{model} ({agent.rollouts} playouts a leaf, batch {agent.batch_size}), "
        f"{players} players, seconds per decision over "
        f"{len(python_positions)} positions, {repeats} repeats:"
    )
    print(f"  Python engine: {statistics.median(python):.3f} s, network forward {statistics.median(python_share):.0%}")
    print(f"  core engine:   {statistics.median(core):.3f} s, network forward {statistics.median(core_share):.0%}")
    print(
        f"  ratio python/core: {ratio:.2f}x (issue 22 target >= 3x); a search whose tree, engine and encoding "
        f"cost nothing would be at most {bound:.2f}x faster than the core-backed one (the forward pass stays)"
    )
    return {"python": statistics.median(python), "core": statistics.median(core), "ratio": ratio, "bound": bound}


def bench_search_training(
    players: int,
    repeats: int,
    workers: int = 1,
    device: str = "cpu",
    simulations: int = 800,
    examples: int = 1024,
    envs: int = 16,
    seed: int = 0,
) -> dict:
    """Iterations of the search trainer on Kardinal (``configs/search_2p.yaml``'s network, teacher and
    DAgger/baseline shares; ``examples`` an iteration, ``envs`` games at a time), self-play and update
    timed apart: stored examples per second of each and of the whole iteration, with ``workers``
    self-play processes and the updates on ``device``. The first iteration (process start) is not counted."""
    from agents.training.config import load_yaml, make_config
    from agents.training.run import make_trainer

    config = make_config(
        ("configs/search_2p.yaml", load_yaml("search_2p")),
        (
            "benchmark",
            {
                "players": players,
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
            },
        ),
    )
    trainer = make_trainer(config)
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
        f"Kardinal search training, {players} players, mcts:{simulations} teacher, {workers} self-play "
        f"process(es), updates on {device}, {repeats} iterations ({total:,} examples):"
    )
    print(
        f"  stored examples/s: self-play {out['selfplay']:.1f}, update {out['update']:.1f}, "
        f"whole iteration {out['iteration']:.1f}"
    )
    return out


def _koenig_positions(rules, seed: int, count: int = 8) -> list:
    """``count`` Kardinal & König positions with a choice: a quarter, half and three quarters into
    random games of ``rules`` (deals 1, 2, ...; moves drawn from ``seed``)."""
    from kardinal_env.koenig import Game

    rng = random.Random(seed)
    positions: list = []
    deal = 0
    while len(positions) < count:
        deal += 1
        game = Game(rules, seed=deal)
        moves: list = []
        while not game.is_over:
            moves.append(game.clone())
            game.apply_legal_id(rng.choice(game.legal_move_ids()))
        for at in (len(moves) // 4, len(moves) // 2, 3 * len(moves) // 4):
            if len(moves[at].legal_moves()) > 1 and len(positions) < count:
                positions.append(moves[at])
    return positions


def bench_koenig_ismcts(players: int, repeats: int, simulations: int = 200, seed: int = 0) -> dict:
    from agents.search.ismcts import ISMCTSAgent
    from kardinal_env.koenig import Rules
    from kardinal_env.koenig.compiled import core_game

    rules = Rules(players=players)
    core_game(rules)  # RuntimeError naming how to build the core when it is missing
    positions = _koenig_positions(rules, seed)

    def per_decision(compiled: bool) -> tuple[float, list[str]]:
        agent = ISMCTSAgent(simulations, seed=seed, compiled=compiled)
        start = time.perf_counter()
        chosen = [agent.select_move(game) for game in positions]
        return (time.perf_counter() - start) / len(positions), chosen

    per_decision(True)  # warm-up (imports)
    python, core = [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        seconds, slow_moves = per_decision(False)
        python.append(seconds)
        seconds, fast_moves = per_decision(True)
        core.append(seconds)
        assert fast_moves == slow_moves, "the compiled search chose other moves"
    ratios = [p / c for p, c in zip(python, core)]
    print(
        f"Kardinal & König ismcts:{simulations}, {players} players, seconds per decision over {len(positions)} "
        f"positions, {repeats} repeats (the same moves on both):"
    )
    print(f"  Python search: {statistics.median(python):.4f} s ({min(python):.4f}-{max(python):.4f})")
    print(f"  core search:   {statistics.median(core):.4f} s ({min(core):.4f}-{max(core):.4f})")
    print(f"  ratio python/core: {statistics.median(ratios):.1f}x (per-repeat {min(ratios):.1f}-{max(ratios):.1f})")
    return {"python": statistics.median(python), "core": statistics.median(core), "ratio": statistics.median(ratios)}


def _heuristic_positions(players: int, seed: int, binding: str) -> tuple:
    """The rules and :func:`_koenig_positions` of the benchmarks of the compiled heuristic; a
    RuntimeError naming what to build when the core or its ``binding`` is missing."""
    from kardinal_env.koenig import Rules
    from kardinal_env.koenig.compiled import core_game, heuristic_core

    rules = Rules(players=players)
    core_game(rules)  # RuntimeError naming how to build the core when it is missing
    if heuristic_core() is None:
        raise RuntimeError(f"the compiled heuristic is not available ({binding}): rebuild the core")
    return rules, _koenig_positions(rules, seed)


def bench_koenig_rollout(players: int, repeats: int, worlds: int = 512, seed: int = 0) -> dict:
    from agents.search.heuristic_rollouts import HeuristicRolloutAgent, rollout_values

    _rules, positions = _heuristic_positions(players, seed, "KoenigGame.heuristic_rollouts")
    late = sorted(positions, key=lambda g: -g.move_count)[:3]

    played: list[int] = []

    def per_decision() -> float:
        agent = HeuristicRolloutAgent(worlds, seed=seed)
        start = time.perf_counter()
        for game in positions:
            agent.select_move(game)
            played.append(agent.last_worlds)
        return (time.perf_counter() - start) / len(positions)

    def per_playout(compiled: bool) -> tuple[float, list]:
        start = time.perf_counter()
        values = [rollout_values(g, g.legal_move_ids()[:1], 1, seed, compiled=compiled) for g in late]
        return (time.perf_counter() - start) / len(late), values

    per_decision()  # warm-up (imports)
    decision, python, core = [], [], []
    for _ in range(repeats):  # interleaved so all see the same machine load
        decision.append(per_decision())
        seconds, slow = per_playout(False)
        python.append(seconds)
        seconds, fast = per_playout(True)
        core.append(seconds)
        assert fast == slow, "the compiled playouts gave other values"
    ratios = [p / c for p, c in zip(python, core)]
    med = statistics.median
    print(f"Kardinal & König rollout:{worlds}, {players} players, {repeats} repeats:")
    print(
        f"  seconds per decision over {len(positions)} positions: {med(decision):.3f} "
        f"({min(decision):.3f}-{max(decision):.3f}); worlds played per decision {statistics.mean(played):.1f} "
        f"(at most {worlds})"
    )
    print(
        f"  seconds per playout from the {len(late)} latest positions (moves {sorted(g.move_count for g in late)}): "
        f"Python {med(python):.3f}, core {med(core):.4f}; ratio python/core {med(ratios):.0f}x "
        f"(per-repeat {min(ratios):.0f}-{max(ratios):.0f})"
    )
    return {
        "decision": med(decision),
        "worlds": statistics.mean(played),
        "python_playout": med(python),
        "core_playout": med(core),
        "ratio": med(ratios),
    }


def bench_koenig_heuristic(players: int, repeats: int, games: int = 2, seed: int = 0) -> dict:
    from agents.baselines.koenig_heuristic import KoenigHeuristicAgent
    from kardinal_env.koenig import Game

    rules, positions = _heuristic_positions(players, seed, "KoenigGame.heuristic_values")

    def per_decision(compiled: bool) -> tuple[float, list[str]]:
        agent = KoenigHeuristicAgent(seed=seed, compiled=compiled)
        start = time.perf_counter()
        chosen = [agent.select_move(game) for game in positions]
        return (time.perf_counter() - start) / len(positions), chosen

    def per_game(compiled: bool) -> tuple[float, list[list[int]], int]:
        histories, decisions = [], 0
        start = time.perf_counter()
        for g in range(games):
            game = Game(rules, seed=1000 + g)
            agents = [KoenigHeuristicAgent(seed=s, compiled=compiled) for s in range(players)]
            while not game.is_over:
                game.play(agents[game.current_player].select_move(game))
            histories.append(game.history)
            decisions += len(game.history)
        return (time.perf_counter() - start) / games, histories, decisions

    per_decision(True)  # warm-up (imports)
    py_dec, cc_dec, py_game, cc_game = [], [], [], []
    decisions = 0
    for _ in range(repeats):  # interleaved so both see the same machine load
        seconds, slow_moves = per_decision(False)
        py_dec.append(seconds)
        seconds, fast_moves = per_decision(True)
        cc_dec.append(seconds)
        assert fast_moves == slow_moves, "the compiled heuristic chose other moves"
        seconds, slow_games, decisions = per_game(False)
        py_game.append(seconds)
        seconds, fast_games, _ = per_game(True)
        cc_game.append(seconds)
        assert fast_games == slow_games, "the compiled heuristic played other games"
    dec_ratios = [p / c for p, c in zip(py_dec, cc_dec)]
    game_ratios = [p / c for p, c in zip(py_game, cc_game)]
    med = statistics.median
    print(
        f"Kardinal & König heuristic, {players} players, {repeats} repeats (the same moves and games on both): "
        f"seconds per decision over {len(positions)} positions; seconds per game over {games} games of "
        f"{decisions / games:.0f} decisions (every seat the agent, forced single moves included)"
    )
    print(
        f"  Python heuristic:   {med(py_dec):.5f} s/decision ({min(py_dec):.5f}-{max(py_dec):.5f}), "
        f"{med(py_game):.3f} s/game ({min(py_game):.3f}-{max(py_game):.3f})"
    )
    print(
        f"  compiled heuristic: {med(cc_dec):.5f} s/decision ({min(cc_dec):.5f}-{max(cc_dec):.5f}), "
        f"{med(cc_game):.3f} s/game ({min(cc_game):.3f}-{max(cc_game):.3f})"
    )
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


def bench_core_obs(players: int, repeats: int, games: int = 20, window: int | None = None, seed: int = 0) -> dict:
    from kardinal_env.kardinal import Game, Rules, compiled
    from kardinal_env.kardinal.actions import ActionCodec
    from kardinal_env.kardinal.observation import ObservationEncoder

    rules = Rules(players=players, window=window)
    compiled.core_game(rules)  # RuntimeError naming how to build the core when it is missing
    module = compiled.core_module()
    rng = random.Random(seed)
    histories = []  # the move codes of seeded random games, the same for both sides
    for _ in range(games):
        game = Game(rules)
        while not game.is_over:
            game.apply_legal_code(rng.choice(game.legal_move_codes()))
        histories.append(game.history_codes)
    positions = sum(len(h) + 1 for h in histories)
    timer = time.perf_counter

    def python_side() -> float:
        encoder, codec = ObservationEncoder(rules), ActionCodec(rules)
        spent = 0.0
        for history in histories:
            game = Game.reference(rules)  # the Python engine and encoder
            for i in range(len(history) + 1):
                seat = game.current_player
                start = timer()
                encoder.encode(game, 0 if seat is None else seat)
                codec.action_mask(game)
                spent += timer() - start
                if i < len(history):
                    game.apply_legal_code(history[i])
        return positions / spent

    obs = compiled.observation_buffer(rules)
    mask = compiled.mask_buffer(rules)

    def core_side() -> float:
        spent = 0.0
        for history in histories:
            game = compiled.game_of_module(module, rules)
            for i in range(len(history) + 1):
                seat = game.current_player
                start = timer()
                game.encode_into(0 if seat is None else seat, obs)
                game.action_mask_into(mask)
                spent += timer() - start
                if i < len(history):
                    game.play_code(history[i])
        return positions / spent

    python_side(), core_side()  # warm-up
    python, core = [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        python.append(python_side())
        core.append(core_side())
    ratios = [c / p for p, c in zip(python, core)]
    w = obs.shape[1]
    print(
        f"Kardinal observation ({obs.shape[0]}x{w}x{w} uint8) + action mask ({mask.size:,} entries), {players} "
        f"players, {positions} positions of {games} random games, {repeats} repeats:"
    )
    print(f"  Python ObservationEncoder.encode + ActionCodec.action_mask: {_fmt(python)} per s")
    print(f"  core encode_into + action_mask_into (preallocated buffers): {_fmt(core)} per s")
    print(f"  ratio core / python: {statistics.median(ratios):.1f}x (per-repeat {min(ratios):.1f}-{max(ratios):.1f})")
    return {"python": statistics.median(python), "core": statistics.median(core), "ratio": statistics.median(ratios)}


def bench_koenig_obs(players: int, repeats: int, games: int, discard: str = "one", seed: int = 0) -> dict:
    from kardinal_env.koenig import Game, Rules, compiled
    from kardinal_env.koenig.actions import ActionCodec
    from kardinal_env.koenig.observation import ObservationEncoder

    if not compiled.available():
        raise SystemExit("koenig-obs needs the compiled core (bash scripts/setup.sh)")
    rules = Rules(players=players, discard=discard)
    rng = random.Random(seed)
    histories = []
    for g in range(games):
        game = Game.reference(rules, seed=seed + g)
        while not game.is_over:
            game.apply_legal_id(rng.choice(game.legal_move_ids()))
        histories.append((seed + g, game.history))
    positions = sum(len(h[1]) + 1 for h in histories)
    timer = time.perf_counter

    def run(make, encode, mask) -> float:
        spent = 0.0
        for game_seed, moves in histories:
            game = make(game_seed)
            for i in range(len(moves) + 1):
                seat = game.current_player
                start = timer()
                encode(game, 0 if seat is None else seat)
                mask(game)
                spent += timer() - start
                if i < len(moves):
                    game.play(moves[i])
        return positions / spent

    encoder, codec = ObservationEncoder(rules), ActionCodec(rules)
    obs, buf = compiled.observation_buffer(rules), compiled.mask_buffer(rules)

    def python_side() -> float:
        return run(lambda s: Game.reference(rules, seed=s), encoder.encode, codec.action_mask)

    def core_side() -> float:
        return run(
            lambda s: Game(rules, seed=s),
            lambda game, seat: game.encode_into(seat, obs),
            lambda game: game.action_mask_into(buf),
        )

    python_side(), core_side()  # warm-up
    python, core = [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        python.append(python_side())
        core.append(core_side())
    ratios = [c / p for p, c in zip(python, core)]
    print(
        f"Kardinal & König observation ({obs.size} float32) + action mask ({buf.size} int8), {players} players, "
        f"discard={discard!r}, {positions} positions of {games} random games, {repeats} repeats:"
    )
    print(f"  Python ObservationEncoder.encode + ActionCodec.action_mask: {_fmt(python)} per s")
    print(f"  core encode_into + action_mask_into (preallocated buffers): {_fmt(core)} per s")
    print(f"  ratio core / python: {statistics.median(ratios):.1f}x (per-repeat {min(ratios):.1f}-{max(ratios):.1f})")
    return {"python": statistics.median(python), "core": statistics.median(core), "ratio": statistics.median(ratios)}


def _aec_game(env, rng):
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


def bench_env(players: int, seconds: float, repeats: int, seed: int = 0) -> dict:
    from pettingzoo.classic import connect_four_v3

    from kardinal_env import kardinal_v0

    rng = random.Random(seed)
    kardinal = kardinal_v0.env(players=players)
    connect4 = connect_four_v3.env()
    results = {}
    # Interleave the repeats so both see the same machine load.
    k_steps, c_steps, k_games = [], [], []
    for _ in range(repeats):
        ks, kg = _timed(lambda: _aec_game(kardinal, rng), seconds, 1)
        cs, _ = _timed(lambda: _aec_game(connect4, rng), seconds, 1)
        k_steps += ks
        k_games += kg
        c_steps += cs
    ratios = [k / c for k, c in zip(k_steps, c_steps)]
    print(f"AEC loop through env() (agent_iter / last / step), random masked actions, {repeats} x {seconds:g} s:")
    print(
        f"  kardinal_v0 ({players} players, {kardinal.unwrapped.codec.num_actions} actions, "
        f"obs {kardinal.unwrapped.encoder.shape}): {_fmt(k_steps)} agent-steps/s, {_fmt(k_games)} games/s"
    )
    print(f"  connect_four_v3:                     {_fmt(c_steps)} agent-steps/s")
    print(
        f"  ratio kardinal / connect_four: {statistics.median(ratios):.2f} "
        f"(per-repeat {min(ratios):.2f}-{max(ratios):.2f})"
    )
    results.update(
        kardinal=statistics.median(k_steps), connect_four=statistics.median(c_steps), ratio=statistics.median(ratios)
    )
    return results


def bench_koenig_env(players: int, seconds: float, repeats: int, discard: str = "one", seed: int = 0) -> dict:
    from pettingzoo.classic import connect_four_v3

    from kardinal_env import kardinal_koenig_v1

    rng = random.Random(seed)
    koenig = kardinal_koenig_v1.env(players=players, discard=discard)
    connect4 = connect_four_v3.env()
    k_steps, c_steps, k_games = [], [], []
    for _ in range(repeats):  # interleaved so both see the same machine load
        ks, kg = _timed(lambda: _aec_game(koenig, rng), seconds, 1)
        cs, _ = _timed(lambda: _aec_game(connect4, rng), seconds, 1)
        k_steps += ks
        k_games += kg
        c_steps += cs
    ratios = [k / c for k, c in zip(k_steps, c_steps)]
    raw = koenig.unwrapped
    shape = getattr(getattr(raw, "encoder", None), "shape", "?")
    print(f"AEC loop through env() (agent_iter / last / step), random masked actions, {repeats} x {seconds:g} s:")
    print(
        f"  kardinal_koenig_v1 ({players} players, discard={discard!r}, {raw.action_space(raw.possible_agents[0]).n} "
        f"actions, obs {shape}): {_fmt(k_steps)} agent-steps/s, {_fmt(k_games)} games/s"
    )
    print(f"  connect_four_v3: {_fmt(c_steps)} agent-steps/s")
    print(
        f"  ratio koenig / connect_four: {statistics.median(ratios):.2f} "
        f"(per-repeat {min(ratios):.2f}-{max(ratios):.2f})"
    )
    return {
        "koenig": statistics.median(k_steps),
        "connect_four": statistics.median(c_steps),
        "ratio": statistics.median(ratios),
    }


def _load() -> str:
    try:
        return "load average " + " / ".join(f"{x:.1f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"
    except OSError:
        return "load average unknown"


def bench_vector(
    players: int,
    seconds: float,
    repeats: int,
    sizes: tuple[int, ...] = (8, 32, 128, 512),
    threads: tuple[int, ...] = (0, 2),
    compare_at: int = 32,
    seed: int = 0,
) -> dict:
    """VectorEnv with the core backend for both games at every batch size in ``sizes`` and every thread
    count in ``threads``; beside it, at ``compare_at`` games, the python backend of both games and the
    AEC loops of kardinal_v0 and connect_four_v3. Every cell is timed once per repeat, repeats
    interleaved (all cells see the same machine load); the ratio of each thread count to the first per
    repeat is the stable number for the thread question."""
    from pettingzoo.classic import connect_four_v3

    from kardinal_env import get_game, kardinal_v0
    from kardinal_env.vector import VectorEnv

    def seats(name: str) -> int:  # ``players`` where the game allows it, else its nearest seat count
        allowed = get_game(name).players
        return players if players in allowed else min(allowed, key=lambda p: (abs(p - players), p))

    games = {name: seats(name) for name in ("kardinal", "kardinal_koenig")}
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {cores} usable cores, {_load()}")
    envs: dict[tuple[str, int, int | str], VectorEnv] = {}
    for game, n in games.items():
        for size in sizes:
            for k in threads:
                try:
                    envs[game, size, k] = VectorEnv(
                        game=game, num_envs=size, players=n, seed=seed, backend="core", threads=k
                    )
                except (ImportError, RuntimeError) as exc:  # the core is not built: say so, measure the rest
                    print(f"  ({game} core: skipped, {exc})")
                    break
        envs[game, compare_at, "python"] = VectorEnv(
            game=game, num_envs=compare_at, players=n, seed=seed, backend="python"
        )
    rng = np.random.default_rng(seed)

    def vector_chunk(env):
        calls = max(1, 320 // env.num_envs)  # step calls per timed chunk: ~320 agent-steps

        def run():
            done = 0
            for _ in range(calls):
                done += int(env.step(env.random_actions(rng)).terminated.sum())
            return calls * env.num_envs, done

        return run

    py_rng = random.Random(seed)
    connect4 = connect_four_v3.env()
    kardinal_aec = kardinal_v0.env(players=players)
    rates: dict[object, list[float]] = {key: [] for key in envs}
    rates["aec"], rates["c4"] = [], []
    for env in envs.values():
        env.reset()
    for _ in range(repeats):  # interleaved so all see the same machine load
        for key, env in envs.items():
            rates[key] += _timed(vector_chunk(env), seconds, 1)[0]
        rates["aec"] += _timed(lambda: _aec_game(kardinal_aec, py_rng), seconds, 1)[0]
        rates["c4"] += _timed(lambda: _aec_game(connect4, py_rng), seconds, 1)[0]
    c4 = rates["c4"]

    def ratio(values: list[float], base: list[float], digits: int = 2) -> str:
        r = [v / b for v, b in zip(values, base)]
        return f"{statistics.median(r):.{digits}f} ({min(r):.{digits}f}-{max(r):.{digits}f})"

    print(
        f"VectorEnv, core backend, a random legal action per game (random_actions), {repeats} x {seconds:g} s per "
        "cell, repeats interleaved; agent-steps/s, median (min-max):"
    )
    out: dict[str, float] = {}
    base_k = threads[0]
    for game, n in games.items():
        print(f"  {game} ({n} players)")
        print(
            f"    {'games':>5}  "
            + "".join(f"{f'threads={k}':<28}" for k in threads)
            + "".join(f"threads={k} / threads={base_k} per repeat" for k in threads[1:])
        )
        for size in sizes:
            if (game, size, base_k) not in envs:
                continue
            cells = "".join(f"{_fmt(rates[game, size, k]):<28}" for k in threads)
            versus = "".join(f"{ratio(rates[game, size, k], rates[game, size, base_k]):<33}" for k in threads[1:])
            print(f"    {size:>5}  {cells}{versus}")
            for k in threads:
                out[f"{game} core, {size} games, threads={k}"] = statistics.median(rates[game, size, k])
    print(f"  beside them, {compare_at} games (the core rows at {compare_at} from the table above):")
    lines = [
        (f"{game} core, threads={k}", rates[game, compare_at, k])
        for game in games
        for k in threads
        if (game, compare_at, k) in envs
    ]
    lines += [(f"{game} python backend", rates[game, compare_at, "python"]) for game in games]
    lines += [(f"kardinal_v0 AEC ({players} players)", rates["aec"]), ("connect_four_v3 AEC", c4)]
    for name, values in lines:
        line = f"    {name:<36} {_fmt(values):<28}"
        if values is not c4:
            line += f" ratio to connect_four: {ratio(values, c4)}"
            out[f"{name}/connect_four"] = statistics.median([v / c for v, c in zip(values, c4)])
        print(line)
        out[name] = statistics.median(values)
    for game in games:
        env = envs[game, compare_at, "python"]
        space = env.single_observation_space
        nbytes = int(np.prod(space.shape)) * space.dtype.itemsize
        print(
            f"  {game}'s observation: {space.shape} {space.dtype} = {nbytes:,} bytes a game, "
            f"{env.num_actions:,} actions; connect four's is 84 bytes and 7 actions."
        )
    print(f"machine: {_load()} at the end")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "what",
        nargs="?",
        default="engine",
        choices=[
            "engine",
            "koenig-engine",
            "core",
            "koenig-core",
            "koenig-ismcts",
            "koenig-heuristic",
            "koenig-rollout",
            "core-mcts",
            "puct",
            "core-obs",
            "koenig-obs",
            "env",
            "koenig-env",
            "vector",
            "search-training",
        ],
    )
    parser.add_argument("--players", type=int, default=None, help="default 4 (search-training: 2)")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--discard", default="one", help="koenig targets only: 'one' or 'any'")
    parser.add_argument(
        "--simulations", type=int, default=None, help="core-mcts, koenig-ismcts (default 200), puct (256): per decision"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="core-obs / koenig-obs (default 20): random games whose positions are encoded; koenig-heuristic (2): "
        "whole games per repeat",
    )
    parser.add_argument("--window", type=int, default=None, help="core-obs only: a window variant, Rules(window=W)")
    parser.add_argument(
        "--model", default="zoo:kardinal-2p-cnn", help="puct only: the network searched (a path or zoo:NAME)"
    )
    parser.add_argument("--rollouts", type=int, default=None, help="puct only: playouts from every new leaf")
    parser.add_argument(
        "--num-envs",
        default="8,32,128,512",
        help="vector only: games per VectorEnv, a comma-separated list of batch sizes",
    )
    parser.add_argument("--threads", default="0,2", help="vector only: VectorEnv threads, a comma-separated list")
    parser.add_argument("--workers", type=int, default=1, help="search-training only: self-play processes")
    parser.add_argument("--device", default="cpu", help="search-training only: where the updates run (cpu, cuda)")
    args = parser.parse_args()
    if args.players is None:
        args.players = 2 if args.what == "search-training" else 4
    if args.what == "engine":
        bench_engine(args.players, args.seconds, args.repeats)
    elif args.what == "core":
        bench_core(args.players, args.seconds, args.repeats)
    elif args.what == "koenig-core":
        bench_koenig_core(args.players, args.seconds, args.repeats, args.discard)
    elif args.what == "koenig-ismcts":
        bench_koenig_ismcts(args.players, args.repeats, args.simulations or 200)
    elif args.what == "koenig-heuristic":
        bench_koenig_heuristic(args.players, args.repeats, args.games or 2)
    elif args.what == "koenig-rollout":
        bench_koenig_rollout(args.players, args.repeats, args.simulations or 512)
    elif args.what == "core-mcts":
        bench_core_mcts(args.players, args.repeats, args.simulations or 200)
    elif args.what == "puct":
        bench_puct(args.players, args.repeats, args.simulations or 256, args.model, rollouts=args.rollouts)
    elif args.what == "core-obs":
        bench_core_obs(args.players, args.repeats, args.games or 20, args.window)
    elif args.what == "koenig-obs":
        bench_koenig_obs(args.players, args.repeats, args.games or 20, args.discard)
    elif args.what == "koenig-engine":
        bench_koenig_engine(args.players, args.seconds, args.repeats, args.discard)
    elif args.what == "koenig-env":
        bench_koenig_env(args.players, args.seconds, args.repeats, args.discard)
    elif args.what == "vector":
        sizes = tuple(int(x) for x in args.num_envs.split(","))
        threads = tuple(int(x) for x in args.threads.split(","))
        compare_at = 32 if 32 in sizes else sizes[0]
        bench_vector(args.players, args.seconds, args.repeats, sizes, threads, compare_at)
    elif args.what == "search-training":
        bench_search_training(args.players, args.repeats, args.workers, args.device, args.simulations or 800)
    else:
        bench_env(args.players, args.seconds, args.repeats)


if __name__ == "__main__":
    main()
