#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26, item 2: a Nash population for 2 players, and its probe.
#   bash research/sweeps/population_2p.sh OUT SWEEP     # after research/sweeps/regularised.sh
# 1. probe ppo-2p-v2 itself with today's protocol (warm start, 1.5M steps, 2,000 games): its
#    exploiter joins the population;
# 2. `machu population` over ppo-2p-v2, ppo-2p-v1 and the exploiters (of ppo-2p-v2 and of the
#    sweep's seed-0 runs), 200 games per ordered pair;
# 3. probe the population (an exploiter warm-started from each member; the best counts).
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/pop2p}; sweep=${2:-runs/sweep}
PROBE=${PROBE:-1500000}; GAMES=${GAMES:-200}
mkdir -p "$out"
if [ ! -f "$out/ref_probe/summary.json" ]; then
  machu exploit --agent ppo-2p-v2 --players 2 --steps "$PROBE" --seed 100 --threads 1 \
    --eval-games 2000 --out "$out/ref_probe" > "$out/ref_probe.log" 2>&1
fi
members="ppo-2p-v2,ppo-2p-v1,policy:$out/ref_probe/exploiter.safetensors"
for run in "$sweep"/*_s0; do  # the exploiters of the sweep's runs: specialists
  members="$members,policy:$run/probe/exploiter.safetensors"
done
if [ ! -f "$out/pop.safetensors" ]; then
  machu population --members "$members" --players 2 --games "$GAMES" --seed 0 \
    --out "$out/pop.safetensors" > "$out/population.json" 2> "$out/population.log"
fi
if [ ! -f "$out/pop_probe/summary.json" ]; then
  machu exploit --agent "policy:$out/pop.safetensors" --players 2 --steps "$PROBE" --seed 100 \
    --threads 1 --eval-games 2000 --out "$out/pop_probe" > "$out/pop_probe.log" 2>&1
fi
echo "population done"
