"""Tune and measure the Kardinal & König heuristic (``heuristic``) by tournaments: the command line of
:mod:`agents.baselines.koenig_tuning` (``--help`` of each command says what it plays and prints;
docs/koenig-heuristic.md has the method and the numbers). Run tournaments with ``nice -n 19`` on a shared machine.

    python scripts/tune_koenig_heuristic.py vs heuristic --against greedy --games 200
    python scripts/tune_koenig_heuristic.py h2h --a '{"horizon": 6}' --b '{"horizon": 3}' --games 120
    python scripts/tune_koenig_heuristic.py tune --games 40 --rounds 1 --seed 10000
"""

from __future__ import annotations

import argparse
import json
import sys

from agents.baselines.koenig_heuristic import DEFAULT_WEIGHTS, HeuristicWeights
from agents.baselines.koenig_tuning import AGENTS, coordinate_search, head_to_head, make_agent, one_vs_field


def _weights(text: str | None, base: HeuristicWeights = DEFAULT_WEIGHTS) -> HeuristicWeights:
    if text is None:
        return base
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"weights: not JSON ({exc}): {text!r}") from None
    if not isinstance(data, dict):
        raise SystemExit(f"weights: expected a JSON object of weight names and numbers, got {text!r}")
    try:
        return HeuristicWeights.from_dict({**base.as_dict(), **data})
    except (TypeError, ValueError) as exc:
        raise SystemExit(f"weights: {exc}") from None


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x]
    except ValueError:
        raise SystemExit(f"--factors: expected numbers separated by commas, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    weights = "weights: a JSON object of (some of) the fields of HeuristicWeights, e.g. '{\"hand\": 0.8}'"
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=weights)
    sub = p.add_subparsers(dest="command", required=True)
    vs = sub.add_parser(
        "vs",
        help="one agent against copies of another",
        description="AGENT in one seat (rotated) against players-1 copies of FIELD (default: greedy for the "
        "heuristic, else heuristic). Prints the win share with its Wilson 95%% interval, the score "
        "difference and seconds per game.",
    )
    vs.add_argument("agent", choices=sorted(AGENTS))
    vs.add_argument("--against", choices=sorted(AGENTS), default=None)
    vs.add_argument("--games", type=int, default=200)
    vs.add_argument("--weights", default=None, help="heuristic weights (JSON) for every heuristic seat")
    vs.add_argument(
        "--agent-weights", default=None, help="heuristic weights (JSON) for AGENT's seat only (over --weights)"
    )
    h2h = sub.add_parser(
        "h2h",
        help="two weight sets head to head",
        description="The heuristic with weights A against weights B (default: the defaults), half the seats each.",
    )
    h2h.add_argument("--a", required=True)
    h2h.add_argument("--b", default=None)
    h2h.add_argument("--games", type=int, default=40)
    tune = sub.add_parser(
        "tune",
        help="coordinate search",
        description="Coordinate search (agents.baselines.koenig_tuning.coordinate_search): logs every "
        "comparison and prints the final weights as JSON. With --field (e.g. '{}': the defaults), a best "
        "response: one seat against copies of the heuristic with those fixed weights.",
    )
    tune.add_argument("--start", default=None)
    tune.add_argument("--games", type=int, default=40)
    tune.add_argument("--rounds", type=int, default=1)
    tune.add_argument("--names", default=None, help="weights to tune, comma-separated (default: all)")
    tune.add_argument("--factors", default="0.5,2")
    tune.add_argument("--z", type=float, default=1.0)
    tune.add_argument("--field", default=None, help="best response to this fixed field (JSON weights)")
    for q in (vs, h2h, tune):
        q.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
        q.add_argument("--discard", choices=("one", "any"), default="one")
        q.add_argument("--seed", type=int, default=0)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.games < 1:
        raise SystemExit(f"--games must be positive, got {args.games}")
    common = {"players": args.players, "discard": args.discard, "seed": args.seed}
    if args.command == "vs":
        field = args.against or ("greedy" if args.agent == "heuristic" else "heuristic")
        w = _weights(args.weights) if args.weights else None
        mine = _weights(args.agent_weights, w or DEFAULT_WEIGHTS) if args.agent_weights else w
        if args.agent_weights and args.agent != "heuristic":
            raise SystemExit(f"--agent-weights: {args.agent} has no weights (only heuristic has)")

        def build(name: str, weights: HeuristicWeights | None):
            return lambda seed: make_agent(name, seed, weights if name == "heuristic" else None)

        res = one_vs_field(build(args.agent, mine), build(field, w), args.games, **common)
        print(f"{args.agent} vs {args.players - 1} x {field}: {res.summary()}")
    elif args.command == "h2h":
        res = head_to_head(_weights(args.a), _weights(args.b), args.games, **common)
        print(f"A vs B: {res.summary()}")
    else:
        best = coordinate_search(
            _weights(args.start),
            games=args.games,
            rounds=args.rounds,
            names=args.names.split(",") if args.names else None,
            factors=_floats(args.factors),
            z=args.z,
            field=None if args.field is None else _weights(args.field),
            log=lambda line: print(line, flush=True),
            **common,
        )
        print(json.dumps(best.as_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
