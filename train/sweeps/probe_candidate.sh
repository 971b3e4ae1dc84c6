#!/usr/bin/env bash
# issue #36 step 4: the project's probe of a 2-player candidate on two exploiter seeds (warm
# 1.5M steps, 2,000 games each, run side by side with one thread each), the recorded games of
# the first exploiter against it and their analysis, then its strength (1,000 games each
# against ppo-2p, ppo-2p-race and gold).   usage: probe_candidate.sh NAME AGENT_FILE
set -e
cd "$(dirname "$0")/../.."
name="$1"; agent="policy:$2"
for seed in 100 102; do
  machu exploit --agent "$agent" --players 2 --steps 1500000 --seed "$seed" --threads 1 \
      --eval-games 2000 --out "runs/probes/${name}_s$seed" > "runs/probes/${name}_s$seed.log" 2>&1 &
done
wait
machu tournament --agents "$agent,policy:runs/probes/${name}_s100/exploiter.safetensors" \
    --players 2 --games 198 --workers 2 --seed 7 --records --no-progress \
    --out "runs/analyze/${name}_s100" > "runs/analyze/${name}_s100.log" 2>&1
machu analyze "runs/analyze/${name}_s100/records" --out "runs/analyze/${name}_s100/analysis" \
    >> "runs/analyze/${name}_s100.log" 2>&1
for rival in ppo-2p ppo-2p-race gold; do
  machu tournament --agents "$agent,$rival" --players 2 --games 1000 --workers 2 --seed 11 \
      --no-progress --out "runs/strength/${name}_vs_$rival" > "runs/strength/${name}_vs_$rival.log" 2>&1
done
