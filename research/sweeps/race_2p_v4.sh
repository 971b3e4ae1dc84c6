#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 (third round): the second round's agent (ppo-2p-race until round 3 replaced it;
# its file: research/results/race/race_2p_v3/ppo_2p_race_round2.safetensors) trained on
# with the exploiters of its own probes (seeds 100 and 102: they win by the Sun Clock and more
# Incas placed) and the second round's last league exploiter added to the frozen pool
set -e
cd "$(dirname "$0")/../.."
R=research/results
machu train --players 2 --init "policy:$R/race/race_2p_v3/ppo_2p_race_round2.safetensors" \
    --observation 2 --timesteps "${STEPS:-2000000}" \
    --seed 7 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 750000 \
    --exploiter-share 0.6 --max-exploiters 2 --exploit-greedy \
    --frozen "policy:$R/race/race_v3_s100/exploiter.safetensors,policy:$R/race/race_v3_s102/exploiter.safetensors,policy:$R/race/race_2p_v3/exploiter_2m.safetensors,policy:$R/race/race_4m_s100/exploiter.safetensors,policy:$R/race/ppo2p_s100/exploiter.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_2p_v4}"
