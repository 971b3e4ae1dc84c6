#!/usr/bin/env bash
# Reproduces research/log.md, "Rounds that move less, and a new `best-2p`" (2026-12-06): the catalogue figures of
# ppo-2p-rounds (best-2p from then on): against gold, and every 2-player agent in one tournament
# for the ratings. Its probes and its 1,000 games against ppo-2p-avg are
# research/sweeps/confirm_four_seeds.sh's (seeds 101-107) and two more seeds (109, 111), each
# beside the same probe of ppo-2p-avg (measured with the file as policy:FILE and ppo-2p-avg as
# best-2p: the same weights).
#   bash research/sweeps/ship_2p_rounds.sh OUT
set -euo pipefail
out=${1:-runs/ship_2p_rounds}
mkdir -p "$out"
tour() {  # name agents
  [ -f "$out/$1/summary.json" ] || machu tournament --agents "$2" --players 2 --games 1000 \
    --seed 0 --workers 1 --no-progress --out "$out/$1" > "$out/$1.log" 2>&1
}
tour ppo-2p-rounds_vs_gold ppo-2p-rounds,gold
tour rating_2p ppo-2p-rounds,ppo-2p-avg,ppo-2p-reg,ppo-2p-race,ppo-2p,ppo-2p-v2,ppo-2p-v1,gold,builder,random
for seed in 109 111; do
  for agent in ppo-2p-rounds ppo-2p-avg; do
    [ -f "$out/${agent}_s$seed/summary.json" ] || machu exploit --agent "$agent" --players 2 \
      --steps 1500000 --seed "$seed" --threads 1 --eval-games 2000 \
      --out "$out/${agent}_s$seed" > "$out/${agent}_s$seed.log" 2>&1 &
  done
  wait
done
tail -n 4 "$out"/*.log
