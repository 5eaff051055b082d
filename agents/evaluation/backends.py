"""Where a tournament's games are played: one back-end class per execution mode, one small interface.

=========================================  ==============================================================
:class:`Serial` ``(torch_threads=None)``   every game in the calling process (agent objects allowed;
                                           the default)
:class:`ProcessPool` ``(workers, ...)``    the games spread over ``workers`` spawned processes
``RayTasks(address, workers, ...)``        Ray tasks (:class:`agents.evaluation.distributed.RayTasks`)
=========================================  ==============================================================

A back-end has ``name`` and ``workers`` (recorded in ``results["options"]``), ``in_process`` (whether agent objects can
be used) and ``run(setup, tasks, progress=None) -> (results, info)``: the per-game results in game order (the same on
every back-end, :mod:`agents.evaluation.worker`) and ``None`` or the back-end's report (``results[name]``);
``progress(done, total)`` after each game. The first failing game ends the run with one
:class:`agents.evaluation.worker.EvaluationError` (workers stopped; nothing hangs). ``torch_threads``: for network
agents (worker processes: 1 unless given; the serial back-end leaves the process as it is unless given).
"""

from __future__ import annotations

import pickle
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from agents.evaluation.worker import EvaluationError, GameTask, Setup, build_worker, init_process, play_in_process
from agents.networks.checkpoint import PlayerCountWarning
from kardinal_env.core.checks import is_int

__all__ = ["Backend", "Serial", "ProcessPool", "Progress", "Results", "check_positive"]

Progress = Callable[[int, int], None]
Results = tuple[list[dict], dict | None]


def check_positive(name: str, value: object, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if not is_int(value) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


class Backend(ABC):
    """Plays the games of a run (see the module docstring)."""

    name: str = "backend"
    in_process: bool = False

    def __init__(self, workers: int = 1, torch_threads: int | None = None):
        check_positive("workers", workers)
        check_positive("torch_threads", torch_threads, allow_none=True)
        self.workers, self.torch_threads = workers, torch_threads

    @abstractmethod
    def run(self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None) -> Results:
        """Play ``tasks``; return ``(results in game order, info or None)``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(workers={self.workers})"


class Serial(Backend):
    """Every game in the calling process, one after another."""

    name = "serial"
    in_process = True

    def __init__(self, torch_threads: int | None = None):
        super().__init__(1, torch_threads)

    def run(self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None) -> Results:
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
        super().__init__(workers, torch_threads)

    def run(self, setup: Setup, tasks: Sequence[GameTask], progress: Progress | None = None) -> Results:
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
