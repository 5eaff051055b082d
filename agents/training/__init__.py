"""Self-play training: ``config`` (:class:`TrainConfig`, presets), ``adapters`` (what the trainers need
of a game), ``trainer`` (self-play PPO), ``search_training`` (search-based self-play), ``run`` (the
entry points: :func:`train`, :func:`main` = ``kardinal-train``, the trainer of a config's ``algorithm``).

``from agents.training import train`` is :func:`agents.training.run.train` (imported on first use:
importing this package does not import torch)."""

from typing import Any


def train(config: Any = None, resume: str | None = None, **overrides: Any) -> str:
    """Train and return the final checkpoint's path (:func:`agents.training.run.train`)."""
    from agents.training.run import train as _train

    return _train(config, resume, **overrides)


def main(argv=None) -> int:
    """``kardinal-train`` (:func:`agents.training.run.main`)."""
    from agents.training.run import main as _main

    return _main(argv)
