"""What sb3-contrib ``MaskablePPO`` costs on kardinal_v0 per window and features extractor: the command
line of :mod:`kardinal_env.integrations.sb3_cost` (its docstring says what a row measures).

    python scripts/sb3_cost.py                                  # the table of docs/libraries/sb3.md
    python scripts/sb3_cost.py --windows 53 --extractors crop   # one row
    python scripts/sb3_cost.py --params-only                    # sizes and parameter counts, no training
"""

from __future__ import annotations

import argparse
import json
import sys

from kardinal_env.integrations.sb3_cost import EXTRACTORS, cost_rows, cost_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[9, 21, 53], help="odd windows (default 9 21 53)")
    parser.add_argument("--extractors", nargs="+", default=list(EXTRACTORS), choices=EXTRACTORS)
    parser.add_argument("--steps", type=int, default=512, help="learner steps per row (default 512)")
    parser.add_argument("--n-steps", type=int, default=256, help="MaskablePPO n_steps (rollout length; default 256)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--torch-threads", type=int, default=1, help="torch threads per run (default 1)")
    parser.add_argument("--params-only", action="store_true", help="sizes and parameter counts only (no training)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per row instead of a table")
    args = parser.parse_args(argv)
    for w in args.windows:
        if w < 3 or w > 53 or w % 2 == 0:
            parser.error(f"--windows: {w} is not an odd window from 3 to 53")
    settings = {"steps": args.steps, "n_steps": args.n_steps, "batch_size": args.batch_size, "n_epochs": args.n_epochs}
    on_row = (lambda row: print(json.dumps(row), flush=True)) if args.json else None
    try:
        rows = cost_rows(
            args.windows, args.extractors, args.torch_threads, on_row, train=not args.params_only, **settings
        )
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not args.json:
        print(cost_table(rows, trained=not args.params_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
