#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26: the figures of the new ppo-2p (research/sweeps/long_regularised.sh's run, shipped
# 2026-11-24; the former ppo-2p is ppo-2p-v2): head-to-head, against gold, every 2-player
# agent in one tournament, and the probe with the protocol of the other agents (seed 100).
#   bash research/sweeps/ship_2p.sh OUT [STEP ...]   # steps: tournaments probe
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/ship_2p}; shift || true
steps=${*:-"tournaments probe"}
mkdir -p "$out"
tour() {  # name agents [extra-args...]
  local name=$1 agents=$2; shift 2
  if [ ! -f "$out/$name/summary.json" ]; then
    machu tournament --agents "$agents" --players 2 --seed 0 --workers 1 --no-progress \
      --out "$out/$name" "$@" > "$out/$name.log" 2>&1
  fi
}
tournaments() {
  tour vs_v2 ppo-2p,ppo-2p-v2 --games 1000
  tour vs_gold ppo-2p,gold --games 1000
  tour all_2p ppo-2p,ppo-2p-v2,ppo-2p-v1,gold,builder,random --games 1000
}
probe() {
  if [ ! -f "$out/probe/summary.json" ]; then
    machu exploit --agent ppo-2p --players 2 --steps 1500000 --seed 100 --threads 1 \
      --eval-games 2000 --out "$out/probe" > "$out/probe.log" 2>&1
  fi
}
for step in $steps; do "$step"; done
echo "ship_2p done: $steps"
