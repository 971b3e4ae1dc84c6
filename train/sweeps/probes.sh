#!/usr/bin/env bash
# Issue #26, item 4: the probe figures of the shipped agents with today's protocol
# (1.5M steps, 2,000 evaluation games, seats rotated; one thread each).
#   bash train/sweeps/probes.sh OUT
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/probes}
mkdir -p "$out"
probe() {  # name agent players extra-args...
  local name=$1 agent=$2 players=$3; shift 3
  if [ ! -f "$out/$name/summary.json" ]; then
    machu exploit --agent "$agent" --players "$players" --seed 100 --threads 1 \
      --eval-games 2000 --out "$out/$name" "$@" > "$out/$name.log" 2>&1
  fi
}
tour() {  # name players agents: one tournament of every shipped agent for a player count
  if [ ! -f "$out/$1/summary.json" ]; then
    machu tournament --agents "$3" --players "$2" --games 1000 --seed 0 --workers 1 \
      --no-progress --out "$out/$1" > "$out/$1.log" 2>&1
  fi
}
tour tournament_4p 4 ppo-4p,ppo-3p,gold,builder,random
tour tournament_5p 5 ppo-5p,ppo-4p,ppo-3p,gold,builder,random
probe ppo4p ppo-4p 4 --steps 1500000
probe ppo5p ppo-5p 5 --steps 1500000
probe ppo2p_cold ppo-2p 2 --steps 1500000 --cold
probe ppo3p ppo-3p 3 --steps 1500000
probe ppo2p_5m ppo-2p 2 --steps 5000000 --eval-at 1500000
# the frozen exploiter of ppo-2p (train/sweeps/population_2p.sh, step 1) against search:ppo-2p
if [ ! -f "$out/exploiter_vs_search/summary.json" ]; then
  machu tournament --agents policy:runs/pop2p/ref_probe/exploiter.safetensors,search:ppo-2p \
    --players 2 --games 30 --seed 0 --workers 1 --mcts-iterations 64 --mcts-seconds 1 \
    --no-progress --out "$out/exploiter_vs_search" > "$out/exploiter_vs_search.log" 2>&1
fi
echo "probes done"
