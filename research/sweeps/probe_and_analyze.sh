#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36 step 1: today's probes and the records of each exploiter against its agent
set -e
cd /work/main
. .venv/bin/activate
probe() {  # name agent players
  machu exploit --agent "$2" --players "$3" --steps 1500000 --seed 100 --threads 1 \
      --eval-games 2000 --out "runs/probes/$1" > "runs/probes/$1.log" 2>&1
  seats="$2,policy:runs/probes/$1/exploiter.safetensors"
  [ "$3" = 3 ] && seats="$2,$2,policy:runs/probes/$1/exploiter.safetensors"
  machu tournament --agents "$seats" --players "$3" --games 198 --workers 1 --seed 7 \
      --records --no-progress --out "runs/analyze/$1" > "runs/analyze/$1.log" 2>&1
  machu analyze "runs/analyze/$1/records" --out "runs/analyze/$1/analysis" >> "runs/analyze/$1.log" 2>&1
}
probe "$1" "$2" "$3"
