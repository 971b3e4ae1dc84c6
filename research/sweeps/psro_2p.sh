#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26: PSRO for 2 players, then the probe of its Nash population.
#   bash research/sweeps/psro_2p.sh OUT
# 1. `machu population --psro 8`: from {ppo-2p-v2, ppo-2p-v1}, eight times train a 1.5M-step best
#    response to the Nash mixture (warm-started from its heaviest member), measure it against
#    the mixture (400 games), add it, re-solve (400 games per ordered pair);
# 2. probe the final population with the standard protocol (1.5M steps, 2,000 games, an
#    exploiter warm-started from each member; the best counts).
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/psro2p}; ITER=${ITER:-8}; STEPS=${STEPS:-1500000}; GAMES=${GAMES:-400}
mkdir -p "$out"
if [ ! -f "$out/pop.safetensors" ] || [ ! -f "$out/population.json" ]; then
  machu population --members ppo-2p-v2,ppo-2p-v1 --players 2 --games "$GAMES" --seed 0 \
    --psro "$ITER" --psro-steps "$STEPS" --threads 1 --out "$out/pop.safetensors" \
    > "$out/population.json" 2> "$out/population.log"
fi
if [ ! -f "$out/pop_probe/summary.json" ]; then
  machu exploit --agent "policy:$out/pop.safetensors" --players 2 --steps 1500000 --seed 100 \
    --threads 1 --eval-games 2000 --out "$out/pop_probe" > "$out/pop_probe.log" 2>&1
fi
echo "psro done"
