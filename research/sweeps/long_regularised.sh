#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26, item 1, a longer budget: both regularisers of the sweep together (the entropy
# schedule, which lowered the exploiter's margin, and the fast magnet) over STEPS learner steps
# of fine-tuning ppo-2p-v2 on a fresh seed, then the probe (warm start, 1.5M steps, 2,000 games).
# The run behind the ppo-2p shipped on 2026-11-24. INIT (empty: fresh weights) and REG (the
# regularisers) change the run; research/sweeps/scratch_regularised.sh sets them.
#   bash research/sweeps/long_regularised.sh OUT SEED
set -euo pipefail
export NUMBA_NUM_THREADS=1
run=${1:-runs/long_reg}; seed=${2:-2}
STEPS=${STEPS:-10000000}; PROBE=${PROBE:-1500000}
INIT=${INIT-ppo-2p-v2}
REG=${REG:-"--ent-coef 0.1 --ent-coef-final 0.01 --magnet-coef 0.1 --magnet-every 10"}
mkdir -p "$run"
resume=""
if [ -f "$run/latest.safetensors" ]; then resume="--resume"; fi
if [ ! -f "$run/summary.json" ]; then
  machu train $resume --players 2 ${INIT:+--init "$INIT"} --timesteps "$STEPS" --seed "$seed" \
    --threads 1 --pool random:0.05,builder:0.15,gold:0.3,self:0.5 --snapshot-every 1000000 \
    --eval-every 2000000 --eval-games 200 $REG --out "$run" >> "$run.log" 2>&1
fi
if [ ! -f "$run/probe/summary.json" ]; then
  machu exploit --agent "policy:$run/latest.safetensors" --players 2 --steps "$PROBE" \
    --seed $((seed + 100)) --threads 1 --eval-games 2000 --out "$run/probe" > "$run.probe.log" 2>&1
fi
echo "regularised run done: $run"
