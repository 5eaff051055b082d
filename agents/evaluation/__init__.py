"""Tournaments between agents.

* :mod:`agents.evaluation.tournament` — :func:`~agents.evaluation.tournament.evaluate`, the
  :class:`~agents.evaluation.tournament.Table` of a run, statistics, outputs and the ``kardinal-evaluate``
  command line (:func:`main`);
* :mod:`agents.evaluation.backends` — where the games run: ``Serial``, ``ProcessPool``;
* :mod:`agents.evaluation.distributed` — ``RayTasks``, the games as Ray tasks;
* :mod:`agents.evaluation.worker` — the worker side every back-end uses: build the agents, play a game.
"""


def main(argv=None) -> int:
    """``kardinal-evaluate`` (see :mod:`agents.evaluation.tournament`)."""
    from agents.evaluation.tournament import main as _main

    return _main(argv)
