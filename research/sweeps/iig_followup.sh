#!/usr/bin/env bash
# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# After iig_ppo_2p.sh: the same short probe of ppo-2p-race itself (the baseline of the screen,
# both play modes), then the full probe of the chosen candidate (1.5M steps, 2,000 games, seed
# 100, argmax: the agent as it would be shipped) and the analysis of its exploiter's games.
#   usage: iig_followup.sh CANDIDATE_RUN [OUT (runs/iig_2p)]
set -e
cd "$(dirname "$0")/../.."
run="$1"; out="${2:-runs/iig_2p}"
for mode in argmax sampled; do
  flag=""; [ "$mode" = sampled ] && flag="--sampled"
  machu exploit --agent ppo-2p-race --players 2 --steps 300000 --seed 100 --eval-games 500 \
      --threads 1 $flag --out "$out/baseline/probe_$mode" > "$out/baseline_$mode.log" 2>&1 &
done
wait
agent="policy:$run/latest.safetensors"
machu exploit --agent "$agent" --players 2 --steps 1500000 --seed 100 --eval-games 2000 \
    --threads 1 --out "$run/full_probe_argmax" > "$run/full_probe.log" 2>&1
machu tournament --agents "$agent,policy:$run/full_probe_argmax/exploiter.safetensors" \
    --players 2 --games 198 --workers 1 --seed 7 --records --no-progress \
    --out "$run/full_probe_games" >> "$run/full_probe.log" 2>&1
machu analyze "$run/full_probe_games/records" --out "$run/full_probe_games/analysis" \
    >> "$run/full_probe.log" 2>&1
