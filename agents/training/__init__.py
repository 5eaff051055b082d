"""Self-play training: ``config`` (:class:`TrainConfig`, presets), ``adapters`` (what the trainer needs
of a game), ``trainer`` (PPO: :func:`train`, :func:`main` = ``kardinal-train``)."""


def main(argv=None) -> int:
    """``kardinal-train`` (see :mod:`agents.training.trainer`)."""
    from agents.training.trainer import main as _main

    return _main(argv)
