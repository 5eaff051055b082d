"""The model zoo: trained networks shipped inside the package, each with a model card.

``zoo:NAME`` plays the network's own policy (argmax, no search, as ``ppo:PATH`` of the packaged checkpoint:
``load_agent("zoo:kardinal-2p")``); ``puct:N:zoo:NAME`` searches with it. Every tool that takes an agent spec takes
these on a fresh install (``kardinal-play --agents zoo:kardinal-2p``, ``kardinal-evaluate``, the web page, the cluster
tournament).

**Files.** A model ``NAME`` is ``agents/zoo/NAME.pt`` (a checkpoint of :mod:`agents.networks.checkpoint` without the
training-only parts — optimizer, opponent pool, random states — that :func:`export` removes) and its model card
``agents/zoo/NAME.md`` (game, players, training command and preset, steps and CPU time, results with Wilson intervals
and the commands that measured them, the code revision). :func:`names` lists what is installed; :func:`model_path` /
:func:`card_path` find the files (no torch import). ``tests/test_zoo.py`` loads every model through the checkpoint
checks (so a model whose observation/action layout no longer matches the code fails there), plays a game with it, and
checks that its card states what its checkpoint records.

Adding a model: ``python scripts/zoo.py add NAME runs/RUN/checkpoint.pt`` writes the stripped checkpoint (``--force``
replaces one); write its card next to it (copy one of the cards).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["ZOO_DIR", "ZooError", "names", "model_path", "card_path", "export", "PREFIX", "KEPT_KEYS"]

#: The folder that holds the models (package data).
ZOO_DIR = Path(__file__).resolve().parent
#: A spec path of this form names a zoo model: ``zoo:NAME``.
PREFIX = "zoo:"
#: What an exported checkpoint keeps (everything a player needs; :func:`export`).
KEPT_KEYS = (
    "format",
    "game",
    "env",
    "model",
    "model_config",
    "layout",
    "rules",
    "config",
    "step",
    "iteration",
    "revision",
    "winrates",
    "cpu_seconds",
    "averaged_from",
    "advised_from",
    "search_defaults",
)


class ZooError(ValueError):
    """A zoo model that does not exist, or a bad name for a new one."""


def names() -> list[str]:
    """The models of the zoo, sorted."""
    return sorted(p.stem for p in ZOO_DIR.glob("*.pt"))


def model_path(name: str) -> str:
    """The checkpoint file of model ``name`` (``zoo:`` prefix allowed); :class:`ZooError` listing the models if none."""
    if name.startswith(PREFIX):
        name = name[len(PREFIX) :]
    path = ZOO_DIR / f"{name}.pt"
    if not _valid_name(name) or not path.is_file():
        raise ZooError(f"no zoo model {name!r}; the zoo has: {', '.join(names()) or 'no models'}")
    return str(path)


def card_path(name: str) -> str:
    """The model card of model ``name``."""
    return str(Path(model_path(name)).with_suffix(".md"))


def _valid_name(name: str) -> bool:
    return bool(name) and all(c.isalnum() or c in "-_" for c in name) and not name.startswith("-")


def export(
    checkpoint: str | os.PathLike, name: str, folder: str | os.PathLike | None = None, force: bool = False
) -> str:
    """Write the checkpoint at ``checkpoint`` as zoo model ``name`` (into ``folder``, default the zoo): checked by
    :func:`agents.networks.checkpoint.read_checkpoint`, only :data:`KEPT_KEYS` kept. Returns the new file's path;
    :class:`ZooError` for a bad name or an existing model without ``force``."""
    from agents.networks.checkpoint import read_checkpoint, write_checkpoint

    if not _valid_name(name):
        raise ZooError(f"bad zoo model name {name!r}: use letters, digits, '-' and '_'")
    dest = Path(folder) if folder is not None else ZOO_DIR
    path = dest / f"{name}.pt"
    if path.exists() and not force:
        raise ZooError(f"zoo model {name!r} exists ({path}); give force=True (--force) to replace it")
    ckpt, _net = read_checkpoint(checkpoint)
    kept: dict[str, Any] = {k: ckpt[k] for k in KEPT_KEYS if k in ckpt}
    kept["model"] = {k: v.detach().clone().contiguous() for k, v in kept["model"].items()}
    if isinstance(kept.get("config"), dict) and "runs_dir" in kept["config"]:
        kept["config"] = {**kept["config"], "runs_dir": "runs"}  # where it was trained is no one else's path
    return write_checkpoint(kept, path)


def main(argv: list[str] | None = None) -> int:
    """``python scripts/zoo.py``: ``list``, ``show`` and ``add`` (:func:`export`) models; ``average``, ``advise`` and
    ``search-defaults`` write a checkpoint (the functions of :mod:`agents.networks.checkpoint`); each one's ``--help``
    gives its arguments. Exit status 2 with one ``error:`` line for a bad name or checkpoint."""
    import argparse

    parser = argparse.ArgumentParser(prog="zoo", description="The model zoo shipped with kardinal-env.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the models and their cards' first lines")
    show = sub.add_parser("show", help="print a model's card")
    show.add_argument("name")
    add = sub.add_parser("add", help="export a training checkpoint into the zoo (optimizer etc. removed)")
    add.add_argument("name")
    add.add_argument("checkpoint")
    add.add_argument("--force", action="store_true", help="replace an existing model")
    average = sub.add_parser(
        "average",
        help="write the mean of the weights of checkpoints of one network (stochastic weight averaging)",
    )
    average.add_argument("out", help="the averaged checkpoint to write (then: zoo.py add NAME OUT)")
    average.add_argument("checkpoints", nargs="+", help="two or more checkpoints of the same network")
    advise = sub.add_parser(
        "advise",
        help="write a checkpoint's network as the advised network of the same sizes (Kardinal: the greedy "
        "agent's cardinal advice added to its logits), the same weights, no training",
    )
    advise.add_argument("out", help="the advised checkpoint to write (then: zoo.py add NAME OUT)")
    advise.add_argument("checkpoint", help="a checkpoint of a plain (cnn or graph) network")
    advise.add_argument("--scale", type=float, required=True, help="the advice's weight on the logits")
    defaults = sub.add_parser(
        "search-defaults",
        help="write a checkpoint with the arguments puct:N uses with its network unless told otherwise",
    )
    defaults.add_argument("out", help="the checkpoint to write (then: zoo.py add NAME OUT)")
    defaults.add_argument("checkpoint")
    defaults.add_argument("--batch-size", type=int, help="descents evaluated together (1: one at a time)")
    defaults.add_argument("--c-puct", type=float, help="the exploration constant")
    defaults.add_argument("--score-shaping", type=float, help="the projected score margin's weight in leaf values")
    defaults.add_argument("--rollouts", type=int, help="playouts from every new leaf (0: the network's value only)")
    defaults.add_argument("--rollout-weight", type=float, help="the playouts' weight in a leaf's value, in [0, 1]")
    ns = parser.parse_args(argv)
    from agents.networks.checkpoint import CheckpointError

    try:
        if ns.command == "list":
            for name in names():
                size = os.path.getsize(model_path(name)) / 1e6
                title = Path(card_path(name)).read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
                print(f"zoo:{name:<22} {size:5.2f} MB  {title}")
        elif ns.command == "show":
            print(Path(card_path(ns.name)).read_text(encoding="utf-8"), end="")
        elif ns.command == "average":
            from agents.networks.checkpoint import average_checkpoints, write_checkpoint

            write_checkpoint(average_checkpoints(ns.checkpoints), ns.out)
            print(f"{ns.out}: the mean of {len(ns.checkpoints)} checkpoints")
        elif ns.command == "advise":
            from agents.networks.checkpoint import advise_checkpoint, write_checkpoint

            write_checkpoint(advise_checkpoint(ns.checkpoint, ns.scale), ns.out)
            print(f"{ns.out}: the network of {ns.checkpoint} with its advice at scale {ns.scale:g}")
        elif ns.command == "search-defaults":
            from agents.networks.checkpoint import with_search_defaults, write_checkpoint

            given = {
                "batch_size": ns.batch_size,
                "c_puct": ns.c_puct,
                "score_shaping": ns.score_shaping,
                "rollouts": ns.rollouts,
                "rollout_weight": ns.rollout_weight,
            }
            ckpt = with_search_defaults(ns.checkpoint, **{k: v for k, v in given.items() if v is not None})
            write_checkpoint(ckpt, ns.out)
            print(f"{ns.out}: the network of {ns.checkpoint}, search defaults {ckpt.get('search_defaults', {})}")
        else:
            path = export(ns.checkpoint, ns.name, force=ns.force)
            print(f"{path} ({os.path.getsize(path) / 1e6:.2f} MB); write its card: {Path(path).with_suffix('.md')}")
    except (ZooError, CheckpointError, FileNotFoundError) as exc:
        print(f"error: {exc}")
        return 2
    return 0
