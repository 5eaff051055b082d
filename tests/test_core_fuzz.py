"""The project's fuzzing of every way into the compiled core from Python (cpp/src/common/boundary.hpp).

Every public function and method of ``kardinal_core`` and its submodules (found by walking the module,
so a new binding is fuzzed without an edit), the :class:`kardinal_env.vector.VectorEnv` of both games and the search
agents are called with boundary and wrong-typed values (0, -1, 2**31, 2**32, 2**63, 2**64, NaN, inf,
wrong dtypes and shapes, non-contiguous and read-only arrays, ...): each argument of a working call
replaced in turn, plus calls with every argument drawn at random. A call must return or raise a
``TypeError`` / ``ValueError`` (the convention of kardinal_env.core.errors); anything else is a finding,
and so is a signal or a hang: the cases run in worker subprocesses that announce each case before
running it, so a crash names its case, which is then run again alone in a fresh subprocess to confirm.

Default suite: a fixed sample (``DEFAULT_CASES``); ``-m slow``: every one-argument case and many random
ones (``SLOW_RANDOM``). Also here: two threads sharing one action buffer, a writer and ``step``.

Run a worker by hand: ``python tests/test_core_fuzz.py CASES.json``.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve()
DEFAULT_CASES = 400
SLOW_RANDOM = 6000
CHUNK_SECONDS = 240

# ---------------------------------------------------------------------------- values (worker side)

INTS = [
    0,
    -1,
    1,
    2,
    3,
    7,
    2**31 - 1,
    2**31,
    2**32,
    2**32 + 3,
    2**63 - 1,
    2**63,
    2**64,
    -(2**31),
    -(2**63),
    -(2**63) - 1,
]
FLOATS = [0.0, -1.0, 0.5, 1.5, math.nan, math.inf, -math.inf, 1e308]


def value_pool(num_envs: int) -> list:
    """Every bad or boundary value a case may put in an argument (built in the worker: arrays)."""
    import numpy as np

    ro = np.zeros(num_envs, dtype=np.int64)
    ro.flags.writeable = False
    pool: list = [*INTS, *FLOATS, True, False, None, "", "x", "0", b"x", [], [0], [0, 1], (0, 0, 0, 0, 0), {}, object()]
    pool += [
        np.int64(2**62),
        np.uint64(2**64 - 1),
        np.float64(math.nan),
        np.zeros(num_envs, dtype=np.int64),
        np.full(num_envs, -1, dtype=np.int64),
        np.full(num_envs, 2**63 - 1, dtype=np.int64),
        np.full(num_envs, 2**64 - 1, dtype=np.uint64),
        np.zeros(num_envs, dtype=np.int32),
        np.zeros(num_envs, dtype=np.float64),
        np.full(num_envs, math.nan),
        np.zeros(num_envs, dtype=bool),
        np.zeros((num_envs, 2), dtype=np.int64),
        np.zeros(num_envs * 2, dtype=np.int64)[::2],  # not contiguous
        ro,
        np.zeros(0, dtype=np.int64),
        np.zeros((72, 5, 5), dtype=np.uint8),
        np.zeros((72, 53, 53), dtype=np.uint8)[:, ::1, ::1].T,  # the right size, Fortran order
        np.zeros(494, dtype=np.float32),
        np.zeros(494, dtype=np.float64),
        np.zeros(10, dtype=np.int8),
    ]
    return pool


# ---------------------------------------------------------------------------- targets (worker side)


def _signature(func) -> list[tuple[str, bool]]:
    """(name, has a default) of each parameter but ``self``, from nanobind's signature line."""
    line = (func.__doc__ or "").splitlines()[0] if func.__doc__ else ""
    if "(" not in line:
        return []
    inner = line[line.index("(") + 1 : line.rindex(")")]
    params, depth, current = [], 0, ""
    for ch in inner:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "," and depth == 0:
            params.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        params.append(current.strip())
    out = []
    for p in params:
        name = p.split(":")[0].split("=")[0].strip()
        if name in ("self", "*", "/") or name.startswith("*"):
            continue
        out.append((name, "=" in p))
    return out


class Targets:
    """Fresh objects of every core class and their working arguments by parameter name."""

    def __init__(self):
        from dataclasses import astuple

        import kardinal_core
        import numpy as np

        from agents.baselines.koenig_heuristic import DEFAULT_WEIGHTS
        from kardinal_env.koenig import Game
        from kardinal_env.koenig import Rules as KRules
        from kardinal_env.koenig import compiled as kc
        from kardinal_env.koenig.knowledge import SeatKnowledge

        self.core, self.np = kardinal_core, np
        self.krules = KRules(players=4)
        self.kc = kc
        self.board = kc.core_board(self.krules.compiled)
        self.weights = list(astuple(DEFAULT_WEIGHTS))
        game = Game(self.krules, seed=5)  # a K&K position 12 moves in, and its seat's knowledge
        rng = random.Random(5)
        while game.move_count < 12:
            game.apply_action(rng.choice(game.legal_actions()))
        self.koenig_position = game
        self.koenig_knowledge = SeatKnowledge(game, game.current_player).deal_data()

    def objects(self) -> dict:
        """name -> a factory of a fresh object (a class name: its constructor's working arguments)."""
        core = self.core
        return {
            "KardinalGame": lambda: core.KardinalGame(3),
            "KoenigGame": self._koenig_game,
            "KardinalBatch": lambda: self._started(core.KardinalBatch(core.KardinalGame(2, window=5), 2)),
            "KoenigBatch": lambda: self._started(core.KoenigBatch(self.board, 4, "one", 2)),
            "KoenigBoard": lambda: self.board,
            "kardinal_search": lambda: core.KardinalGame(3),  # a search submodule: the game its functions take
            "koenig_search": self._koenig_game,
        }

    def _started(self, batch):
        if hasattr(batch, "next_seed"):
            batch.next_seed[:] = [1, 2]
        batch.reset()
        return batch

    def _koenig_game(self):
        return self.kc.core_position(self.koenig_position, self.core)

    def good(self, obj, name: str):
        """A working value of the parameter ``name`` for a call on ``obj`` (None: leave it out)."""
        np, core = self.np, self.core
        is_koenig = isinstance(obj, core.KoenigGame)
        legal_ids = obj.legal_move_ids() if is_koenig else []
        table = {
            "seat": 0,
            "observer": 0,
            "index": 0,
            "simulations": 2,
            "seed": 1,
            "exploration": 0.7,
            "scale": 8.0,
            "weights": self.weights,
            "replan": 1,
            "widen": 3,
            "margin_weight": 0.0,
            "worlds": 2,
            "n_games": 2,
            "k": 3,
            "bits": 8,
            "size": 5,
            "key": 0,
            "threads": 0,
            "players": 4 if isinstance(obj, str) and "Koenig" in obj else 2,
            "num_envs": 2,
            "discard": "one",
            "board": self.board,
        }
        if name in table:
            return table[name]
        if name == "game":
            return obj
        if name == "knowledge" and is_koenig:
            return self.koenig_knowledge
        if name == "moves":
            return legal_ids[:2]
        if name == "deck_probs":
            return [0.2] * 5
        if name in ("move_id", "move"):
            return legal_ids[0] if is_koenig else None
        if name == "code" and isinstance(obj, core.KardinalGame):
            return obj.legal_move_codes()[0]
        if name == "actions":
            return np.array([obj.legal_action_ids(i)[0] for i in range(obj.num_envs)], dtype=np.int64)
        if name == "out":
            if isinstance(obj, core.KardinalGame):
                w = obj.frame_window
                return np.zeros((72, w, w), dtype=np.uint8)
            if is_koenig:
                return np.zeros(494, dtype=np.float32)
        if name == "start":
            return core.KardinalGame(2)
        return None

    def calls(self):
        """(target, method) of every public callable: module functions, constructors and methods."""
        core = self.core
        out = []
        for name in sorted(dir(core)):
            item = getattr(core, name)
            if name.startswith("_"):
                continue
            if isinstance(item, type):
                out.append((name, "__init__"))
                for method in sorted(vars(item)):
                    if not method.startswith("_") and callable(getattr(item, method)):
                        out.append((name, method))
            elif isinstance(item, ModuleType):  # a game's searches: kardinal_search, koenig_search
                out += [(name, f) for f in sorted(vars(item)) if not f.startswith("_") and callable(getattr(item, f))]
            elif callable(item):
                out.append(("", name))
        return out


def run_case(targets: Targets, case: dict, pool: list) -> str:
    """Run one case; 'ok', 'refused <type>' or 'BAD <type>: <message>'."""
    core = targets.core
    target, method = case["target"], case["method"]
    if target == "":
        func = getattr(core, method)
        obj = None
    elif method == "__init__":
        func = getattr(core, target)
        obj = target
    else:
        obj = targets.objects()[target]()
        func = getattr(getattr(core, target) if target.endswith("_search") else obj, method)
    params = _signature(getattr(core, target).__init__ if method == "__init__" else func)
    args = []
    for i, (name, _default) in enumerate(params):
        if str(i) in case["args"]:
            args.append(pool[case["args"][str(i)]])
        else:
            args.append(targets.good(obj, name))
    while args and args[-1] is None and params[len(args) - 1][1]:
        args.pop()
    return outcome(lambda: func(*args))


def outcome(call) -> str:
    try:
        call()
    except (TypeError, ValueError) as exc:
        return f"refused {type(exc).__name__}"
    except Exception as exc:  # noqa: BLE001 - the finding
        return f"BAD {type(exc).__name__}: {str(exc)[:200]}"
    return "ok"


# -------------------------------------------------------- Python-level targets (VectorEnv, agents)


def run_python_case(case: dict, pool: list) -> str:

    from kardinal_env.vector import VectorEnv

    kind, value = case["kind"], pool[case["value"]]
    game = case["game"]
    if kind == "vector_init":
        return outcome(
            lambda: VectorEnv(game, **{case["arg"]: value}, **({"num_envs": 2} if case["arg"] != "num_envs" else {}))
        )
    env = VectorEnv(game, num_envs=2, seed=0)
    env.reset()
    if kind == "vector_step":
        return outcome(lambda: env.step(value))
    if kind == "vector_method":
        method = getattr(env, case["arg"])
        return outcome(lambda: method(value) if case["arg"] != "reset" else env.reset(seed=value))
    if kind == "agent":
        from agents import load_agent

        def call():
            agent = load_agent(case["spec"], game, **{case["arg"]: value})
            agent.select_move(env.game(0))

        return outcome(call)
    if kind == "agent_spec":
        from agents import load_agent

        spec = case["spec"].replace("N", str(value))
        return outcome(lambda: load_agent(spec, game))
    raise AssertionError(kind)


AGENT_KNOBS = {
    "kardinal": [("mcts:2", ["exploration", "margin_weight", "widen_base", "playout_moves", "seed"])],
    "kardinal_koenig": [
        ("ismcts:2", ["exploration", "scale", "rollout_moves", "seed", "widen"]),
        ("gismcts:2", ["widen", "margin_weight", "widen_visits", "exploration", "scale"]),
        ("pismcts:4", ["batch", "z", "t_continue", "win_bonus", "widen_visits", "widen"]),
        ("rollout:2", ["candidates", "replan", "batch", "z", "win_bonus", "t_continue"]),
    ],
}


def python_cases(pool_size: int) -> list[dict]:
    cases = []
    for game in ("kardinal", "kardinal_koenig"):
        for arg in ("num_envs", "players", "seed", "threads", "reward", "chip_shaping", "score_shaping", "backend"):
            cases += [{"kind": "vector_init", "game": game, "arg": arg, "value": v} for v in range(pool_size)]
        cases += [{"kind": "vector_step", "game": game, "value": v} for v in range(pool_size)]
        for arg in ("legal_actions", "game", "reset"):
            cases += [{"kind": "vector_method", "game": game, "arg": arg, "value": v} for v in range(pool_size)]
        for spec, knobs in AGENT_KNOBS[game]:
            for knob in knobs:
                cases += [
                    {"kind": "agent", "game": game, "spec": spec, "arg": knob, "value": v} for v in range(pool_size)
                ]
        for spec in ("mcts:N", "ismcts:N", "rollout:N") if game == "kardinal_koenig" else ("mcts:N", "ismcts:N"):
            cases += [
                {"kind": "agent_spec", "game": game, "spec": spec, "value": v}
                for v in range(pool_size)
                if isinstance(value_sample(v), int) and not isinstance(value_sample(v), bool)
            ]
    return cases


def value_sample(index: int):
    """The pool's value at ``index`` without NumPy (ints and floats only; others: None)."""
    scalars = [*INTS, *FLOATS]
    return scalars[index] if index < len(scalars) else None


# ---------------------------------------------------------------------------- the worker


def worker(path: str) -> None:
    cases = json.loads(Path(path).read_text())
    targets = Targets()
    pool = value_pool(2)
    out = sys.stdout
    for i, case in enumerate(cases):
        out.write(f"BEGIN {i}\n")
        out.flush()
        result = run_python_case(case, pool) if "kind" in case else run_case(targets, case, pool)
        out.write(f"END {i} {result}\n")
        out.flush()


# ---------------------------------------------------------------------------- the parent side


def core_cases(rng: random.Random, random_cases: int) -> list[dict]:
    """Every one-argument replacement of every call, and ``random_cases`` with every argument random."""
    import kardinal_core  # noqa: F401 - the caller skipped when missing

    targets = Targets()
    pool_size = len(value_pool(2))
    cases = []
    for target, method in targets.calls():
        core = targets.core
        func = getattr(core, target) if target else getattr(core, method)
        func = getattr(func, method) if target and method != "__init__" else (func.__init__ if target else func)
        n = len(_signature(func))
        for position in range(n):
            cases += [{"target": target, "method": method, "args": {str(position): v}} for v in range(pool_size)]
        for _ in range(random_cases):
            chosen = rng.sample(range(n), rng.randint(0, n)) if n else []
            cases.append(
                {"target": target, "method": method, "args": {str(p): rng.randrange(pool_size) for p in chosen}}
            )
    return cases


def run_cases(cases: list[dict], tmp_path: Path) -> tuple[list[str], dict[str, int]]:
    """Run ``cases`` in worker subprocesses; the findings (bad outcomes, signals, hangs) and counts."""
    findings: list[str] = []
    counts = {"ok": 0, "refused": 0, "cases": 0, "workers": 0}
    start = 0
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    while start < len(cases):
        batch = cases[start:]
        path = tmp_path / f"cases-{start}.json"
        path.write_text(json.dumps(batch))
        counts["workers"] += 1
        try:
            proc = subprocess.run(
                [sys.executable, str(HERE), str(path)], capture_output=True, text=True, timeout=CHUNK_SECONDS, env=env
            )
            stdout, code = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            code = "timeout"
        begun, ended = None, -1
        for line in stdout.splitlines():
            word, _, rest = line.partition(" ")
            if word == "BEGIN":
                begun = int(rest)
            elif word == "END":
                i, _, result = rest.partition(" ")
                ended = int(i)
                counts["cases"] += 1
                kind = result.split(" ", 1)[0].lower()  # ok, refused or bad
                counts[kind] = counts.get(kind, 0) + 1
                if kind == "bad":
                    findings.append(f"{batch[ended]}: {result}")
        if code == 0 and ended == len(batch) - 1:
            break
        culprit = begun if begun is not None and begun > ended else ended + 1
        if code == "timeout" and culprit == ended + 1 and begun is None:
            findings.append(f"worker hung before its first case: {stdout[-300:]}")
            break
        if culprit >= len(batch):  # died after the last case ended (at exit)
            findings.append(f"the worker ended with {code} after its last case")
            break
        what = f"a hang (over {CHUNK_SECONDS} s)" if code == "timeout" else f"exit {code}"
        findings.append(f"{batch[culprit]}: {what}")
        start += culprit + 1
    return findings, counts


def _core_or_skip():
    sys.path.insert(0, str(HERE.parent))
    from helpers import kardinal_core_or_skip

    return kardinal_core_or_skip()


def test_fuzz_core_default_budget(tmp_path):
    _core_or_skip()
    rng = random.Random(53)
    cases = core_cases(rng, random_cases=3)
    pool_size = len(value_pool(2))
    cases = rng.sample(cases, min(DEFAULT_CASES, len(cases))) + rng.sample(python_cases(pool_size), 150)
    findings, counts = run_cases(cases, tmp_path)
    assert not findings, "\n".join(findings[:20])
    assert counts["cases"] == len(cases) and counts["refused"] > 0 and counts["ok"] > 0


@pytest.mark.slow
def test_fuzz_core_every_argument(tmp_path):
    _core_or_skip()
    rng = random.Random(530)
    pool_size = len(value_pool(2))
    cases = core_cases(rng, random_cases=SLOW_RANDOM // 60) + python_cases(pool_size)
    findings, counts = run_cases(cases, tmp_path)
    print(f"fuzz: {counts}")
    assert not findings, "\n".join(findings[:40])
    assert counts["cases"] == len(cases)


STRESS = r"""
import sys, threading, time
import numpy as np
import kardinal_core
from kardinal_env.koenig import Game, Rules
from kardinal_env.koenig import compiled as kc
from kardinal_env.kardinal import compiled as kcomp

which = sys.argv[1]
n = 16
if which == "koenig":
    rules = Rules(players=4)
    batch = kardinal_core.KoenigBatch(kc.core_board(rules.compiled), 4, "one", n)
    batch.next_seed[:] = np.arange(1, n + 1)
else:
    batch = kardinal_core.KardinalBatch(kardinal_core.KardinalGame(3, window=9), n)
batch.reset()
actions = np.zeros(n, dtype=np.int64)
stop = False
def writer():
    rng = np.random.default_rng(0)
    bad = np.array([-1, 2**62, 10**6, 2**31, -2**63], dtype=np.int64)
    while not stop:
        actions[:] = rng.choice(bad, n)
writer_thread = threading.Thread(target=writer)
writer_thread.start()
steps = refused = 0
end = time.time() + float(sys.argv[2])
try:
    while time.time() < end:
        ids, offsets = batch.all_legal_action_ids()
        for i in range(n):  # legal ids; the writer overwrites them with illegal ones meanwhile
            actions[i] = ids[offsets[i]]
        bad = batch.step(actions)
        steps += bad < 0
        refused += bad >= 0
finally:
    stop = True
    writer_thread.join()
# every move the batch played was a checked legal id: replay each game's moves with the checking engine
for i in range(n):
    if which == "koenig":
        game = Game(rules, seed=int(batch.seed(i)))
        for m in batch.history_ids(i):
            game.apply_action(int(m))
    else:
        game = kardinal_core.KardinalGame(3, window=9)
        for code in batch.history_codes(i):
            game.play_code(code)
print("steps", steps, "refused", refused)
"""


@pytest.mark.parametrize("which", ["koenig", "kardinal"])
def test_shared_action_buffer_written_by_another_thread(which, tmp_path):
    """A writer thread scribbles illegal ids into the array ``step`` was given: the core steps its own
    copy, so it never crashes and plays only ids it checked (each game's history replays through the
    checking engine)."""
    _core_or_skip()
    proc = subprocess.run([sys.executable, "-c", STRESS, which, "1.5"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-2000:]}"
    steps = int(proc.stdout.split()[1])
    assert steps > 0, proc.stdout


if __name__ == "__main__":
    worker(sys.argv[1])
