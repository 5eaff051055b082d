"""PPO checkpoints: what they hold, how they are written, and the one check every loader runs.

A checkpoint (``runs/{run_name}/checkpoint.pt``, written by :mod:`agents.training.trainer`) is a dict of
tensors and plain Python values, so it loads with ``torch.load(path, weights_only=True)``:

==============  ======================================================================================
``model``       the network's ``state_dict``
``model_config`` Kardinal: ``{"channels", "blocks", "hidden"}`` (:class:`agents.networks.kardinal_net.KardinalNet`
                arguments); K&K: the network's ``config`` (``{"kind": "mlp", "obs_size",
                "num_actions", "hidden"}`` or ``{"kind": "graph", "hidden", "rounds"}``,
                :mod:`agents.networks.koenig_net`; the graph network is rebuilt from ``rules``)
``config``      the training config (:class:`agents.training.config.TrainConfig` as a dict)
``env``         ``"kardinal_v0"`` or ``"kardinal_koenig_v0"`` (Kardinal & König)
``layout``      the observation/action layout the network was trained on. Kardinal
                (:func:`current_layout`): env, observation channels (72: 17 spatial + 55 constant),
                action planes (17) and non-spatial actions (5), the encoder window (53). K&K
                (:func:`agents.training.adapters.koenig_layout`): env, observation length, number of actions
                (the board's move table), board name, network kind (``mlp`` / ``graph``)
``rules``       the rules of the training games (``Rules.to_dict()`` of the game's engine)
``step``, ``iteration``, ``revision`` (git HEAD), ``winrates``; for ``--resume``: ``optimizer``,
``pool`` (opponent snapshots) and ``rng`` (random states)
==============  ======================================================================================

:func:`read_checkpoint` is the check that ``agents.load_agent`` (``ppo:`` / ``puct:`` specs), the
evaluator (once, before any worker starts) and ``kardinal-train --resume`` run: it raises
:class:`CheckpointError` — ``PATH: not a kardinal-env checkpoint (what is wrong)`` — for a missing,
empty, truncated or otherwise unreadable file, a file that is not such a dict, one made for another
environment or layout, or weights that do not fit ``model_config``. Checkpoints written before the
layout was recorded (no ``layout`` key, ``env == "kardinal_v0"``) are accepted: their layout is the
current one (it has not changed since).

:func:`player_count_warning` names a mismatch between the players a checkpoint was trained for and
the game it is used in (the layout is the same for 2-4 players, so such a network plays, but it has
never seen that game).
"""

from __future__ import annotations

import os

__all__ = [
    "ENV_NAME",
    "KOENIG_ENV_NAME",
    "koenig_rules",
    "CheckpointError",
    "PlayerCountWarning",
    "current_layout",
    "read_checkpoint",
    "build_net",
    "trained_players",
    "player_count_warning",
]

ENV_NAME = "kardinal_v0"
KOENIG_ENV_NAME = "kardinal_koenig_v0"
ENCODER_WINDOW = 53  # the window training and PPOAgent encode observations with


class CheckpointError(ValueError):
    """A file that is not a usable kardinal-env PPO checkpoint; ``str()`` names the path and why."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: not a kardinal-env checkpoint ({reason})")

    def named(self, label: str) -> str:
        """The message with ``label`` (e.g. ``ppo:PATH`` or ``--resume PATH``) in place of the path."""
        return f"{label}: not a kardinal-env checkpoint ({self.reason})"


class PlayerCountWarning(UserWarning):
    """A checkpoint used in games with another number of players than it was trained for."""


def current_layout(window: int = ENCODER_WINDOW) -> dict:
    """The observation/action layout of this version (recorded in every new checkpoint)."""
    from agents.networks.kardinal_net import NON_SPATIAL, PLANES
    from kardinal_env.kardinal.observation import NUM_CHANNELS, SPATIAL_CHANNELS

    return {
        "env": ENV_NAME,
        "observation_channels": int(NUM_CHANNELS),
        "spatial_channels": int(SPATIAL_CHANNELS),
        "action_planes": int(PLANES),
        "non_spatial_actions": int(NON_SPATIAL),
        "window": int(window),
    }


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _load_failure(magic: bytes, size: int, exc: Exception) -> str:
    first = " ".join(str(exc).split()).split(". ")[0] or type(exc).__name__
    if len(first) > 160:
        first = first[:157] + "..."
    if magic.startswith(b"PK"):
        if "weights only" in str(exc).lower() or "weights_only" in str(exc):
            return f"holds objects other than tensors and plain values ({size} bytes; weights_only load: {first})"
        return f"truncated or damaged torch file ({size} bytes): {first}"
    return f"not a torch checkpoint file ({size} bytes, does not start like one): {first}"


def read_checkpoint(path, build: bool = True):
    """``(checkpoint dict, network in eval mode or None)`` of the checkpoint at ``path`` after checking
    it (see the module docstring); :class:`CheckpointError` otherwise. ``build=False`` skips building
    the network (the weights are then not checked)."""
    import torch

    path = str(path)
    if not os.path.exists(path):
        raise CheckpointError(path, "no such file")
    if os.path.isdir(path):
        raise CheckpointError(path, "a directory, not a file")
    size = os.path.getsize(path)
    if size == 0:
        raise CheckpointError(path, "empty file")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    try:
        ckpt = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:  # torch raises many types for damaged files; all mean "not readable"
        raise CheckpointError(path, _load_failure(magic, size, exc)) from None
    if not isinstance(ckpt, dict):
        raise CheckpointError(path, f"holds a {type(ckpt).__name__}, expected a dict with 'model' and 'model_config'")
    missing = [k for k in ("model", "model_config") if k not in ckpt]
    if missing:
        keys = ", ".join(repr(k) for k in list(ckpt)[:8]) or "none"
        raise CheckpointError(path, f"no {' or '.join(repr(k) for k in missing)} key (keys: {keys})")
    env = ckpt.get("env", ENV_NAME)
    if env == KOENIG_ENV_NAME:
        net = _read_koenig(ckpt, path, build)
        return ckpt, net
    if env != ENV_NAME:
        raise CheckpointError(path, f"made for env {env!r}; this version knows {ENV_NAME!r} and {KOENIG_ENV_NAME!r}")
    layout = ckpt.get("layout")
    if layout is not None:
        if not isinstance(layout, dict):
            raise CheckpointError(path, f"'layout' is a {type(layout).__name__}, expected a dict")
        diffs = [
            f"{k} {layout.get(k)!r} (checkpoint) vs {v!r} (this version)"
            for k, v in current_layout().items()
            if layout.get(k) != v
        ]
        if diffs:
            raise CheckpointError(path, "made for another observation/action layout: " + "; ".join(diffs))
    mc = ckpt["model_config"]
    if (
        not isinstance(mc, dict)
        or set(mc) != {"channels", "blocks", "hidden"}
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in mc.values())
    ):
        raise CheckpointError(
            path, f"'model_config' must be {{'channels', 'blocks', 'hidden'}} as integers, got {mc!r}"
        )
    if not isinstance(ckpt["model"], dict):
        raise CheckpointError(path, f"'model' is a {type(ckpt['model']).__name__}, expected a state_dict")
    config = ckpt.get("config", {})
    if not isinstance(config, dict):
        raise CheckpointError(path, f"'config' is a {type(config).__name__}, expected a dict")
    net = build_net(ckpt, path) if build else None
    return ckpt, net


def koenig_rules(ckpt: dict, path="checkpoint"):
    """The Kardinal & König rules of a K&K checkpoint (its ``rules`` dict)."""
    from kardinal_env.koenig import Rules

    data = ckpt.get("rules")
    if not isinstance(data, dict):
        raise CheckpointError(path, f"a {KOENIG_ENV_NAME} checkpoint needs a 'rules' dict, got {type(data).__name__}")
    try:
        return Rules.from_dict(data)
    except (TypeError, ValueError, KeyError) as exc:
        raise CheckpointError(path, f"'rules' do not build Kardinal & Koenig rules: {_short(exc)}") from None


def _read_koenig(ckpt: dict, path, build: bool):
    from agents.training.adapters import koenig_layout

    rules = koenig_rules(ckpt, path)
    mc = ckpt["model_config"]
    if not isinstance(mc, dict) or mc.get("kind") not in ("mlp", "graph"):
        raise CheckpointError(path, f"'model_config' must be a dict with kind 'mlp' or 'graph', got {mc!r}")
    layout = ckpt.get("layout")
    if not isinstance(layout, dict):
        raise CheckpointError(path, f"'layout' is a {type(layout).__name__}, expected a dict")
    diffs = [
        f"{k} {layout.get(k)!r} (checkpoint) vs {v!r} (this version)"
        for k, v in koenig_layout(rules, mc["kind"]).items()
        if layout.get(k) != v
    ]
    if diffs:
        raise CheckpointError(path, "made for another observation/action layout: " + "; ".join(diffs))
    if not isinstance(ckpt["model"], dict):
        raise CheckpointError(path, f"'model' is a {type(ckpt['model']).__name__}, expected a state_dict")
    if not isinstance(ckpt.get("config", {}), dict):
        raise CheckpointError(path, f"'config' is a {type(ckpt['config']).__name__}, expected a dict")
    return build_net(ckpt, path) if build else None


def build_net(ckpt: dict, path="checkpoint"):
    """The network of a (checked) checkpoint in eval mode; :class:`CheckpointError` if the weights
    do not fit its ``model_config``."""
    from agents.networks.kardinal_net import KardinalNet

    if ckpt.get("env") == KOENIG_ENV_NAME:
        from agents.training.adapters import net_from_koenig_config

        rules = koenig_rules(ckpt, path)
        return _load_weights(
            ckpt,
            path,
            lambda config: net_from_koenig_config(config, rules),
            (TypeError, ValueError, KeyError, RuntimeError),
        )
    return _load_weights(ckpt, path, lambda config: KardinalNet(**config), (TypeError, ValueError, RuntimeError))


def _load_weights(ckpt: dict, path, make, build_errors: tuple):
    """``make(model_config)`` with the checkpoint's weights loaded, in eval mode; a
    :class:`CheckpointError` naming ``path`` when the config builds no network (``build_errors``) or
    the weights do not fit it."""
    try:
        net = make(ckpt["model_config"])
    except build_errors as exc:
        raise CheckpointError(
            path, f"'model_config' {ckpt['model_config']!r} does not build a network: {_short(exc)}"
        ) from None
    try:
        net.load_state_dict(ckpt["model"])
    except (RuntimeError, TypeError, KeyError, AttributeError) as exc:
        raise CheckpointError(
            path, f"weights do not fit model_config {ckpt['model_config']!r}: {_short(exc)}"
        ) from None
    return net.eval()


def trained_players(ckpt: dict) -> int | None:
    """Players of the games a checkpoint was trained on (``None`` if it does not say)."""
    rules = ckpt.get("rules")
    if isinstance(rules, dict) and isinstance(rules.get("players"), int):
        return rules["players"]
    players = ckpt.get("config", {}).get("players") if isinstance(ckpt.get("config"), dict) else None
    return players if isinstance(players, int) and not isinstance(players, bool) else None


def player_count_warning(label: str, trained: int | None, players: int) -> str | None:
    """A warning naming both counts when a network trained for ``trained`` players plays a
    ``players``-player game; ``None`` when they agree or the checkpoint does not say."""
    if trained is None or trained == players:
        return None
    return (
        f"{label} was trained for {trained}-player games and is used in {players}-player games "
        "(same observation layout, so it plays, but it has never seen this game)"
    )
