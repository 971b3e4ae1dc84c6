#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25).
# issue #36, step 3 (fifth round): the history run (race_2p_v6, observation v3) trained on with
# the exploiters of both roads frozen: round 4's probes (they won on VP, from goods kept), the
# history run's probes (the gold majority through sacrifices and summits) and round 3's probes
# (the gold majority through priests)
set -e
cd "$(dirname "$0")/../.."
R=research/results/race
machu train --players 2 --init "policy:${INIT:-$R/race_2p_v6/final.safetensors}" \
    --observation 3 --timesteps "${STEPS:-2000000}" \
    --seed 13 --threads 1 --league --exploiter-every 1000000 --exploiter-steps 750000 \
    --exploiter-share 0.6 --max-exploiters 2 --exploit-greedy \
    --frozen "policy:$R/race_v5_s100/exploiter.safetensors,policy:$R/race_v5_s102/exploiter.safetensors,policy:$R/race_v6_s100/exploiter.safetensors,policy:$R/race_v6_s102/exploiter.safetensors,policy:$R/race_v4_s100/exploiter.safetensors,policy:$R/race_v4_s102/exploiter.safetensors" \
    --pool random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6 --snapshot-every 1000000 \
    --eval-every 1000000 --eval-games 300 --out "${OUT:-runs/race_2p_v7}"
