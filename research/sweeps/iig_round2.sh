#!/usr/bin/env bash
# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# Round 2 of the regularised-PPO screen (after iig_ppo_2p.sh and iig_followup.sh).
# 1. The chosen candidate confirmed: full probes (1.5M steps, 2,000 games) on a second exploiter
#    seed (102, argmax) and sampled at temperature 1 (seeds 100 and 102); each exploiter's games
#    read with `machu analyze`; 1,000 games against ppo-2p-race and against gold.
# 2. Three variants of its recipe (clip 0.1, entropy 0.01), each screened like the first round:
#    `frozen`: the candidate's four exploiters and those of gold-race rounds v4 and v5 (both
#    seeds) in the pool; `magnet`: a KL of 0.05 toward a magnet reset every 20 updates; `long`: the
#    candidate trained 2M steps further (3M in all).
#   usage: iig_round2.sh [CANDIDATE_RUN (runs/iig_2p/clip0.1_ent0.01)] [OUT (runs/iig_2p)]
#   THREADS=... (default 1)
set -e
cd "$(dirname "$0")/../.."
cand="${1:-runs/iig_2p/clip0.1_ent0.01}"; out="${2:-runs/iig_2p}"; threads="${THREADS:-1}"
agent="policy:$cand/latest.safetensors"

source research/sweeps/iig_lib.sh
full_probe() { iig_full_probe "$agent" "$cand/full_probe_${2}_s$1" "$1" "$2"; }
full_probe 102 argmax
full_probe 100 sampled
full_probe 102 sampled
for rival in ppo-2p-race gold; do
  [ -f "$cand/strength_$rival/summary.json" ] && continue
  machu tournament --agents "$agent,$rival" --players 2 --games 1000 --workers 1 --seed 11 \
      --no-progress --out "$cand/strength_$rival" > "$cand/strength_$rival.log" 2>&1
done

frozen="$(iig_frozen "$cand")"
variant() {  # variant NAME INIT STEPS FLAGS...
  local name="$1" init="$2" steps="$3"; shift 3
  local run="$out/round2_$name"
  [ -f "$run/screen.json" ] && return 0
  mkdir -p "$run"
  machu train --players 2 --init "$init" --observation 2 --timesteps "$steps" --seed 1 \
      --threads "$threads" --clip-range 0.1 --ent-coef 0.01 \
      --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 \
      --snapshot-every 250000 --eval-every "$steps" --eval-games 200 --eval-opponents gold \
      --out "$run" "$@" > "$run.log" 2>&1
  iig_screen "$run"
}
variant frozen ppo-2p-race 1000000 --frozen "$frozen" --exploiter-share 0.5
variant magnet ppo-2p-race 1000000 --magnet-coef 0.05 --magnet-every 20
variant long "$agent" 2000000
python research/sweeps/iig_summary.py --table "$out"
