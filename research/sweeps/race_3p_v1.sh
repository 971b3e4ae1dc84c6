#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 for 3 players: ppo-3p on observation v2 (its input widened with zero
# weights), league exploiters that face two copies of the main agent's deterministic play, the
# probe's frozen exploiter (ppo3p_s100: it wins by the gold majority) and the compiled racer in
# the pool
set -e
cd "$(dirname "$0")/../.."
R=research/results
machu train --players 3 --init ppo-3p --observation 2 --timesteps "${STEPS:-2000000}" \
    --seed 9 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 500000 \
    --exploiter-share 0.6 --max-exploiters 2 --exploit-greedy \
    --frozen "policy:$R/race/ppo3p_s100/exploiter.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_3p_v1}"
