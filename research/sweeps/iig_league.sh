#!/usr/bin/env bash
# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# Round 4 of the regularised-PPO screen: the shipped recipe (clip 0.1, entropy 0.01) as a league.
# The candidate (ppo-2p-reg's run) trains 3M steps more while every 500k steps an exploiter is
# trained 500k steps against its current policy played argmax (as it plays when shipped) and
# joins the pool, sharing half of the self weight; `league_frozen` also keeps round 2's eight
# frozen exploiters there. Each run is screened like rounds 2-3 (iig_lib.sh: iig_screen).
#   usage: iig_league.sh [SWEEP (runs/iig_2p)]   THREADS=... (default 1)
set -e
cd "$(dirname "$0")/../.."
out="${1:-runs/iig_2p}"; threads="${THREADS:-1}"
cand="$out/clip0.1_ent0.01"
source research/sweeps/iig_lib.sh

variant() {  # variant NAME FLAGS...
  local name="$1" run="$out/round4_$1"; shift
  [ -f "$run/screen.json" ] && return 0
  mkdir -p "$run"
  machu train --players 2 --init "policy:$cand/latest.safetensors" --observation 2 \
      --timesteps 3000000 --seed 1 --threads "$threads" --clip-range 0.1 --ent-coef 0.01 \
      --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 \
      --league --exploit-greedy --exploiter-every 500000 --exploiter-steps 500000 \
      --exploiter-share 0.5 --max-exploiters 6 \
      --snapshot-every 250000 --eval-every 1000000 --eval-games 200 --eval-opponents gold \
      --out "$run" "$@" > "$run.log" 2>&1
  iig_screen "$run"
}
variant league
variant league_frozen --frozen "$(iig_frozen "$cand")"
python research/sweeps/iig_summary.py --table "$out"
