#!/usr/bin/env bash
# The long 2-player run exactly as measured in docs/lab/kardinal-ppo.md (about 2.2 CPU-hours on one core):
#
#   1. configs/long_2p.yaml (1.2M learner steps, 40% of the games against greedy) -> runs/long_2p/
#   2. resumed to 1.75M steps with 80% greedy games, 10% snapshots, lr 2e-4      -> runs/long_2p_ft_g8/
#   3. resumed to 2.40M steps with 90% greedy games, 5% snapshots, lr 2e-4       -> runs/long_2p_ft3/
#   4. evaluation of runs/long_2p_ft3/checkpoint.pt against greedy (2 x 200 games, seeds 0 and 1)
#      and against mcts:200 (100 games): runs/long_2p_ft3/eval_*/ (results.json, ratings.png)
#
# Each stage resumes from the previous stage's final checkpoint (optimizer, opponent pool and random
# states included), so an interrupted stage can be rerun on its own. Measured: 74.3% against greedy
# after stage 1, 78.5% after stage 2, 83.8% after stage 3 (400 games each).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train
PY=.venv/bin/python
COMMON=(--set checkpoint_interval=10 --set progress=false)
$PY scripts/train.py --config configs/long_2p.yaml "${COMMON[@]}"
$PY scripts/train.py --resume runs/long_2p/checkpoint.pt --set run_name=long_2p_ft_g8 --set total_steps=1750000 \
    --set greedy_share=0.8 --set pool_share=0.1 --set learning_rate=0.0002 "${COMMON[@]}"
$PY scripts/train.py --resume runs/long_2p_ft_g8/checkpoint.pt --set run_name=long_2p_ft3 --set total_steps=2400000 \
    --set greedy_share=0.9 --set pool_share=0.05 --set learning_rate=0.0002 "${COMMON[@]}"
CKPT=runs/long_2p_ft3/checkpoint.pt
for seed in 0 1; do
    $PY scripts/evaluate.py --agents "ppo:$CKPT" greedy --players 2 --games 200 --seed "$seed" --workers 2 \
        --out "runs/long_2p_ft3/eval_greedy_s$seed" --no-moves --quiet
done
$PY scripts/evaluate.py --agents "ppo:$CKPT" mcts:200 --players 2 --games 100 --seed 0 --workers 2 \
    --out runs/long_2p_ft3/eval_mcts200 --no-moves --quiet
