#!/usr/bin/env bash
# Reproduces research/log.md, "The rounds with six exploiters in round 1" (2026-12-06).
# A candidate judged as the rounds' agents are: its probes on the four confirming seeds
# (101, 103, 105, 107: `machu exploit`, 1.5M steps, 2,000 games, two at a time with one thread
# each; ppo-2p-avg's own on the same seeds are in research/results/rounds_2026_12_06/), then
# 1,000 games against ppo-2p-avg (seed 7; it was best-2p until 2026-12-06, and the results of
# earlier runs name it so: *_vs_best-2p).
#   usage: confirm_four_seeds.sh NAME AGENT_FILE OUT
set -euo pipefail
name="$1"; agent="policy:$2"; out="$3"
mkdir -p "$out"
for pair in "101 103" "105 107"; do
  for seed in $pair; do
    [ -f "$out/${name}_s$seed/summary.json" ] || machu exploit --agent "$agent" --players 2 \
      --steps 1500000 --seed "$seed" --threads 1 --eval-games 2000 \
      --out "$out/${name}_s$seed" > "$out/${name}_s$seed.log" 2>&1 &
  done
  wait
done
[ -f "$out/${name}_vs_ppo-2p-avg/summary.json" ] || machu tournament --agents "$agent,ppo-2p-avg" \
  --players 2 --games 1000 --workers 2 --seed 7 --no-progress \
  --out "$out/${name}_vs_ppo-2p-avg" > "$out/${name}_vs_ppo-2p-avg.log" 2>&1
for seed in 101 103 105 107; do
  python -c "import json,sys; s=json.load(open(sys.argv[1])); print(sys.argv[2], \
f\"{s['exploiter_win_share']:.2%}\", f\"{s['exploiter_margin']:+.1f}\")" \
    "$out/${name}_s$seed/summary.json" "seed $seed:"
done
tail -3 "$out/${name}_vs_ppo-2p-avg.log"
