#!/usr/bin/env bash
# The wheels a lent GPU machine needs to run benchmarks/cores_ladder.sh, built here into .whl/
# (that machine reaches no package registry; its image holds Python 3.12, torch, numba, numpy,
# matplotlib, scipy, tensorboard, typer, rich, tqdm, safetensors, pillow and cloudpickle):
# machu-env itself (`pip wheel --no-deps`) and the packages the image lacks, for CPython 3.12
# on manylinux x86-64, with no dependencies of their own pulled in (each one named here).
#   usage: bash benchmarks/device_wheels.sh [FOLDER]        (default .whl; about 10 MB)
# Then carry the folder with the run: `run(command="bash benchmarks/cores_ladder.sh ...",
# carry=[".whl"])`. PYTHON_VERSION=3.11 builds them for this machine's Python instead (the
# bare-venv check of tests/project/test_device_script.py).
set -eo pipefail
folder="${1:-.whl}"; version="${PYTHON_VERSION:-3.12}"
# (a folder of its own: one this script made, marked, is emptied of its wheels; any other that
# holds anything is refused, never touched)
if [ -e "$folder" ] && [ ! -f "$folder/.device-wheels" ] \
        && [ -n "$(find "$folder" -mindepth 1 -print -quit)" ]; then
    echo "device_wheels: $folder is not a folder this script made; name a new folder" >&2; exit 2
fi
mkdir -p "$folder"; rm -f "$folder"/*.whl; touch "$folder/.device-wheels"
python3 -m pip wheel -q --no-deps -w "$folder" .
# each at the version this environment has (the one the tests ran against), else the newest
pins=()
for spec in 'gymnasium>=1.0' farama-notifications 'pettingzoo>=1.24' 'openskill>=5' \
        'resvg-py>=0.2' 'stable-baselines3>=2.3' 'sb3-contrib>=2.3'; do
    name="${spec%%>=*}"
    have="$( (python3 -m pip show "$name" 2>/dev/null || true) | sed -n 's/^Version: //p')"
    pins+=("${have:+$name==$have}"); [ -n "$have" ] || pins[-1]="$spec"
done
# (their own needs, farama-notifications aside, are in the image)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$version" \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$folder" "${pins[@]}"
echo "$(du -sh "$folder" | cut -f1) of wheels in $folder:"; ls "$folder"
