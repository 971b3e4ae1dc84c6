#!/usr/bin/env bash
# The strength ladder with 2, 4, 8 and 16 cores and with the GPU, in one run on a lent accelerator
# machine (16 cores, one GPU): `machu train --players 2` with the defaults (evaluations of 400
# games against gold and the shipped ladder every 1M steps) for MINUTES of wall-clock each, the
# time to each rung reported by benchmarks/time_to_strength.py --ladder.
#   usage: bash benchmarks/cores_ladder.sh OUT_FOLDER [MINUTES] [recipe]
# With a third argument `recipe`, the recipe best-2p on the whole machine follows the GPU runs
# (`machu train --recipe best-2p --device cuda`: its many-cores class, 1,024 games x 16 steps;
# MINUTES x 3, as its first evaluation is at 3M steps), for the time from scratch to each rung.
# The budget of such a lease (15 minutes, start-up included) fits 6 runs only if three of them share
# the machine: 16 threads first (its unmeasured warm-up compiles numba's kernels), then 16 threads
# with the GPU (--device cuda), the same with 4 rollout workers, then 2, 4 and 8 threads at once, each pinned by taskset to cores of
# its own (0-1, 2-5, 6-13). Installs nothing from the network: the packages the
# GPU image lacks come as wheels in .whl/, machu-env itself too (`pip wheel --no-deps -w .whl .`,
# see benchmarks/cuda_time_to_strength.sh). Each run writes its own JSON under OUT_FOLDER,
# the runs' logs in OUT_FOLDER/cores_ladder_logs.tar.gz.
set -eo pipefail
out="$(realpath "${1:?give an output folder}")"; minutes="${2:-1.5}"; repo="$(pwd)"
logs="$(mktemp -d)"; trap 'tar -czf "$out/cores_ladder_logs.tar.gz" -C "$logs" .' EXIT
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
cd /tmp
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
python3 -c "import torch, numba, numpy; print(torch.__version__, numba.__version__, numpy.__version__, torch.cuda.is_available())"
ladder() {  # NAME FLAGS [CORES]: one setting's ladder run, pinned to CORES where given
    local pin=()
    if [ -n "$3" ] && command -v taskset >/dev/null; then pin=(taskset -c "$3"); fi
    "${pin[@]}" python3 "$repo/benchmarks/time_to_strength.py" --ladder --minutes "$minutes" \
        --seeds 1 --players 2 --peer '' --final-games 400 --out "$out" \
        --name "cores_ladder_$1.json" --setting "$1=--timesteps 500000000 --eval-every 1000000 $2" \
        > "$logs/$1.log" 2>&1
}
date -u +"start %F %T UTC"
ladder threads16 "--threads 16 --device cpu"
date -u +"16 threads done %T"
ladder gpu_threads16 "--threads 16 --device cuda"
date -u +"16 threads and the GPU done %T"
ladder gpu_workers4 "--threads 16 --device cuda --rollout-workers 4"
date -u +"16 threads, the GPU and 4 rollout workers done %T"
if [ "${3:-}" = recipe ]; then
    python3 "$repo/benchmarks/time_to_strength.py" --ladder \
        --minutes "$(python3 -c "print(3 * $minutes)")" --seeds 1 --players 2 --peer '' \
        --final-games 400 --out "$out" --name cores_ladder_recipe.json \
        --setting "recipe=--recipe best-2p --threads 16 --device cuda" \
        > "$logs/recipe.log" 2>&1
    date -u +"the recipe on the whole machine done %T"
fi
ladder threads2 "--threads 2 --device cpu" 0-1 & a=$!
ladder threads4 "--threads 4 --device cpu" 2-5 & b=$!
ladder threads8 "--threads 8 --device cpu" 6-13 & c=$!
wait $a $b $c
date -u +"done %T"
