#!/usr/bin/env bash
# Reproduces docs/integrations.md's behaviour-cloning figure (2026-11-25).
# issue #38, item 4: behaviour cloning of ppo-2p from a machu dataset of its self-play games,
# evaluated over 1,000 games against gold (examples/bc_from_dataset.py; the integrations extra)
set -e
cd "$(dirname "$0")/../.."
machu dataset --agents ppo-2p --players 2 --games "${GAMES:-2000}" --seed 0 --name ppo2p \
    --out runs/bc/data --threads 1 --no-progress > runs/bc/dataset.json
python examples/bc_from_dataset.py --data runs/bc/data --eval-games 1000 --epochs 6 \
    --save runs/bc/clone.safetensors
