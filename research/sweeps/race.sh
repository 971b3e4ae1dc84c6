#!/usr/bin/env bash
# Reproduces research/log.md, "The race for the gold majority" (2026-11-25): league training on
# the gold-majority observation, one round per argument, each round warm-started from the last
# and with the exploiters that beat it frozen in its pool.
#
#     bash research/sweeps/race.sh 2p_v2     # 2 players, round 1 (from ppo-2p, observation v2)
#     bash research/sweeps/race.sh 2p_v3     # round 2: the races it lost kept in the pool
#     bash research/sweeps/race.sh 2p_v4     # round 3: its own probes' exploiters in the pool
#     bash research/sweeps/race.sh 2p_v5     # round 4: round 3's probe exploiters in the pool
#     bash research/sweeps/race.sh 2p_v6     # round 4 with the history summary (observation v3)
#     bash research/sweeps/race.sh 2p_v7     # round 5: the exploiters of both roads
#     bash research/sweeps/race.sh 3p_v1     # 3 players, round 1 (from ppo-3p)
#     bash research/sweeps/race.sh 3p_v2     # 3 players, round 2 with the history summary
#
# STEPS, OUT and (2p_v5..v7) INIT override the round's steps, run folder and starting agent.
# The frozen exploiters are the probes' outputs under research/results/ (agent files: kept by
# the run that made them, not in the repository).
set -e
cd "$(dirname "$0")/../.."
R=research/results/race
P2="random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6"
f() { local out=""; for x in "$@"; do out+="${out:+,}policy:$R/$x.safetensors"; done; echo "$out"; }
V4="race_v4_s100/exploiter race_v4_s102/exploiter race_2p_v4/exploiter_1m race_v3_s100/exploiter race_v3_s102/exploiter"
case "${1:-}" in
  2p_v2) a=(--players 2 --init ppo-2p --observation 2 --seed 3 --max-exploiters 4
            --exploiter-steps 750000 --pool random:0.05,builder:0.1,gold:0.25,self:0.6
            --eval-games 400); steps=6000000 ;;
  2p_v3) a=(--players 2 --init "policy:$R/race_2p_v2/ppo_2p_race_round1.safetensors"
            --observation 2 --seed 5 --max-exploiters 3 --exploiter-steps 750000 --pool "$P2"
            --frozen "policy:research/results/probes/ppo2p_5m/exploiter.safetensors,$(f ppo2p_s100/exploiter race_4m_s100/exploiter race_2p_v2/exploiter_4m)"
            --eval-games 300); steps=3000000 ;;
  2p_v4) a=(--players 2 --init "policy:$R/race_2p_v3/ppo_2p_race_round2.safetensors"
            --observation 2 --seed 7 --max-exploiters 2 --exploiter-steps 750000 --pool "$P2"
            --frozen "$(f race_v3_s100/exploiter race_v3_s102/exploiter race_2p_v3/exploiter_2m race_4m_s100/exploiter ppo2p_s100/exploiter)"
            --eval-games 300); steps=2000000 ;;
  2p_v5|2p_v6) obs=2; [ "$1" = 2p_v6 ] && obs=3
         a=(--players 2 --init "${INIT:-ppo-2p-race}" --observation "$obs" --seed 9
            --max-exploiters 2 --exploiter-steps 750000 --pool "$P2"
            --frozen "$(f $V4)" --eval-games 300); steps=2000000 ;;
  2p_v7) a=(--players 2 --init "${INIT:-policy:$R/race_2p_v6/final.safetensors}"
            --observation 3 --seed 13 --max-exploiters 2 --exploiter-steps 750000 --pool "$P2"
            --frozen "$(f race_v5_s100/exploiter race_v5_s102/exploiter race_v6_s100/exploiter race_v6_s102/exploiter race_v4_s100/exploiter race_v4_s102/exploiter)"
            --eval-games 300); steps=2000000 ;;
  3p_v1) a=(--players 3 --init ppo-3p --observation 2 --seed 9 --max-exploiters 2
            --exploiter-steps 500000 --pool "$P2" --frozen "$(f ppo3p_s100/exploiter)"
            --eval-games 300); steps=2000000 ;;
  3p_v2) a=(--players 3 --init ppo-3p-race --observation 3 --seed 11 --max-exploiters 2
            --exploiter-steps 500000 --pool "$P2"
            --frozen "$(f race3p_v1_s100/exploiter race3p_v1_s102/exploiter race_3p_v1/exploiter_1m ppo3p_s100/exploiter)"
            --eval-games 300); steps=2000000 ;;
  *) echo "usage: bash research/sweeps/race.sh 2p_v2|2p_v3|2p_v4|2p_v5|2p_v6|2p_v7|3p_v1|3p_v2" >&2
     exit 2 ;;
esac
machu train "${a[@]}" --timesteps "${STEPS:-$steps}" --threads 1 --league \
    --exploiter-every 1000000 --exploiter-share 0.6 --exploit-greedy \
    --snapshot-every 1000000 --eval-every 1000000 --out "${OUT:-runs/race_$1}"
