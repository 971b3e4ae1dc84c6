#!/usr/bin/env bash
# The time-to-strength benchmark on a CUDA machine: `machu train --players 2` with the defaults
# on the GPU (`--device cuda`) beside the same machine's CPU (`--device cpu`), three seeds each,
# evaluations of 400 games every 65,536 steps (as the lever table of docs/training.md).
#   usage: bash benchmarks/cuda_time_to_strength.sh OUT_FOLDER
# Installs nothing from the network: the packages the GPU image lacks come as wheels in .whl/
# (gymnasium, pettingzoo, openskill, resvg-py, stable-baselines3, sb3-contrib) and machu-env
# itself (`pip wheel --no-deps -w .whl .`). It runs from outside the checkout, so that
# `import machu_env` finds the installed package.
set -eo pipefail
out="$(realpath "${1:?give an output folder}")"; repo="$(pwd)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd /tmp
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch, numba, numpy; print(torch.__version__, numba.__version__, numpy.__version__, torch.cuda.get_device_name(0))"
python3 "$repo/benchmarks/time_to_strength.py" --seeds 1,2,3 --timesteps 1500000 \
    --eval-every 65536 --peer '' --out "$out" --name time_to_strength_cuda.json \
    --setting cuda='--device cuda' --setting cpu='--device cpu'
