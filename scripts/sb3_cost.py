"""What sb3-contrib ``MaskablePPO`` costs on kardinal_v0 per window and features extractor.

For each ``(window, extractor)`` it starts a fresh Python process that builds the 2-player self-play
env (opponent: random legal moves), builds ``MaskablePPO`` and trains for ``--steps`` learner steps,
then reports the observation and mask bytes per step, the policy's parameter count, the wall time
of construction + training and the process's peak resident memory (``ru_maxrss``), next to the
resident memory before the model was built (imports and env). One process per row, so peaks do
not mix.

    python scripts/sb3_cost.py                                  # the table of docs/libraries/sb3.md
    python scripts/sb3_cost.py --windows 53 --extractors crop   # one row
    python scripts/sb3_cost.py --params-only                    # sizes and parameter counts, no training

Extractors: ``mlp`` (SB3's flatten + MLP), ``crop`` (``KardinalCropCNN``), ``cnn`` (``KardinalCNN``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

EXTRACTORS = ("mlp", "crop", "cnn")


def _rss_kib() -> int:
    """Current resident set size in KiB (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _policy_kwargs(extractor: str) -> dict:
    from kardinal_env.integrations.sb3 import KardinalCNN, KardinalCropCNN

    if extractor == "mlp":
        return {}
    if extractor == "crop":
        return {"features_extractor_class": KardinalCropCNN}
    if extractor == "cnn":
        return {"features_extractor_class": KardinalCNN}
    raise ValueError(f"--extractors: unknown extractor {extractor!r}; choose from {list(EXTRACTORS)}")


def measure(window: int, extractor: str, steps: int, n_steps: int, batch_size: int, n_epochs: int, train: bool) -> dict:
    """One row, measured in this process (call it in a fresh process for a clean peak)."""
    import resource

    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO

    from kardinal_env.integrations.sb3 import make_self_play_env

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
        policy_kwargs=_policy_kwargs(extractor),
    )
    params = sum(p.numel() for p in model.policy.parameters())
    extractor_params = sum(p.numel() for p in model.policy.features_extractor.parameters())
    if train:
        model.learn(total_timesteps=steps)
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    row = {
        "window": window,
        "extractor": extractor,
        "actions": int(env.action_space.n),
        "obs_bytes": int(np.asarray(obs).nbytes),
        "mask_bytes": int(np.asarray(mask).nbytes),
        # sb3-contrib stores the masks as float32 and the observations in their own dtype (uint8).
        "buffer_bytes_per_step": int(np.asarray(obs).nbytes + 4 * mask.size),
        "params": int(params),
        "extractor_params": int(extractor_params),
        "torch_threads": torch.get_num_threads(),
    }
    if train:
        row.update(
            steps=int(model.num_timesteps),
            seconds=round(seconds, 1),
            rss_before_model_mib=round(rss_before / 1024),
            peak_rss_mib=round(peak_kib / 1024),
        )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[9, 21, 53], help="odd windows (default 9 21 53)")
    parser.add_argument("--extractors", nargs="+", default=["mlp", "crop", "cnn"], choices=EXTRACTORS)
    parser.add_argument("--steps", type=int, default=512, help="learner steps per row (default 512)")
    parser.add_argument("--n-steps", type=int, default=256, help="MaskablePPO n_steps (rollout length; default 256)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads per run (default 1)")
    parser.add_argument("--params-only", action="store_true", help="sizes and parameter counts only (no training)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    parser.add_argument("--_child", nargs=2, metavar=("WINDOW", "EXTRACTOR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for w in args.windows:
        if w < 3 or w > 53 or w % 2 == 0:
            parser.error(f"--windows: {w} is not an odd window from 3 to 53")

    if args._child:
        import torch

        torch.set_num_threads(args.torch_threads)
        row = measure(
            int(args._child[0]),
            args._child[1],
            args.steps,
            args.n_steps,
            args.batch_size,
            args.n_epochs,
            train=not args.params_only,
        )
        print(json.dumps(row))
        return 0

    rows = []
    for window in args.windows:
        for extractor in args.extractors:
            cmd = [sys.executable, os.path.abspath(__file__), "--_child", str(window), extractor]
            cmd += ["--steps", str(args.steps), "--n-steps", str(args.n_steps), "--batch-size", str(args.batch_size)]
            cmd += ["--n-epochs", str(args.n_epochs), "--torch-threads", str(args.torch_threads)]
            if args.params_only:
                cmd.append("--params-only")
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stderr, file=sys.stderr)
                print(f"error: window {window}, extractor {extractor} failed (exit {proc.returncode})", file=sys.stderr)
                return 1
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
    if not args.json:
        head = ["window", "extractor", "obs KB", "mask KB", "buffer KB/step", "params"]
        if not args.params_only:
            head += ["steps", "seconds", "RSS before model MiB", "peak RSS MiB"]
        print(" | ".join(head))
        for r in rows:
            cells = [r["window"], r["extractor"], f"{r['obs_bytes'] / 1000:.1f}", f"{r['mask_bytes'] / 1000:.1f}"]
            cells += [f"{r['buffer_bytes_per_step'] / 1000:.0f}", f"{r['params']:,}"]
            if not args.params_only:
                cells += [r["steps"], r["seconds"], r["rss_before_model_mib"], r["peak_rss_mib"]]
            print(" | ".join(str(c) for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
