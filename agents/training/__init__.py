"""Self-play training: ``config`` (options, presets), ``adapters`` (what the trainers need of a game),
``trainer`` (PPO), ``search_training``, ``run`` (:func:`train`, :func:`main` = ``kardinal-train``).
Importing this package does not import torch: :func:`train` and :func:`main` import ``run`` when called."""

from typing import Any


def train(config: Any = None, resume: str | None = None, **overrides: Any) -> str:
    """Train and return the final checkpoint's path (:func:`agents.training.run.train`)."""
    from agents.training.run import train as _train

    return _train(config, resume, **overrides)


def main(argv=None) -> int:
    """``kardinal-train`` (:func:`agents.training.run.main`)."""
    from agents.training.run import main as _main

    return _main(argv)
