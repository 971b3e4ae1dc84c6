#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 (fourth round): round 3's agent (ppo-2p-race since round 3; its file is the
# shipped machu_env/agents/checkpoints file) trained on with the exploiters of its own probes added to the
# frozen pool (seeds 100 and 102: they win the gold majority through priests and summits), with
# round 3's league exploiter and the earlier rounds' probe exploiters
set -e
cd "$(dirname "$0")/../.."
R=research/results
machu train --players 2 --init "policy:${INIT:-machu_env/agents/checkpoints/ppo_2p_race.safetensors}" \
    --observation 2 --timesteps "${STEPS:-2000000}" \
    --seed 9 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 750000 \
    --exploiter-share 0.6 --max-exploiters 2 --exploit-greedy \
    --frozen "policy:$R/race/race_v4_s100/exploiter.safetensors,policy:$R/race/race_v4_s102/exploiter.safetensors,policy:$R/race/race_2p_v4/exploiter_1m.safetensors,policy:$R/race/race_v3_s100/exploiter.safetensors,policy:$R/race/race_v3_s102/exploiter.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_2p_v5}"
