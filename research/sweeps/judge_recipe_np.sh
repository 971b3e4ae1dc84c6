#!/usr/bin/env bash
# Reproduces research/log.md, "Recipes for 4 and 5 players" (2026-12-07): a recipe's agent for
# N players judged against today's recommended agent in that player count's own terms.
#   1. the new agent in every seat against the old one in the others, 1,000 games, seats
#      rotated (break-even 1/N; `machu tournament` plays every seating evenly);
#   2. the new agent against N-1 `gold`, 1,000 games;
#   3. probes of the new agent and of the old one on the same seeds and this machine
#      (`machu exploit`, 1.5M steps, 2,000 games, seeds 100 and 102, one thread each, two at
#      a time), so that the two are compared on one machine.
#   usage: judge_recipe_np.sh PLAYERS AGENT_FILE OLD_AGENT OUT
#   e.g.   judge_recipe_np.sh 4 runs/best_4p/agent.safetensors ppo-4p runs/judge_4p
set -euo pipefail
n="$1"; new="policy:$2"; old="$3"; out="$4"
mkdir -p "$out"
others() { local a=""; for _ in $(seq 2 "$n"); do a+=",$1"; done; echo "$a"; }
[ -f "$out/vs_old/summary.json" ] || machu tournament --agents "$new$(others "$old")" \
  --players "$n" --games 1000 --workers 2 --seed 7 --no-progress --out "$out/vs_old" \
  > "$out/vs_old.log" 2>&1
[ -f "$out/vs_gold/summary.json" ] || machu tournament --agents "$new$(others gold)" \
  --players "$n" --games 1000 --workers 2 --seed 0 --no-progress --out "$out/vs_gold" \
  > "$out/vs_gold.log" 2>&1
for seed in 100 102; do
  for who in new old; do
    agent="$new"; [ "$who" = old ] && agent="$old"
    [ -f "$out/probe_${who}_s$seed/summary.json" ] || machu exploit --agent "$agent" \
      --players "$n" --steps 1500000 --seed "$seed" --threads 1 --eval-games 2000 \
      --out "$out/probe_${who}_s$seed" > "$out/probe_${who}_s$seed.log" 2>&1 &
  done
  wait
done
tail -4 "$out/vs_old.log" "$out/vs_gold.log"
for f in "$out"/probe_*/summary.json; do
  python -c "import json,sys; s=json.load(open(sys.argv[1])); print(sys.argv[1], \
f\"{s['exploiter_win_share']:.2%}\", f\"{s['exploiter_margin']:+.1f}\")" "$f"
done
