#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26, item 1: regularised self-play, 4 settings x 2 tuning seeds, each run probed.
# Every run fine-tunes ppo-2p-v2 for STEPS learner steps (2 players, self-play-heavy pool), then
# `machu exploit` trains a warm-started exploiter for PROBE steps against the run's final policy
# (played as shipped: argmax) and plays 2,000 evaluation games, seats rotated.
#   bash research/sweeps/regularised.sh OUT "0 1"      # tuning seeds
# Two lanes run side by side, one thread each (torch and numba: with numba's default of one
# thread per core, two processes on 2 cores ran 7x slower, 2026-11-24).
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/sweep}; seeds=${2:-"0 1"}
STEPS=${STEPS:-1500000}; PROBE=${PROBE:-1500000}
declare -A SETTINGS=(
  [base]="--ent-coef 0.01"
  [ent_decay]="--ent-coef 0.1 --ent-coef-final 0.01"
  [magnet_fast]="--ent-coef 0.01 --magnet-coef 0.1 --magnet-every 10"
  [magnet_slow]="--ent-coef 0.01 --magnet-coef 0.5 --magnet-every 50"
)
one() {  # name seed
  local name=$1 seed=$2 run="$out/$1_s$2"
  local resume=""
  if [ -f "$run/latest.safetensors" ]; then resume="--resume"; fi
  if [ ! -f "$run/summary.json" ]; then
    machu train $resume --players 2 --init ppo-2p-v2 --timesteps "$STEPS" --seed "$seed" --threads 1 \
      --pool random:0.05,builder:0.15,gold:0.3,self:0.5 --snapshot-every 500000 \
      --eval-every 500000 --eval-games 200 ${SETTINGS[$name]} --out "$run" >> "$run.log" 2>&1
  fi
  if [ ! -f "$run/probe/summary.json" ]; then
    machu exploit --agent "policy:$run/latest.safetensors" --players 2 --steps "$PROBE" \
      --seed $((seed + 100)) --threads 1 --eval-games 2000 --out "$run/probe" \
      > "$run.probe.log" 2>&1
  fi
}
mkdir -p "$out"
jobs=()
for seed in $seeds; do for name in base ent_decay magnet_fast magnet_slow; do
  jobs+=("$name $seed"); done; done
lane() { local k=$1; for ((i = k; i < ${#jobs[@]}; i += 2)); do one ${jobs[$i]}; done; }
lane 0 & lane 1 & wait
echo "sweep done"
