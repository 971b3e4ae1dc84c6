#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 (the history summary): race_2p_v5.sh with observation v3 (v2 followed by each
# seat's public decisions so far by kind): the same start (ppo-2p-race, its input widened with
# zero weights), pool, frozen exploiters and seed, so that the two runs differ by the history only
set -e
cd "$(dirname "$0")/../.."
R=research/results
machu train --players 2 --init "policy:${INIT:-machu_env/agents/checkpoints/ppo_2p_race.safetensors}" \
    --observation 3 --timesteps "${STEPS:-2000000}" \
    --seed 9 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 750000 \
    --exploiter-share 0.6 --max-exploiters 2 --exploit-greedy \
    --frozen "policy:$R/race/race_v4_s100/exploiter.safetensors,policy:$R/race/race_v4_s102/exploiter.safetensors,policy:$R/race/race_2p_v4/exploiter_1m.safetensors,policy:$R/race/race_v3_s100/exploiter.safetensors,policy:$R/race/race_v3_s102/exploiter.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_2p_v6}"
