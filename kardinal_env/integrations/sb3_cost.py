"""What sb3-contrib ``MaskablePPO`` costs on kardinal_v0 per window and features extractor: the code of
``scripts/sb3_cost.py`` (the table and what it shows: docs/libraries/sb3.md).

:func:`cost_rows` measures each ``(window, extractor)`` in a fresh process (``python -m
kardinal_env.integrations.sb3_cost``, so peaks do not mix): :func:`measure` builds the 2-player env against random moves
and ``MaskablePPO``, and trains ``steps`` learner steps. A row: observation and mask bytes per step, parameter count
and, when trained, the wall time of construction + training and the peak resident memory (``ru_maxrss``) next to that
before the model was built. Extractors (:data:`EXTRACTORS`): ``mlp`` (SB3's flatten + MLP), ``crop``
(``KardinalCropCNN``), ``cnn`` (``KardinalCNN``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

__all__ = ["EXTRACTORS", "measure", "cost_rows", "cost_table"]

EXTRACTORS = ("mlp", "crop", "cnn")


def _rss_kib() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(
    window: int, extractor: str, steps: int, n_steps: int, batch_size: int, n_epochs: int, train: bool = True
) -> dict:
    """One row, measured in this process (a fresh one for a clean peak)."""
    import resource

    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import KardinalCNN, KardinalCropCNN, make_self_play_env

    if extractor not in EXTRACTORS:
        raise ValueError(f"unknown extractor {extractor!r}; choose from {list(EXTRACTORS)}")
    extractors = {"mlp": {}, "crop": {"features_extractor_class": KardinalCropCNN}}
    policy_kwargs = extractors.get(extractor, {"features_extractor_class": KardinalCNN})
    env = make_self_play_env(players=2, window=window, pool=("random",))
    obs, _ = env.reset(seed=0)
    mask = env.aec.observe(env.aec.agent_selection)["action_mask"]
    rss_before = _rss_kib()
    start = time.perf_counter()
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=n_epochs,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs,
    )
    if train:
        model.learn(total_timesteps=steps)
    seconds = time.perf_counter() - start
    row = {
        "window": window,
        "extractor": extractor,
        "actions": int(mask.size),
        "obs_bytes": int(np.asarray(obs).nbytes),
        "mask_bytes": int(np.asarray(mask).nbytes),
        # sb3-contrib stores the masks as float32 and the observations in their own dtype (uint8).
        "buffer_bytes_per_step": int(np.asarray(obs).nbytes + 4 * mask.size),
        "params": int(sum(p.numel() for p in model.policy.parameters())),
        "extractor_params": int(sum(p.numel() for p in model.policy.features_extractor.parameters())),
        "torch_threads": torch.get_num_threads(),
    }
    if train:
        row.update(
            steps=int(model.num_timesteps),
            seconds=round(seconds, 1),
            rss_before_model_mib=round(rss_before / 1024),
            peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        )
    return row


def cost_rows(
    windows: Sequence[int],
    extractors: Sequence[str],
    torch_threads: int = 1,
    on_row: Callable[[dict], None] | None = None,
    **settings: int | bool,
) -> list[dict]:
    """:func:`measure` each ``(window, extractor)`` in a fresh process with ``settings``; ``on_row`` gets each row as it
    comes; ``RuntimeError`` with the process's error output when one fails."""
    rows = []
    for window in windows:
        for extractor in extractors:
            arguments = json.dumps([torch_threads, window, extractor, settings])
            cmd = [sys.executable, "-m", "kardinal_env.integrations.sb3_cost", arguments]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError(
                    f"{proc.stderr}\nwindow {window}, extractor {extractor} failed (exit {proc.returncode})"
                )
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            if on_row is not None:
                on_row(rows[-1])
    return rows


def cost_table(rows: list[dict], trained: bool = True) -> str:
    """The rows as the ``|``-separated table the docs page copies."""
    head = ["window", "extractor", "obs KB", "mask KB", "buffer KB/step", "params"]
    if trained:
        head += ["steps", "seconds", "RSS before model MiB", "peak RSS MiB"]
    lines = [" | ".join(head)]
    for r in rows:
        cells = [r["window"], r["extractor"], f"{r['obs_bytes'] / 1000:.1f}", f"{r['mask_bytes'] / 1000:.1f}"]
        cells += [f"{r['buffer_bytes_per_step'] / 1000:.0f}", f"{r['params']:,}"]
        if trained:
            cells += [r["steps"], r["seconds"], r["rss_before_model_mib"], r["peak_rss_mib"]]
        lines.append(" | ".join(str(c) for c in cells))
    return "\n".join(lines)


if __name__ == "__main__":  # one row in this fresh process (cost_rows starts it): print it as JSON
    import torch

    threads, window, extractor, settings = json.loads(sys.argv[1])
    torch.set_num_threads(threads)
    print(json.dumps(measure(window, extractor, **settings)))
