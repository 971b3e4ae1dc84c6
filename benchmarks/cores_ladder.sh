#!/usr/bin/env bash
# Training speed by cores and the time to each rung of the strength ladder, in one command on a
# bare lent machine (16 cores and a GPU; fewer cores and no GPU work too): steps/s of
# `machu train --players 2` at its defaults on 2, 4, 8 and 16 cores (each run pinned by taskset
# to cores of its own, its threads as many as its cores) and on the whole machine with the GPU,
# then the whole machine (with the GPU where there is one) from scratch for LADDER_MINUTES, with
# the time to each rung (`gold`, `ppo-2p-v1`, `ppo-2p`, ...; benchmarks/time_to_strength.py).
#   usage: bash benchmarks/cores_ladder.sh OUT_FOLDER
#   settings (environment): SPEED_MINUTES (0.75: each steps/s run), LADDER_MINUTES (5),
#   EVAL_EVERY (1000000: the ladder run's steps between evaluations of 400 games a rung),
#   CORES ("2 4 8 16", those over the machine's count left out), SITE (/tmp/site), WORK (a
#   new folder for the runs' own folders; default a fresh one under /tmp)
# Installs nothing from the network: the packages the GPU image lacks and machu-env itself come
# as wheels in .whl/ (bash benchmarks/device_wheels.sh builds them here; carry .whl), installed
# with pip --no-index into SITE. Numba's cache goes to /tmp/machu-numba. The runs share no
# cores, so none is oversubscribed: 2, 4 and 8 cores at once (on 14 of 16), then 16 alone.
# Its plan at the defaults: compiling (116 s on 2 cores beside two training runs), three
# steps/s rounds of SPEED_MINUTES, LADDER_MINUTES with the ladder run's imitation, start and final
# evaluations: under 9 minutes where those take under 2 (not yet timed on a 16-core machine).
# Writes three files to OUT_FOLDER (a lent machine sends back a few files only):
# cores_ladder.json (the figures, the machine, the commands), cores_ladder_rungs.json (the
# ladder run's history) and cores_ladder_logs.tar.gz; the runs' own folders stay in WORK.
set -eo pipefail
out="$(realpath -m "${1:?give an output folder}")"; repo="$(cd "$(dirname "$0")/.." && pwd)"
speed="${SPEED_MINUTES:-0.75}"; ladder_minutes="${LADDER_MINUTES:-5}"
site="${SITE:-/tmp/site}"
# the cores this process may use (nproc would obey OMP_NUM_THREADS)
cores_total="$(python3 -c "import os; print(len(os.sched_getaffinity(0)))")"
if [ -n "$WORK" ]; then  # (a folder of its own: a WORK that exists is refused, never emptied)
    mkdir "$WORK" || { echo "cores_ladder: WORK=$WORK exists; name a new folder" >&2; exit 2; }
    work="$WORK"
else
    work="$(mktemp -d /tmp/cores_ladder.XXXXXX)"
fi
mkdir -p "$out" "$work/logs"
trap 'tar -czf "$out/cores_ladder_logs.tar.gz" -C "$work" logs' EXIT
export PYTHONUNBUFFERED=1 NUMBA_CACHE_DIR=/tmp/machu-numba
say() { echo "cores_ladder: $*"; }
if [ -d "$repo/.whl" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "$repo"/.whl/*.whl
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
cd /tmp  # (so that `import machu_env` is the installed package, not the checkout)
python3 -c "import machu_env" || { say "machu_env is not importable: build the wheels with \
bash benchmarks/device_wheels.sh and carry .whl"; exit 2; }
gpu="$(python3 -c 'import torch; print(int(torch.cuda.is_available()))')"
say "$cores_total cores, GPU: $([ "$gpu" = 1 ] && nvidia-smi --query-gpu=name \
    --format=csv,noheader 2>/dev/null || echo none); started $(date -u +%T) UTC"
t0=$(date +%s)
python3 -m machu_env.cli warmup > "$work/logs/warmup.log" 2>&1
say "compiled in $(( $(date +%s) - t0 )) s"

speed_run() {  # NAME CORES DEVICE FIRST_CORE: one run of SPEED_MINUTES, no evaluations
    local last=$(( $4 + $2 - 1 ))
    taskset -c "$4-$last" python3 -m machu_env.cli train --players 2 --threads "$2" \
        --device "$3" --minutes "$speed" --imitate '' --eval-every 1000000000 \
        --eval-games 1 --eval-opponents gold --out "$work/$1" > "$work/logs/$1.log" 2>&1
}
pids=(); first=0; names=()
for c in ${CORES:-2 4 8 16}; do
    if [ "$c" -ge "$cores_total" ] || [ $(( first + c )) -gt "$cores_total" ]; then continue; fi
    speed_run "cpu$c" "$c" cpu "$first" & pids+=($!); names+=("cpu$c"); first=$(( first + c ))
done
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
speed_run "cpu$cores_total" "$cores_total" cpu 0; names+=("cpu$cores_total")
if [ "$gpu" = 1 ]; then speed_run "gpu$cores_total" "$cores_total" cuda 0; names+=("gpu$cores_total"); fi
say "steps/s runs done $(date -u +%T) UTC"

device="$([ "$gpu" = 1 ] && echo cuda || echo cpu)"
python3 "$repo/benchmarks/time_to_strength.py" --ladder --minutes "$ladder_minutes" --seeds 1 \
    --players 2 --peer '' --final-games 400 --out "$out" --name cores_ladder_rungs.json \
    --setting "whole=--threads $cores_total --device $device --timesteps 500000000 \
--eval-every ${EVAL_EVERY:-1000000}" > "$work/logs/ladder.log" 2>&1
say "ladder done $(date -u +%T) UTC"
python3 "$repo/benchmarks/cores_ladder_summary.py" "$out" "$work" "${names[@]}"
