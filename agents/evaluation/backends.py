"""Where a tournament's games are played: one back-end class per execution mode, one small interface.

=========================================  ==============================================================
:class:`Serial` ``(torch_threads=None)``   every game in the calling process, one after another (agent
                                           objects allowed; the default)
:class:`ProcessPool` ``(workers, ...)``    the games spread over ``workers`` spawned processes
``RayTasks(address, workers, ...)``        the games as Ray tasks on a cluster or a private local Ray
                                           (:class:`agents.evaluation.distributed.RayTasks`)
=========================================  ==============================================================

A back-end has ``name`` (recorded in ``results["options"]["backend"]``), ``workers`` (how many games may
run at once; ``results["options"]["workers"]``), ``in_process`` (whether agent objects can be used:
only the serial back-end builds no agents elsewhere) and one method::

    run(setup, tasks, progress=None) -> (results, info)

``setup`` (:class:`agents.evaluation.worker.Setup`) and ``tasks`` (:class:`agents.evaluation.worker.GameTask`)
describe the games; ``progress(done, total)`` is called after each finished game. ``results`` are the
per-game result dicts in game order (every back-end plays a game with
:class:`agents.evaluation.worker.Worker`, so they are the same whatever the back-end, the thinking times
aside); ``info`` is ``None`` or a dict the back-end reports (Ray: nodes and games per node), stored as
``results[name]`` by :func:`agents.evaluation.tournament.evaluate`. The first failing game ends the run
with one :class:`agents.evaluation.worker.EvaluationError` naming it (workers are stopped; nothing hangs).

``torch_threads``: torch intra-op threads for network agents; worker processes use 1 unless given
(several processes with several threads each oversubscribe the cores); the serial back-end leaves
the calling process as it is unless given.
"""

from __future__ import annotations

import pickle
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from agents.evaluation.worker import EvaluationError, GameTask, Setup, build_worker, init_process, play_in_process
from agents.networks.checkpoint import PlayerCountWarning
from kardinal_env.core.checks import is_int

__all__ = ["Backend", "Serial", "ProcessPool", "Progress", "check_positive"]

Progress = Callable[[int, int], None]


def check_positive(name: str, value: object, allow_none: bool = False) -> None:
    """``ValueError`` naming ``name`` unless ``value`` is a positive integer (or ``None`` if allowed)."""
    if value is None and allow_none:
        return
    if not is_int(value) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


class Backend(ABC):
    """Plays the games of a run (see the module docstring)."""

    name: str = "backend"
    in_process: bool = False
    workers: int = 1

    @abstractmethod
    def run(
        self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None
    ) -> tuple[list[dict], dict | None]:
        """Play ``tasks``; return ``(results in game order, info or None)``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"


class Serial(Backend):
    """Every game in the calling process, one after another."""

    name = "serial"
    in_process = True

    def __init__(self, torch_threads: int | None = None):
        check_positive("torch_threads", torch_threads, allow_none=True)
        self.torch_threads = torch_threads
        self.workers = 1

    def run(
        self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None
    ) -> tuple[list[dict], dict | None]:
        results = []
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=PlayerCountWarning)  # the caller has reported it once
            worker = build_worker(setup, self.torch_threads)
            for task in tasks:
                results.append(worker.play_task(task))
                if progress:
                    progress(len(results), len(tasks))
        return results, None


class ProcessPool(Backend):
    """The games spread over ``workers`` spawned processes; each builds the agents once."""

    name = "processes"

    def __init__(self, workers: int = 2, torch_threads: int | None = 1):
        check_positive("workers", workers)
        check_positive("torch_threads", torch_threads, allow_none=True)
        self.workers = workers
        self.torch_threads = torch_threads

    def run(
        self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None
    ) -> tuple[list[dict], dict | None]:
        import multiprocessing as mp
        from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
        from concurrent.futures.process import BrokenProcessPool

        portable = setup.portable()
        try:
            pickle.dumps(portable)
        except Exception as exc:
            raise ValueError(
                f"game {setup.spec.name!r} cannot be sent to worker processes ({type(exc).__name__}: {exc}); "
                "its GameSpec must name module-level code, or use the serial back-end"
            ) from None
        results: list[dict] = []
        ex = ProcessPoolExecutor(
            self.workers,
            mp_context=mp.get_context("spawn"),
            initializer=init_process,
            initargs=(portable, self.torch_threads or 1),
        )
        try:
            pending = {ex.submit(play_in_process, t) for t in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for fut in sorted(done, key=lambda f: f.exception() is None):  # failures first
                    failure = fut.exception()
                    if isinstance(failure, BrokenProcessPool):
                        raise EvaluationError(f"a worker process died ({failure}); no result for the remaining games")
                    if isinstance(failure, EvaluationError):
                        raise failure
                    if failure is not None:
                        raise EvaluationError(f"{type(failure).__name__}: {failure}")
                    results.append(fut.result())
                    if progress:
                        progress(len(results), len(tasks))
        finally:
            ex.shutdown(wait=True, cancel_futures=True)
        results.sort(key=lambda r: r["game"])
        return results, None
