#!/usr/bin/env bash
# Issue #26, item 1, as in Sokota et al. 2022: regularised self-play from fresh weights (not a
# fine-tune of ppo-2p): a large entropy bonus (Rudolph et al. 2025: 0.05-0.2) and the fast
# magnet (MMD's reverse KL to a recent copy of the policy) over STEPS learner steps, then the
# probe (warm start from the run's policy, 1.5M steps, 2,000 games).
#   bash train/sweeps/scratch_regularised.sh OUT SEED
set -euo pipefail
export NUMBA_NUM_THREADS=1
run=${1:-runs/scratch_reg}; seed=${2:-3}
STEPS=${STEPS:-12000000}; PROBE=${PROBE:-1500000}
mkdir -p "$run"
resume=""
if [ -f "$run/latest.safetensors" ]; then resume="--resume"; fi
if [ ! -f "$run/summary.json" ]; then
  machu train $resume --players 2 --timesteps "$STEPS" --seed "$seed" --threads 1 \
    --pool random:0.05,builder:0.15,gold:0.3,self:0.5 --snapshot-every 1000000 \
    --eval-every 2000000 --eval-games 200 --ent-coef 0.05 \
    --magnet-coef 0.1 --magnet-every 10 --out "$run" >> "$run.log" 2>&1
fi
if [ ! -f "$run/probe/summary.json" ]; then
  machu exploit --agent "policy:$run/latest.safetensors" --players 2 --steps "$PROBE" \
    --seed $((seed + 100)) --threads 1 --eval-games 2000 --out "$run/probe" > "$run.probe.log" 2>&1
fi
echo "regularised run from scratch done"
