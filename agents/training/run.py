"""Entry points: :func:`train` (library), :func:`main` (``kardinal-train``), :func:`make_trainer` (the
trainer of ``algorithm``: ``ppo``, :class:`agents.training.trainer.Trainer`; ``search``,
:class:`agents.training.search_training.SearchTrainer`; either resumes the other's checkpoints)::

    from agents.training.run import train
    path = train({"total_steps": 40_000}, resume="runs/smoke/checkpoint.pt")
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys

from agents.networks.base import model_config
from agents.networks.checkpoint import CheckpointError, read_checkpoint
from agents.training.adapters import make_adapter
from agents.training.config import ConfigError, TrainConfig, build_parser, config_from_args, make_config
from agents.training.search_training import SearchTrainer
from agents.training.trainer import Trainer, TrainingError
from kardinal_env.core.cli import load_plugin_argv

__all__ = ["train", "main", "make_trainer", "load_resume"]


def _check_resume(config: TrainConfig, ckpt: dict, label: str) -> None:
    """``ConfigError`` unless ``config`` can continue ``ckpt``: the same game and network."""
    if ckpt["game"] != config.game:
        raise ConfigError(
            f"{label}: the checkpoint was trained on {ckpt['game']} ({ckpt.get('env')}); game {config.game} "
            "cannot resume it"
        )
    stored = ckpt["model_config"]
    given = model_config(make_adapter(config).build_net())
    if given != stored:
        options = config.network_options()
        names = ", ".join("network" if k == "kind" else k for k in stored if k in options)
        raise ConfigError(
            f"{label}: the network of the checkpoint is {stored}; its options ({names}) cannot change when "
            f"resuming (given {given})"
        )


def load_resume(path) -> dict:
    """The checked checkpoint to resume from (:class:`agents.networks.checkpoint.CheckpointError`)."""
    ckpt, _net = read_checkpoint(path)
    for key in ("config", "step", "iteration"):
        if key not in ckpt:
            raise CheckpointError(
                path, f"no {key!r} key: written by something else than agents.training.trainer, cannot resume"
            )
    return ckpt


def train(config: TrainConfig | dict | None = None, resume: str | None = None, **overrides) -> str:
    """Train (``config``: a TrainConfig or dict, ``overrides``; ``resume``: a checkpoint); the final checkpoint."""
    ckpt = load_resume(resume) if resume is not None else None
    layers = []
    if ckpt is not None:
        layers.append((f"checkpoint {resume!r}", ckpt["config"]))
    if isinstance(config, TrainConfig):
        if ckpt is not None:
            raise ConfigError("with resume=..., give the changes as a dict or keyword arguments, not a TrainConfig")
        layers.append(("TrainConfig", dataclasses.asdict(config)))
    elif config is not None:
        if not isinstance(config, dict):
            raise ConfigError(f"config must be a TrainConfig or a dict, got {type(config).__name__}")
        layers.append(("config dict", config))
    if overrides:
        layers.append(("keyword arguments", overrides))
    return make_trainer(make_config(*layers), ckpt, f"resume {resume!r}").run()


def make_trainer(config: TrainConfig, checkpoint: dict | None = None, label: str = "checkpoint") -> Trainer:
    """The trainer of ``config.algorithm``, continuing ``checkpoint`` (named ``label`` in errors) if given."""
    if checkpoint is not None:
        _check_resume(config, checkpoint, label)
    return (SearchTrainer if config.algorithm == "search" else Trainer)(config, checkpoint)


def main(argv=None) -> int:
    """``kardinal-train``: exit status 0, 2 for a bad option or checkpoint (one ``error:`` line), 130 on Ctrl-C."""
    load_plugin_argv(argv)  # --plugin: games of one's own modules, before the parser lists the games
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        ckpt = None
        if ns.resume:
            try:
                ckpt = load_resume(ns.resume)
            except CheckpointError as exc:
                raise ConfigError(exc.named(f"--resume {ns.resume}")) from None
        cfg = config_from_args(ns, ckpt["config"] if ckpt else None, f"checkpoint {ns.resume!r}")
        _check_packages(cfg)
        trainer = make_trainer(cfg, ckpt, f"--resume {ns.resume}")
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        path = trainer.run()
    except TrainingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted; the last checkpoint written is kept", file=sys.stderr)
        return 130
    print(f"checkpoint: {path}")
    return 0


def _check_packages(cfg: TrainConfig) -> None:
    wanted = {"tensorboard": ("track", cfg.track), "tqdm": ("progress", cfg.progress)}
    missing = [
        f"{package} ({key}=true; or set {key}=false)"
        for package, (key, on) in wanted.items()
        if on and importlib.util.find_spec(package) is None
    ]
    if missing:
        raise ConfigError("missing package(s): " + ", ".join(missing) + '; pip install "kardinal-env[train]"')
