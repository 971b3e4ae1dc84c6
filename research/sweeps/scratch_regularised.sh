#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26, item 1, as in Sokota et al. 2022: regularised self-play from fresh weights (not a
# fine-tune of ppo-2p-v2): a large entropy bonus (Rudolph et al. 2025: 0.05-0.2) and the fast
# magnet (MMD's reverse KL to a recent copy of the policy) over STEPS learner steps, then the
# probe; the run and probe of research/sweeps/long_regularised.sh otherwise.
#   bash research/sweeps/scratch_regularised.sh OUT SEED
set -euo pipefail
here=$(dirname "$0")
INIT="" REG="--ent-coef 0.05 --magnet-coef 0.1 --magnet-every 10" STEPS=${STEPS:-12000000} \
  exec bash "$here/long_regularised.sh" "${1:-runs/scratch_reg}" "${2:-3}"
