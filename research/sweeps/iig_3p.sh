#!/usr/bin/env bash
# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# The regularised-PPO recipe of the 2-player screen for 3 players: ppo-3p-race (observation v2)
# fine-tuned 1M steps with clip 0.1 and a constant entropy of 0.01 (2 players' best), beside
# clip 0.05 (the 2-player runner-up); each screened by a short probe (300k steps, 500 games,
# both play modes) and by 1,002 games in {candidate, ppo-3p-race, gold} and 1,000 against two
# `gold`; the candidate with the lower short-probe win share (strength kept) gets the full
# probes: 1.5M steps, 2,000 games, seeds 100 and 102 argmax and seed 100 sampled, each
# exploiter's games read with `machu analyze`.
#   usage: iig_3p.sh [OUT (runs/iig_3p)]   THREADS=... (default 1)
set -e
cd "$(dirname "$0")/../.."
out="${1:-runs/iig_3p}"; threads="${THREADS:-1}"
mkdir -p "$out"

screen() {  # screen CLIP
  local run="$out/clip$1_ent0.01" a
  [ -f "$run/screen.json" ] && return 0
  mkdir -p "$run"
  machu train --players 3 --init ppo-3p-race --observation 2 --timesteps 1000000 --seed 1 \
      --threads "$threads" --clip-range "$1" --ent-coef 0.01 \
      --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 \
      --snapshot-every 250000 --eval-every 1000000 --eval-games 200 --eval-opponents gold \
      --out "$run" > "$run.log" 2>&1
  a="policy:$run/latest.safetensors"
  for mode in argmax sampled; do
    local flag=""; [ "$mode" = sampled ] && flag="--sampled"
    machu exploit --agent "$a" --players 3 --steps 300000 --seed 100 --eval-games 500 \
        --threads "$threads" $flag --out "$run/probe_$mode" >> "$run.log" 2>&1
  done
  machu tournament --agents "$a,ppo-3p-race,gold" --players 3 --games 1002 --workers 1 \
      --seed 11 --no-progress --out "$run/vs_ppo-3p-race" >> "$run.log" 2>&1
  machu tournament --agents "$a,gold,gold" --players 3 --games 1000 --workers 1 --seed 11 \
      --no-progress --out "$run/vs_gold" >> "$run.log" 2>&1
  python research/sweeps/iig_summary.py --players 3 "$run" > "$run/screen.json"
}

full_probe() {  # full_probe RUN SEED MODE
  local run="$1" seed="$2" mode="$3" dir="$1/full_probe_${3}_s$2" flag="" a="policy:$1/latest.safetensors"
  [ "$mode" = sampled ] && flag="--sampled"
  [ -f "$dir/games/analysis/analysis.json" ] && return 0
  machu exploit --agent "$a" --players 3 --steps 1500000 --seed "$seed" --eval-games 2000 \
      --threads "$threads" $flag --out "$dir" > "$dir.log" 2>&1
  machu tournament --agents "$a,$a,policy:$dir/exploiter.safetensors" --players 3 --games 198 \
      --workers 1 --seed 7 --records --no-progress --out "$dir/games" >> "$dir.log" 2>&1
  machu analyze "$dir/games/records" --out "$dir/games/analysis" >> "$dir.log" 2>&1
}

screen 0.1
screen 0.05
best=$(python research/sweeps/iig_summary.py --players 3 --best "$out")
full_probe "$best" 100 argmax
full_probe "$best" 102 argmax
full_probe "$best" 100 sampled
python research/sweeps/iig_summary.py --players 3 --table "$out"
