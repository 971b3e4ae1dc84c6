#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36 step 4: the project's probe of a candidate on two exploiter seeds (warm 1.5M steps,
# 2,000 games each, run side by side with one thread each; with 3 players the exploiter faces
# two copies of the candidate), the recorded games of the first exploiter against it and their
# analysis, then its strength: 2 players, 1,000 games each against ppo-2p, ppo-2p-race and gold;
# 3 players, 1,002 games of {candidate, ppo-3p, gold} (every seating).
#   usage: probe_candidate.sh NAME AGENT_FILE [PLAYERS (2)]
set -e
cd "$(dirname "$0")/../.."
name="$1"; agent="policy:$2"; players="${3:-2}"
mkdir -p runs/probes runs/analyze runs/strength
for seed in 100 102; do
  machu exploit --agent "$agent" --players "$players" --steps 1500000 --seed "$seed" --threads 1 \
      --eval-games 2000 --out "runs/probes/${name}_s$seed" > "runs/probes/${name}_s$seed.log" 2>&1 &
done
wait
seats="$agent"; [ "$players" = 3 ] && seats="$agent,$agent"
machu tournament --agents "$seats,policy:runs/probes/${name}_s100/exploiter.safetensors" \
    --players "$players" --games 198 --workers 2 --seed 7 --records --no-progress \
    --out "runs/analyze/${name}_s100" > "runs/analyze/${name}_s100.log" 2>&1
machu analyze "runs/analyze/${name}_s100/records" --out "runs/analyze/${name}_s100/analysis" \
    >> "runs/analyze/${name}_s100.log" 2>&1
if [ "$players" = 3 ]; then
  machu tournament --agents "$agent,ppo-3p,gold" --players 3 --games 1002 --workers 2 --seed 11 \
      --no-progress --out "runs/strength/${name}_vs_ppo-3p_gold" \
      > "runs/strength/${name}_vs_ppo-3p_gold.log" 2>&1
  exit 0
fi
for rival in ppo-2p ppo-2p-race gold; do
  machu tournament --agents "$agent,$rival" --players 2 --games 1000 --workers 2 --seed 11 \
      --no-progress --out "runs/strength/${name}_vs_$rival" > "runs/strength/${name}_vs_$rival.log" 2>&1
done
