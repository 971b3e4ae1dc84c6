# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
# Shared steps of the regularised-PPO sweeps (iig_round2.sh, iig_round3.sh, iig_league.sh):
# source it from the repository root; THREADS (default 1) is each command's torch thread count.

iig_frozen() {  # iig_frozen CANDIDATE_RUN: the round-2 pool of frozen exploiters, comma-separated
  local cand="$1" race=research/results/race p r s
  local frozen="policy:$cand/full_probe_argmax/exploiter.safetensors"  # the candidate's four
  for p in full_probe_argmax_s102 full_probe_sampled_s100 full_probe_sampled_s102; do
    frozen="$frozen,policy:$cand/$p/exploiter.safetensors"
  done
  for r in v4 v5; do  # (the v6 and v7 rounds' exploiters read another observation size)
    for s in 100 102; do frozen="$frozen,policy:$race/race_${r}_s$s/exploiter.safetensors"; done
  done
  echo "$frozen"
}

iig_screen() {  # iig_screen RUN: short probes in both play modes, 400 games per rival, screen.json
  local run="$1" a="policy:$1/latest.safetensors" mode flag rival
  for mode in argmax sampled; do
    flag=""; [ "$mode" = sampled ] && flag="--sampled"
    machu exploit --agent "$a" --players 2 --steps 300000 --seed 100 --eval-games 500 \
        --threads "${THREADS:-1}" $flag --out "$run/probe_$mode" >> "$run.log" 2>&1
  done
  for rival in ppo-2p-race gold; do
    machu tournament --agents "$a,$rival" --players 2 --games 400 --workers 1 --seed 11 \
        --no-progress --out "$run/vs_$rival" >> "$run.log" 2>&1
  done
  python research/sweeps/iig_summary.py "$run" > "$run/screen.json"
}

iig_full_probe() {  # iig_full_probe AGENT DIR SEED MODE: 1.5M steps, 2,000 games, 198 read games
  local agent="$1" dir="$2" seed="$3" flag=""
  [ "$4" = sampled ] && flag="--sampled"
  [ -f "$dir/summary.json" ] && return 0
  machu exploit --agent "$agent" --players 2 --steps 1500000 --seed "$seed" --eval-games 2000 \
      --threads "${THREADS:-1}" $flag --out "$dir" > "$dir.log" 2>&1
  machu tournament --agents "$agent,policy:$dir/exploiter.safetensors" --players 2 --games 198 \
      --workers 1 --seed 7 --records --no-progress --out "$dir/games" >> "$dir.log" 2>&1
  machu analyze "$dir/games/records" --out "$dir/games/analysis" >> "$dir.log" 2>&1
}
