#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 (second round): ppo-2p-race trained on, with the races it lost kept in the
# pool: the frozen exploiters of the earlier probes (ppo-2p's 5M and 1.5M ones, ppo-2p-race's
# probe, the last league exploiter of race_2p_v2) and the compiled `racer` heuristic, beside new
# league exploiters that face the main agent's deterministic play
set -e
cd "$(dirname "$0")/../.."
R=research/results
machu train --players 2 --init "policy:$R/race/race_2p_v2/ppo_2p_race_round1.safetensors" \
    --observation 2 --timesteps "${STEPS:-3000000}" \
    --seed 5 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 750000 \
    --exploiter-share 0.6 --max-exploiters 3 --exploit-greedy \
    --frozen "policy:$R/probes/ppo2p_5m/exploiter.safetensors,policy:$R/race/ppo2p_s100/exploiter.safetensors,policy:$R/race/race_4m_s100/exploiter.safetensors,policy:$R/race/race_2p_v2/exploiter_4m.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_2p_v3}"
