"""Tournaments between agents: ``tournament`` (:func:`evaluate`, ``kardinal-evaluate``), ``distributed``
(the games as Ray tasks)."""


def main(argv=None) -> int:
    """``kardinal-evaluate`` (see :mod:`agents.evaluation.tournament`)."""
    from agents.evaluation.tournament import main as _main

    return _main(argv)
