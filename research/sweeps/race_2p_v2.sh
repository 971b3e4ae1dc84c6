#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, steps 2-3: the 2-player agent on observation v2 (the race for the gold majority),
# warm-started from ppo-2p (its input widened with zero weights), league training whose
# exploiters face the main agent's deterministic play (as the probe does)
set -e
cd "$(dirname "$0")/../.."
machu train --players 2 --init ppo-2p --observation 2 --timesteps "${STEPS:-6000000}" --seed 3 \
    --threads 1 --league --exploiter-every 1000000 --exploiter-steps 750000 \
    --exploiter-share 0.6 --max-exploiters 4 --exploit-greedy \
    --pool random:0.05,builder:0.1,gold:0.25,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 400 --out "${OUT:-runs/race_2p_v2}"
