"""Tournaments between agents: :mod:`~agents.evaluation.tournament` (``evaluate``, ``Table``, statistics,
outputs, the ``kardinal-evaluate`` command line), where the games run (:mod:`~agents.evaluation.backends`:
``Serial``, ``ProcessPool``; :mod:`~agents.evaluation.distributed`: ``RayTasks``) and the worker side
they share (:mod:`~agents.evaluation.worker`); ladders (``report``), training curves (``curves``)."""


def main(argv=None) -> int:
    """``kardinal-evaluate`` (see :mod:`agents.evaluation.tournament`)."""
    from agents.evaluation.tournament import main as _main

    return _main(argv)
