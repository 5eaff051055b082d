"""Tournament games as Ray tasks: the back-end :class:`RayTasks` (``kardinal-evaluate --address``/``--ray``).

The games are cut into chunks of consecutive game numbers (two per cluster CPU), each one Ray task (``num_cpus=1``,
round-robin over the nodes with a soft node affinity) that builds the agents once and plays with
:class:`agents.evaluation.worker.Worker`.

``address``: ``"local"`` starts a private Ray (``ray.init(num_cpus=workers)``) and stops it afterwards; anything else
(``"auto"``, ``"HOST:PORT"``, ``"ray://..."``) joins that cluster and leaves it running; a process already connected to
Ray is used as it is.

Every node needs the same kardinal-env version; a game registered at run time is sent with the tasks (its entry must
name importable module-level code); checkpoint paths are opened on the task's node. A task first changes to the
caller's working directory if it exists there, so relative paths work on a shared file system laid out alike.

``run`` reports ``info = {"address", "nodes", "tasks", "games_per_node"}`` (``results["ray"]``). Needs ``ray``
(``pip install "kardinal-env[rllib]"``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any

from agents.evaluation.backends import Backend, Progress, Results, check_positive
from agents.evaluation.worker import EvaluationError, GameTask, Setup, build_worker
from agents.networks.checkpoint import PlayerCountWarning

__all__ = ["RayTasks", "chunk_games"]


def chunk_games(tasks: list, chunks: int) -> list[list]:
    """Cut ``tasks`` into at most ``chunks`` runs of consecutive tasks, as even as possible."""
    if chunks < 1:
        raise ValueError(f"chunks must be >= 1, got {chunks}")
    chunks = min(chunks, len(tasks))
    size, extra = divmod(len(tasks), chunks) if chunks else (0, 0)
    return [tasks[i * size + min(i, extra) : (i + 1) * size + min(i + 1, extra)] for i in range(chunks)]


def _play_chunk(setup: Setup, torch_threads: int | None, cwd: str | None, tasks: list[GameTask]) -> dict:
    """The Ray task: build the agents, play ``tasks``; the results and this node's id."""
    import ray

    warnings.filterwarnings("ignore", category=PlayerCountWarning)  # the caller has reported it once
    if cwd and os.path.isdir(cwd):
        os.chdir(cwd)
    worker = build_worker(setup, torch_threads, adopt=True)
    results = [worker.play_task(task) for task in tasks]
    return {"node": ray.get_runtime_context().get_node_id(), "results": results}


class RayTasks(Backend):
    """The games as Ray tasks (see the module docstring). ``workers``: CPUs of a ``"local"`` Ray;
    ``chunks``: how many Ray tasks (default: twice the cluster's CPUs, at most one per game)."""

    name = "ray"

    def __init__(self, address: str = "local", workers: int = 1, torch_threads: int | None = 1, chunks=None):
        if not isinstance(address, str) or not address:
            raise ValueError(f"address must be 'local', 'auto', 'HOST:PORT' or 'ray://HOST:PORT', got {address!r}")
        super().__init__(workers, torch_threads)
        check_positive("chunks", chunks, allow_none=True)
        self.address, self.chunks = address, chunks

    def __repr__(self) -> str:
        return f"RayTasks(address={self.address!r}, workers={self.workers})"

    def run(self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None) -> Results:
        portable = setup.portable()  # refuses agent objects
        try:
            import ray
        except ImportError as exc:  # pragma: no cover - ray is an optional dependency
            raise ValueError(f"address={self.address!r} needs ray: pip install 'kardinal-env[rllib]' ({exc})") from None

        started = not ray.is_initialized()  # then this call connects, and shuts the connection down
        if started and self.address == "local":
            ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False)
        elif started:
            ray.init(address=self.address, log_to_driver=False)
        try:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            alive = sorted(
                (n["NodeID"], int(n.get("Resources", {}).get("CPU", 0))) for n in ray.nodes() if n.get("Alive")
            )
            nodes = [node for node, _ in alive]
            # One slot per CPU, interleaved over the nodes: chunk i goes to slots[i % len(slots)] (soft, so a
            # chunk whose node is gone or full runs elsewhere).
            slots = [node for k in range(max((c for _, c in alive), default=0)) for node, c in alive if c > k]
            parts = chunk_games(list(tasks), self.chunks or max(1, 2 * len(slots)))
            remote = ray.remote(num_cpus=1, max_retries=0)(_play_chunk)
            cwd = os.getcwd()
            pending: dict[Any, int] = {}
            for i, part in enumerate(parts):
                options = {}
                if slots:
                    options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(slots[i % len(slots)], soft=True)
                ref = remote.options(**options).remote(portable, self.torch_threads or 1, cwd, part)
                pending[ref] = part[0].index
            results: list[dict] = []
            per_node: dict[str, int] = {}
            try:
                while pending:
                    [ref], _ = ray.wait(list(pending), num_returns=1)
                    first_game = pending.pop(ref)
                    try:
                        out = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        cause = exc.cause
                        if isinstance(cause, EvaluationError):
                            raise EvaluationError(str(cause)) from None
                        raise EvaluationError(f"games from {first_game}: {type(cause).__name__}: {cause}") from None
                    except ray.exceptions.RayError as exc:
                        raise EvaluationError(f"games from {first_game}: Ray failed: {exc}") from None
                    results.extend(out["results"])
                    per_node[out["node"]] = per_node.get(out["node"], 0) + len(out["results"])
                    if progress:
                        progress(len(results), len(tasks))
            finally:
                for ref in pending:
                    ray.cancel(ref, force=True)
        finally:
            if started:
                ray.shutdown()
        results.sort(key=lambda r: r["game"])
        info = {"address": self.address, "nodes": nodes, "tasks": len(parts), "games_per_node": per_node}
        return results, info
