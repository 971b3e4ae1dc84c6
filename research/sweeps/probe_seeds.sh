#!/usr/bin/env bash
# Reproduces research/log.md, "One probe figure per agent" (2026-12-07).
# The catalogue's probe protocol for one agent: `machu exploit`, 1.5M steps, 2,000 evaluation
# games, one thread, on each of the protocol's seeds (train/probe/probe_verdict.py:
# PROTOCOL_SEEDS), one after another (JOBS at a time); a seed already probed in OUT is kept.
#   usage: probe_seeds.sh AGENT PLAYERS OUT [SEED ...]
#   e.g.   JOBS=1 bash research/sweeps/probe_seeds.sh ppo-4p 4 runs/probes/ppo-4p
# Then `python research/sweeps/probe_catalogue.py NAME OUT` writes the mean into the catalogue.
set -euo pipefail
agent="$1"; players="$2"; out="$3"; shift 3
seeds="${*:-$(python -c 'from machu_env.train.probe.probe_verdict import PROTOCOL_SEEDS as s
print(*s)')}"
jobs="${JOBS:-1}"
mkdir -p "$out"
export NUMBA_NUM_THREADS=1
running=0
for seed in $seeds; do
  [ -f "$out/s$seed/summary.json" ] && continue
  rm -rf "$out/s$seed"  # (an interrupted probe: its folder holds no summary, start it again)
  machu exploit --agent "$agent" --players "$players" --steps 1500000 --seed "$seed" \
    --threads 1 --eval-games 2000 --out "$out/s$seed" > "$out/s$seed.log" 2>&1 &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
for seed in $seeds; do
  python -c "import json,sys; s=json.load(open(sys.argv[1])); print(sys.argv[2], \
f\"{s['exploiter_win_share']:.2%}\", f\"{s['exploiter_margin']:+.1f}\")" \
    "$out/s$seed/summary.json" "seed $seed"
done
