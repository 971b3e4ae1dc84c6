#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26, item 2 at 3 players: the network is the same for every player count, so ppo-3p,
# ppo-4p and ppo-5p are three strong, different 3-player policies. `machu population` measures
# their 3-player payoff matrix (member i in one seat against two copies of member j) and
# writes the worst-case mixture; then the probe: an exploiter warm-started from each member
# with a positive weight, 1.5M steps, 2,000 games; the best one counts.
#   bash research/sweeps/population_3p.sh OUT
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/pop3p}; GAMES=${GAMES:-300}; PROBE=${PROBE:-1500000}
mkdir -p "$out"
if [ ! -f "$out/pop.safetensors" ]; then
  machu population --members ppo-3p,ppo-4p,ppo-5p --players 3 --games "$GAMES" --seed 0 \
    --out "$out/pop.safetensors" > "$out/population.json" 2> "$out/population.log"
fi
if [ ! -f "$out/probe/summary.json" ]; then
  machu exploit --agent "policy:$out/pop.safetensors" --players 3 --steps "$PROBE" --seed 100 \
    --threads 1 --eval-games 2000 --out "$out/probe" > "$out/probe.log" 2>&1
fi
echo "population 3p done"
