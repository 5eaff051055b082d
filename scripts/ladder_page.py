"""Write a ladder (a Markdown table and a PNG plot) from evaluation results, for the docs' Agents page.

    python scripts/ladder_page.py RESULTS.json [RESULTS.json ...] --out DIR --name NAME [--slim]

writes ``DIR/NAME.md`` and ``DIR/NAME.png`` (:mod:`agents.evaluation.report` is the library and its docstring the
specification: what is pooled, how wins and ratings are counted, which files are refused). ``--slim`` first rewrites
each results file in place to what the ladder and the pages read (:func:`agents.evaluation.report.slim_results`; the
files under ``docs/data/`` are kept so). The documentation's ladders are made by ``bash scripts/docs.sh ladders``. Exit
status 0; 1 when a results file is refused (the message names it); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys

from agents.evaluation.report import LadderError, slim_results, write_ladder


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results.json files of kardinal-evaluate --out (pooled in order)")
    parser.add_argument("--out", required=True, help="directory for NAME.md and NAME.png")
    parser.add_argument("--name", required=True, help="file name stem of the outputs (e.g. kardinal)")
    parser.add_argument(
        "--slim", action="store_true", help="first rewrite each results file in place without what no ladder reads"
    )
    args = parser.parse_args(argv)
    try:
        if args.slim:
            for path in args.results:
                slim_results(path)
        written = write_ladder(args.results, args.out, args.name)
    except LadderError as exc:
        print(f"ladder_page: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {written['markdown']} and {written['png']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
