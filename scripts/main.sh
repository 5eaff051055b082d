#!/usr/bin/env bash
# Command (1) of the README quick start: set up, train the default preset, evaluate the checkpoint.
#
#   1. setup (.venv, editable install)
#   2. self-play PPO with configs/default.yaml (2 players, English rules, ~7-8 min on 2 CPU cores)
#      -> runs/default/best.pt (the network of the run's best in-training evaluation against greedy),
#         runs/default/checkpoint.pt (the last state, for --resume); TensorBoard logs in runs/default/
#   3. evaluation table: best.pt vs random and vs greedy, 200 games each, seats alternated,
#      2 players -> runs/default/eval_random/ and runs/default/eval_greedy/ (results.json, ratings.png)
#
# Extra arguments go to scripts/train.py (= kardinal-train; `--help` lists every option), e.g.
# `bash scripts/main.sh --set total_steps=20000`. Win rates count a shared win among k winners as 1/k.
# The demo of the environment is still available as `.venv/bin/python scripts/demo.py`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train
.venv/bin/python scripts/train.py --config configs/default.yaml --set run_name=default "$@"
CKPT=runs/default/best.pt
[ -f "$CKPT" ] || CKPT=runs/default/checkpoint.pt  # with --set keep_best=false (a new run removes an old best.pt)
for opponent in random greedy; do
    .venv/bin/python scripts/evaluate.py --agents "ppo:$CKPT" "$opponent" --players 2 --games 200 \
        --seed 0 --out "runs/default/eval_$opponent" --no-moves --quiet
done
