#!/usr/bin/env bash
# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# Round 3 of the regularised-PPO screen (after iig_round2.sh).
# 1. The magnet and frozen-pool variants for the other two of the screen's best three recipes
#    (clip 0.05 / entropy 0.01, clip 0.2 / entropy 0.05), screened like round 2 (short probes
#    of 300k steps and 500 games in both play modes, 400 games against each rival).
# 2. Every screened candidate's strength on 1,000 games against ppo-2p-race and against gold
#    (the screen used 400): strength_RIVAL/ beside each run.
#   usage: iig_round3.sh [SWEEP (runs/iig_2p)]   THREADS=... (default 1)
set -e
cd "$(dirname "$0")/../.."
out="${1:-runs/iig_2p}"; threads="${THREADS:-1}"
cand="$out/clip0.1_ent0.01"

source research/sweeps/iig_lib.sh
frozen="$(iig_frozen "$cand")"  # the same pool as round 2

variant() {  # variant NAME CLIP ENT FLAGS...
  local name="$1" clip="$2" ent="$3"; shift 3
  local run="$out/round3_$name"
  [ -f "$run/screen.json" ] && return 0
  mkdir -p "$run"
  machu train --players 2 --init ppo-2p-race --observation 2 --timesteps 1000000 --seed 1 \
      --threads "$threads" --clip-range "$clip" --ent-coef "$ent" \
      --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 \
      --snapshot-every 250000 --eval-every 1000000 --eval-games 200 --eval-opponents gold \
      --out "$run" "$@" > "$run.log" 2>&1
  iig_screen "$run"
}
variant c0.05_magnet 0.05 0.01 --magnet-coef 0.05 --magnet-every 20
variant c0.2e0.05_magnet 0.2 0.05 --magnet-coef 0.05 --magnet-every 20
variant c0.05_frozen 0.05 0.01 --frozen "$frozen" --exploiter-share 0.5
variant c0.2e0.05_frozen 0.2 0.05 --frozen "$frozen" --exploiter-share 0.5

for run in "$out"/*/; do
  run="${run%/}"
  [ -f "$run/screen.json" ] || continue
  for rival in ppo-2p-race gold; do
    [ -f "$run/strength_$rival/summary.json" ] && continue
    machu tournament --agents "policy:$run/latest.safetensors,$rival" --players 2 --games 1000 \
        --workers 1 --seed 11 --no-progress --out "$run/strength_$rival" \
        > "$run/strength_$rival.log" 2>&1
  done
done
python research/sweeps/iig_summary.py --table "$out"
