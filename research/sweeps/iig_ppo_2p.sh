#!/usr/bin/env bash
# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# The regularised-PPO recipe of Rudolph et al. (ICLR 2026) screened on 2 players: clip range
# {0.05, 0.1, 0.2} x constant entropy {0.01, 0.05, 0.1}, magnet off, each warm-started from
# ppo-2p-race (observation v2) for the same STEPS (default 1,000,000) against the race pool;
# then a short probe of each in both play modes (argmax, and sampled at temperature 1:
# 300k-step warm exploiters, 500 games, seed 100) and 400 games against ppo-2p-race and gold.
#   usage: iig_ppo_2p.sh [OUT (runs/iig_2p)]        STEPS=... THREADS=... to change them
set -e
cd "$(dirname "$0")/../.."
out="${1:-runs/iig_2p}"; steps="${STEPS:-1000000}"; threads="${THREADS:-2}"
mkdir -p "$out"
for clip in 0.05 0.1 0.2; do
  for ent in 0.01 0.05 0.1; do
    run="$out/clip${clip}_ent${ent}"
    [ -f "$run/screen.json" ] && continue  # (a run of an interrupted sweep is kept)
    machu train --players 2 --init ppo-2p-race --observation 2 --timesteps "$steps" --seed 1 \
        --threads "$threads" --clip-range "$clip" --ent-coef "$ent" \
        --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 \
        --snapshot-every 250000 --eval-every "$steps" --eval-games 200 --eval-opponents gold \
        --out "$run" > "$run.log" 2>&1
    agent="policy:$run/latest.safetensors"
    machu exploit --agent "$agent" --players 2 --steps 300000 --seed 100 --eval-games 500 \
        --threads "$threads" --out "$run/probe_argmax" >> "$run.log" 2>&1
    machu exploit --agent "$agent" --players 2 --steps 300000 --seed 100 --eval-games 500 \
        --threads "$threads" --sampled --out "$run/probe_sampled" >> "$run.log" 2>&1
    for rival in ppo-2p-race gold; do
      machu tournament --agents "$agent,$rival" --players 2 --games 400 --workers 1 --seed 11 \
          --no-progress --out "$run/vs_$rival" >> "$run.log" 2>&1
    done
    python research/sweeps/iig_summary.py "$run" > "$run/screen.json"
  done
done
python research/sweeps/iig_summary.py --table "$out"
