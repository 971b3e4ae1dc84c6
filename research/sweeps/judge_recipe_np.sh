#!/usr/bin/env bash
# Reproduces research/log.md, "Recipes for 4 and 5 players" (2026-12-07): a recipe's agent for
# N players judged against today's recommended agent in that player count's own terms.
#   1. the new agent in every seat against the old one in the others, 1,000 games, seats
#      rotated (break-even 1/N; `machu tournament` plays every seating evenly);
#   2. the new agent against N-1 `gold`, 1,000 games;
#   3. probes of the new agent and of the old one on the catalogue's seeds, on this machine
#      (`probe_seeds.sh`: 1.5M steps, 2,000 games, one thread, JOBS at a time; the old agent's
#      probes in OLD_PROBES, default OUT/probe_old, are kept and reused).
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
here="$(dirname "$0")"
bash "$here/probe_seeds.sh" "$new" "$n" "$out/probe_new" > "$out/probe_new.log"
bash "$here/probe_seeds.sh" "$old" "$n" "${OLD_PROBES:-$out/probe_old}" > "$out/probe_old.log"
tail -4 "$out/vs_old.log" "$out/vs_gold.log"
echo "probes of the new agent:"; cat "$out/probe_new.log"
echo "probes of $old:"; cat "$out/probe_old.log"
