#!/usr/bin/env bash
# issue #36 step 4, 3 players: the project's probe of a 3-player candidate on two exploiter seeds
# (warm 1.5M steps, the exploiter against two copies of the candidate, 2,000 games each, run
# side by side with one thread each), the recorded games of the first exploiter and their
# analysis, then its strength: 1,002 games of {candidate, ppo-3p, gold} (every seating).
#   usage: probe_candidate_3p.sh NAME AGENT_FILE
set -e
cd "$(dirname "$0")/../.."
name="$1"; agent="policy:$2"
mkdir -p runs/probes runs/analyze runs/strength
for seed in 100 102; do
  machu exploit --agent "$agent" --players 3 --steps 1500000 --seed "$seed" --threads 1 \
      --eval-games 2000 --out "runs/probes/${name}_s$seed" > "runs/probes/${name}_s$seed.log" 2>&1 &
done
wait
machu tournament --agents "$agent,$agent,policy:runs/probes/${name}_s100/exploiter.safetensors" \
    --players 3 --games 198 --workers 2 --seed 7 --records --no-progress \
    --out "runs/analyze/${name}_s100" > "runs/analyze/${name}_s100.log" 2>&1
machu analyze "runs/analyze/${name}_s100/records" --out "runs/analyze/${name}_s100/analysis" \
    >> "runs/analyze/${name}_s100.log" 2>&1
machu tournament --agents "$agent,ppo-3p,gold" --players 3 --games 1002 --workers 2 --seed 11 \
    --no-progress --out "runs/strength/${name}_vs_ppo-3p_gold" \
    > "runs/strength/${name}_vs_ppo-3p_gold.log" 2>&1
