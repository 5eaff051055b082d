"""A real two-node Ray cluster on this machine: RLlib league training and distributed evaluation.

The module fixture starts two Ray nodes with ``ray start --block`` (a head and a second node that
joins it by address), one CPU each, each with its own temp dir, ports and process group, and a
random cluster auth token that only this test's processes know. Ray resolves ``127.0.0.1`` to the
machine's address for the nodes' own services and listens on every interface, so the module runs
only in a network namespace that has nothing but loopback (``scripts/test_cluster.sh`` makes one
with ``unshare --net``; elsewhere the fixture fails with that advice): every address Ray can find is
then 127.0.0.1. Teardown stops exactly those two nodes: SIGTERM to
each ``ray start`` process group, then SIGKILL to whatever is left of it and to any process of ours
whose command line names the node's temp dir; it never runs ``ray stop`` (that would stop every Ray
on the machine). It runs when a test fails too.

* ``scripts/train_rllib.py --address`` with two env runners: Ray's state API shows env-runner actors
  on both nodes (and the progress lines agree); the checkpoint plays as ``rllib:PATH`` in the
  evaluator (on the cluster and locally, the same games); ``--resume`` keeps the league's frozen
  snapshot (same weights) and grows it.
* ``kardinal-evaluate --address`` (the back-end ``RayTasks(address)``) on both games: per-game results
  identical to the local run, with games played on both nodes.

Marked ``cluster`` (and ``integration``: it needs ray[default,rllib] and torch); skipped without ray
or without ray[default]'s dashboard dependencies (the state API).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from helpers import train_rllib_args

ROOT = Path(__file__).resolve().parent.parent
W = 7  # observation/action window of the tiny RLlib runs

pytestmark = [pytest.mark.cluster, pytest.mark.integration]


_GIVEN_PORTS: set[int] = set()


def _free_port() -> int:
    """A free port, never one handed out before in this run (the kernel may give a just-closed port
    again, and two Ray components on one port fail to start: "trying to use a port number ... that is
    used by other components")."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _GIVEN_PORTS:
            _GIVEN_PORTS.add(port)
            return port


class RayNode:
    """One ``ray start --block`` node in its own process group, temp dir and ports."""

    def __init__(self, root: Path, name: str, env: dict, head_address: str | None = None, worker_ports=(0, 0)):
        self.name = name
        self.temp_dir = root / name
        self.temp_dir.mkdir(parents=True)
        self.log = root / f"{name}.log"
        ray_cli = Path(sys.executable).with_name("ray")
        cmd = [
            str(ray_cli),
            "start",
            "--block",
            "--node-ip-address=127.0.0.1",
            "--num-cpus=1",
            f"--temp-dir={self.temp_dir}",
            f"--object-store-memory={96 * 1024**2}",
            "--disable-usage-stats",
            f"--min-worker-port={worker_ports[0]}",
            f"--max-worker-port={worker_ports[1]}",
        ]
        # Every node of a host needs its own ports: the defaults (e.g. the dashboard agent's 52365) collide.
        for option in (
            "node-manager-port",
            "object-manager-port",
            "dashboard-agent-listen-port",
            "dashboard-agent-grpc-port",
            "runtime-env-agent-port",
            "metrics-export-port",
        ):
            cmd.append(f"--{option}={_free_port()}")
        if head_address is None:
            self.port = _free_port()
            self.dashboard_port = _free_port()
            cmd += [
                "--head",
                f"--port={self.port}",
                "--dashboard-host=127.0.0.1",
                f"--dashboard-port={self.dashboard_port}",
                f"--ray-client-server-port={_free_port()}",
            ]
        else:
            cmd.append(f"--address={head_address}")
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def wait_started(self, timeout: float = 180) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if "Ray runtime started" in self.log.read_text(errors="replace"):
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"ray start ({self.name}) exited with {self.proc.returncode}:\n{self.tail()}")
            time.sleep(0.5)
        raise TimeoutError(f"ray start ({self.name}) did not start in {timeout} s:\n{self.tail()}")

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def pids(self) -> list[int]:
        """Our processes whose command line names this node's temp dir (every Ray process of the node does)."""
        mark = str(self.temp_dir).encode()
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if entry.stat().st_uid == os.getuid() and mark in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    def stop(self, grace: float = 20) -> list[int]:
        """Stop this node only; returns the pids that had to be killed after the group was gone."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(wait)
            except subprocess.TimeoutExpired:
                pass
        stragglers = self.pids()
        for pid in stragglers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return stragglers


def _non_loopback_interfaces() -> list[str]:
    """Network interfaces of this process's network namespace other than the loopback one."""
    return [name for _index, name in socket.if_nameindex() if name != "lo"]


@pytest.fixture(scope="module")
def ray_cluster():
    # Ray 2.60 rewrites 127.0.0.1 to the machine's own address and listens on every interface; the
    # servers of this project bind 127.0.0.1 only, so the cluster runs in a network namespace that
    # has nothing but loopback (scripts/test_cluster.sh: unshare --net). Refuse to start elsewhere.
    others = _non_loopback_interfaces()
    if others:
        pytest.fail(
            f"the cluster tests start Ray, which listens on every interface ({', '.join(others)} here): run them "
            "in a loopback-only network namespace with `bash scripts/test_cluster.sh` (what scripts/test.sh does)"
        )
    pytest.importorskip("ray.rllib")
    # Ray's state API is served by the full dashboard, which needs ray[default]'s packages.
    missing = [m for m in ("aiohttp", "aiohttp_cors", "opencensus", "prometheus_client") if not find_spec(m)]
    if missing:
        pytest.skip(f"Ray's state API needs ray[default]; missing: {', '.join(missing)}")
    if not Path(sys.executable).with_name("ray").exists():
        pytest.skip("the ray command is not installed beside this Python")
    # A short root: Ray's Unix sockets live under the temp dir (paths are limited to ~107 bytes).
    root = Path(tempfile.mkdtemp(prefix="kray", dir="/tmp"))
    token = secrets.token_hex(32)
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": token,
        "RAY_USAGE_STATS_ENABLED": "0",
        # SIGTERM drains a node for 30 s by default (for Serve); nothing here needs draining.
        "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    }
    base = 20000 + secrets.randbelow(20000)  # worker ports: disjoint ranges per node
    # ... which _free_port must never hand to another component: the kernel's ephemeral ports
    # (32768-60999 on Linux) overlap this range, and Ray refuses a node whose node manager port lies
    # inside its worker ports ("worker_ports is trying to use a port number ... used by other components").
    _GIVEN_PORTS.update(range(base, base + 200))
    nodes: list[RayNode] = []
    try:
        head = RayNode(root, "head", env, worker_ports=(base, base + 99))
        nodes.append(head)
        head.wait_started()
        address = f"127.0.0.1:{head.port}"
        second = RayNode(root, "node2", env, head_address=address, worker_ports=(base + 100, base + 199))
        nodes.append(second)
        second.wait_started()
        cluster = {"address": address, "dashboard": f"http://127.0.0.1:{head.dashboard_port}", "env": env}
        alive: list = []
        end = time.monotonic() + 120
        while time.monotonic() < end:
            try:
                alive = [n["node_id"] for n in _state(cluster, "list_nodes") if n["state"] == "ALIVE"]
            except AssertionError:  # the dashboard is still starting
                alive = []
            if len(alive) == 2:
                break
            time.sleep(2)
        assert len(alive) == 2, f"expected 2 alive nodes, got {alive}\n{head.tail()}\n{second.tail()}"
        yield {**cluster, "nodes": sorted(alive), "root": root}
    finally:
        for node in reversed(nodes):
            node.stop()
        left = [pid for node in nodes for pid in node.pids()]
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"processes of the test's Ray nodes still running: {left}"


# Every Ray client of these tests is a subprocess with the cluster's environment (its auth token):
# ray caches its auth settings at import, and this pytest process may have imported ray already.
_STATE_QUERY = """
import json, sys
from ray.util import state
rows = getattr(state, sys.argv[2])(address=sys.argv[1], limit=10000, raise_on_missing_output=False)
print(json.dumps([{k: getattr(r, k, None) for k in ("node_id", "state", "class_name", "actor_id")} for r in rows]))
"""


def _state(cluster: dict, query: str) -> list[dict]:
    """Rows of Ray's state API (``ray.util.state.<query>``) from the cluster's dashboard."""
    proc = _run([sys.executable, "-c", _STATE_QUERY, cluster["dashboard"], query], cluster, timeout=120)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _run(cmd: list[str], cluster: dict, timeout: float = 420) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=ROOT, env=cluster["env"], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    )
    return proc


def _train(cluster: dict, out: Path, *extra: str) -> list[dict]:
    sizes = dict(players=2, window=W, iterations=1, train_batch_size=128, minibatch_size=64, num_epochs=1)
    flags = dict(channels=8, blocks=1, win_rate_threshold=-1, min_episodes=0)  # -1: a snapshot every iteration
    args = train_rllib_args(address=cluster["address"], num_env_runners=2, **sizes, **flags, out=out)
    cmd = [sys.executable, "scripts/train_rllib.py", *args, *extra]
    _run(cmd, cluster)
    return [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]


def _same_games(a: dict, b: dict) -> None:
    """Per-game results equal except the thinking times (compared as JSON, as results.json holds them)."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    assert len(a["games"]) == len(b["games"])
    for ga, gb in zip(a["games"], b["games"], strict=True):
        ga, gb = dict(ga), dict(gb)
        ga.pop("seconds")
        gb.pop("seconds")
        assert ga == gb


@pytest.mark.timeout(900)
def test_rllib_training_spreads_env_runners_over_both_nodes_and_league_survives_resume(ray_cluster, tmp_path):
    from agents.evaluation.tournament import Table, evaluate
    from agents.networks.rllib_agent import RLlibAgent

    out = tmp_path / "run"
    progress = _train(ray_cluster, out)
    last = progress[-1]
    assert last["env_steps"] >= 128 and last["league_size"] == 3  # main, random, main_v1
    # The run's own view: two env runners, one on each node.
    assert sorted(last["env_runner_nodes"]) == ray_cluster["nodes"]
    # Ray's state API (the GCS's record, the driver has exited): env-runner actors ran on both nodes.
    runners = [a for a in _state(ray_cluster, "list_actors") if "EnvRunner" in (a["class_name"] or "")]
    assert len(runners) >= 2, runners
    assert {a["node_id"] for a in runners} == set(ray_cluster["nodes"])

    checkpoint = out / "checkpoint"
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / "main").is_dir()
    assert (checkpoint / "learner_group" / "learner" / "rl_module" / "main_v1").is_dir()

    # The checkpoint plays as rllib:PATH: games as Ray tasks on the cluster, the same games locally.
    eval_dir = tmp_path / "eval"
    spec = f"rllib:{checkpoint}"
    _run(
        [
            sys.executable,
            "scripts/evaluate.py",
            "--agents",
            spec,
            "greedy",
            "--players",
            "2",
            "--games",
            "4",
            "--seed",
            "1",
            "--address",
            ray_cluster["address"],
            "--quiet",
            "--out",
            str(eval_dir),
        ],
        ray_cluster,
    )
    remote = json.loads((eval_dir / "results.json").read_text())
    assert sum(remote["ray"]["games_per_node"].values()) == 4
    assert set(remote["ray"]["games_per_node"]) <= set(ray_cluster["nodes"])
    local = evaluate([spec, "greedy"], Table.of("kardinal", 2), games=4, seed=1)
    _same_games(remote, local)
    assert all(g["num_moves"] > 0 and g["winners"] for g in remote["games"])

    # --resume: the frozen snapshot comes back with its weights, and the league grows from there.
    resumed_out = tmp_path / "resumed"
    resumed = _train(ray_cluster, resumed_out, "--resume", str(checkpoint))
    assert resumed[-1]["league_size"] == 4  # main, random, main_v1 (restored), main_v2 (new)
    assert sorted(resumed[-1]["env_runner_nodes"]) == ray_cluster["nodes"]
    resumed_ckpt = resumed_out / "checkpoint"
    old = RLlibAgent.from_checkpoint(checkpoint, module_id="main_v1").module.state_dict()
    new = RLlibAgent.from_checkpoint(resumed_ckpt, module_id="main_v1").module.state_dict()
    assert old.keys() == new.keys()
    assert all(np.array_equal(old[k].numpy(), new[k].numpy()) for k in old)
    assert (resumed_ckpt / "learner_group" / "learner" / "rl_module" / "main_v2").is_dir()


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("game", "players", "specs"),
    [("kardinal", 2, ["greedy", "random"]), ("kardinal_koenig", 3, ["greedy", "random"])],
)
def test_distributed_evaluation_gives_the_local_per_game_results(ray_cluster, tmp_path, game, players, specs):
    from agents.evaluation.tournament import Table, evaluate

    games = 2 * players
    out = tmp_path / "eval"
    cmd = [sys.executable, "scripts/evaluate.py", "--game", game, "--agents", *specs, "--players", str(players)]
    cmd += ["--games", str(games), "--seed", "7", "--address", ray_cluster["address"], "--quiet", "--out", str(out)]
    _run(cmd, ray_cluster)
    remote = json.loads((out / "results.json").read_text())
    local = evaluate(specs, Table.of(game, players), games=games, seed=7)
    _same_games(remote, local)
    for r, s in zip(remote["summary"], json.loads(json.dumps(local["summary"])), strict=True):
        assert {**r, "seconds_per_game": 0} == {**s, "seconds_per_game": 0}
    per_node = remote["ray"]["games_per_node"]
    assert sum(per_node.values()) == games
    assert set(per_node) == set(ray_cluster["nodes"])  # round-robin over the nodes: both played games
    assert remote["ray"]["tasks"] == min(games, 4)  # two per CPU of the cluster
