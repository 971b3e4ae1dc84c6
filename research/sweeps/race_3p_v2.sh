#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 for 3 players, round 2 with the history summary: ppo-3p-race (round 1) on
# observation v3 (its input widened with zero weights), its own probes' exploiters (seeds 100
# and 102) and round 1's league exploiter frozen beside the first probe's, league exploiters
# against two copies of the main agent, the racer in the pool
set -e
cd "$(dirname "$0")/../.."
R=research/results
machu train --players 3 --init ppo-3p-race --observation 3 --timesteps "${STEPS:-2000000}" \
    --seed 11 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 500000 \
    --exploiter-share 0.6 --max-exploiters 2 --exploit-greedy \
    --frozen "policy:$R/race/race3p_v1_s100/exploiter.safetensors,policy:$R/race/race3p_v1_s102/exploiter.safetensors,policy:$R/race/race_3p_v1/exploiter_1m.safetensors,policy:$R/race/ppo3p_s100/exploiter.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_3p_v2}"
