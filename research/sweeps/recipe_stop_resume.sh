#!/usr/bin/env bash
# Reproduces research/log.md, "The path to training" (2026-12-07).
# A recipe stopped after STOP seconds (SIGTERM, as Ctrl-C stops it) and resumed: how much of its
# work the resume keeps (the line "resuming ... step N, M min into the run"). Writes
# OUT/stop_resume.json and the two logs (the resume runs 150 s: a compile may come first).
#   usage: recipe_stop_resume.sh OUT [RECIPE (best-2p)] [STOP (180)]
set -euo pipefail
out="$(realpath -m "${1:?usage: recipe_stop_resume.sh OUT [RECIPE] [STOP]}")"
recipe="${2:-best-2p}"; stop="${3:-180}"
mkdir -p "$out"
run="$(mktemp -d)/run"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
machu train --recipe "$recipe" --out "$run" > "$out/first.log" 2>&1 &
pid=$!
sleep "$stop"
kill -TERM "$pid"
wait "$pid" || true
timeout -s TERM 150 machu train --recipe "$recipe" --out "$run" --resume > "$out/resume.log" 2>&1 \
  || true
python - "$out" "$recipe" "$stop" "$started" <<'EOF'
import json, re, sys
out, recipe, stop, started = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
first, again = (open(f"{out}/{n}.log").read() for n in ("first", "resume"))
kept = re.search(r"kept the checkpoint at ([\d,]+) steps", first)
back = re.search(r"step ([\d,]+), ([\d.]+) min into the run", again)
info = {}
for line in open("/proc/cpuinfo"):
    key, _, value = line.partition(":")
    info.setdefault(key.strip(), value.strip())
cpu = f"{info.get('model name')}, family {info.get('cpu family')} model {info.get('model')}"
row = {"command": f"bash research/sweeps/recipe_stop_resume.sh OUT {recipe} {stop:g}",
       "started": started, "cpu": cpu, "stopped_after_seconds": stop,
       "kept_steps": int(kept.group(1).replace(",", "")) if kept else None,
       "resumed_at_steps": int(back.group(1).replace(",", "")) if back else None,
       "resumed_minutes_into_run": float(back.group(2)) if back else None}
json.dump(row, open(f"{out}/stop_resume.json", "x"), indent=2)
print(f"stopped after {stop:g} s; the resume went on from step {row['resumed_at_steps']}, "
      f"{row['resumed_minutes_into_run']} min into the run")
EOF
