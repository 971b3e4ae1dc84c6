#!/usr/bin/env bash
# Reproduces research/log.md, "The path to training" (2026-12-07).
# A new user's route to a trained agent, timed: a fresh clone and venv, the training-only
# install (CPU torch, then the `train` extra), then the first command of docs/training.md with
# an empty numba cache (its compile time included). Writes OUT/first_run.json.
#
#   bash research/sweeps/first_run.sh OUT [REPO]
#
# TORCH_INDEX (optional): an extra pip index for torch (a stock machine: PyTorch's CPU index,
# https://download.pytorch.org/whl/cpu); pip's own cache is used as the machine has it.
set -euo pipefail
out="$(realpath -m "${1:?usage: first_run.sh OUT [REPO]}")"
repo="$(realpath "${2:-.}")"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"
t0=$(date +%s.%N)
git clone -q "$repo" "$work/clone"
cd "$work/clone"
python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
pip install -q torch==2.13.0 ${TORCH_INDEX:+--extra-index-url "$TORCH_INDEX"}
pip install -q -e '.[train]'
t1=$(date +%s.%N)
export MACHU_ENV_CACHE_DIR="$work/numba-cache"
machu train --players 2 --stop-at 0.95 --eval-opponents gold --out "$work/run" \
    | tee "$out/first_run.log"
t2=$(date +%s.%N)
python - "$out/first_run.json" "$t0" "$t1" "$t2" "$started" "$load_before" <<'EOF'
import json, os, platform, sys
path, t0, t1, t2, started, load = sys.argv[1], *map(float, sys.argv[2:5]), *sys.argv[5:7]
fields = {}
for line in open("/proc/cpuinfo"):
    key, _, value = line.partition(":")
    fields.setdefault(key.strip(), value.strip())
summary = json.load(open(os.environ["MACHU_ENV_CACHE_DIR"] + "/../run/summary.json"))
row = {"command": "bash research/sweeps/first_run.sh", "started": started,
       "cpu": f"{fields.get('model name')}, family {fields.get('cpu family')} model "
              f"{fields.get('model')}", "cores": os.cpu_count(), "python": platform.python_version(),
       "load_before": load, "load_after": open("/proc/loadavg").read().split()[:3],
       "install_seconds": round(t1 - t0, 1), "train_seconds": round(t2 - t1, 1),
       "total_seconds": round(t2 - t0, 1), "timesteps": summary.get("timesteps"),
       "final_eval": summary.get("final_eval")}
with open(path, "x") as f:
    json.dump(row, f, indent=2)
print(f"install {row['install_seconds']:.0f} s, first training run {row['train_seconds']:.0f} s, "
      f"{row['total_seconds'] / 60:.1f} min in all; wrote {path}")
EOF
