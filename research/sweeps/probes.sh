#!/usr/bin/env bash
# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
# Issue #26, item 4: the probe figures of the shipped agents with today's protocol
# (1.5M steps, 2,000 evaluation games, seats rotated; one thread each).
#   bash research/sweeps/probes.sh OUT [STEP ...]     # no STEP: all, in this order
# Steps: tournaments probe_4p probe_5p probe_2p_cold probe_3p probe_2p_5m probe_2p_t05 search
#        probe_2p_sampled probe_3p_t05 strength_t05
# (search needs probe_2p_5m first: it plays its frozen exploiter).
set -euo pipefail
export NUMBA_NUM_THREADS=1
out=${1:-runs/probes}; shift || true
steps=${*:-"tournaments probe_4p probe_5p probe_2p_cold probe_3p probe_2p_5m probe_2p_t05 search
  probe_2p_sampled probe_3p_t05 strength_t05"}
mkdir -p "$out"
probe() {  # name agent players extra-args...
  local name=$1 agent=$2 players=$3; shift 3
  if [ ! -f "$out/$name/summary.json" ]; then
    machu exploit --agent "$agent" --players "$players" --seed 100 --threads 1 \
      --eval-games 2000 --out "$out/$name" "$@" > "$out/$name.log" 2>&1
  fi
}
tour() {  # name players agents [extra-args...]
  local name=$1 players=$2 agents=$3; shift 3
  if [ ! -f "$out/$name/summary.json" ]; then
    machu tournament --agents "$agents" --players "$players" --seed 0 --workers 1 \
      --no-progress --out "$out/$name" "$@" > "$out/$name.log" 2>&1
  fi
}
tournaments() {  # every agent for a player count in one tournament
  tour tournament_4p 4 ppo-4p,ppo-3p,gold,builder,random --games 1000
  tour tournament_5p 5 ppo-5p,ppo-4p,ppo-3p,gold,builder,random --games 1000
}
probe_4p() { probe ppo4p ppo-4p 4 --steps 1500000; }
probe_5p() { probe ppo5p ppo-5p 5 --steps 1500000; }
probe_2p_cold() {  # the win reward, then a cut game as a loss, then the score reward too
  probe ppo2p_cold ppo-2p-v2 2 --steps 1500000 --cold
  probe ppo2p_cold_cut ppo-2p-v2 2 --steps 1500000 --cold --cut-as-loss
  probe ppo2p_cold_score ppo-2p-v2 2 --steps 1500000 --cold --cut-as-loss --reward score
}
probe_3p() { probe ppo3p ppo-3p 3 --steps 1500000; }
probe_2p_5m() { probe ppo2p_5m ppo-2p-v2 2 --steps 5000000 --eval-at 1500000; }
at_temperature() {  # file checkpoint temperature: a shipped agent's weights, played at T
  [ -f "$1" ] || python - "$@" <<'PY'
import sys
from pathlib import Path

import machu_env.agents as agents
from machu_env.agents import policy_file

out, checkpoint, t = sys.argv[1], sys.argv[2], float(sys.argv[3])
src = Path(agents.__file__).parent / "checkpoints" / f"{checkpoint}.safetensors"
tensors, config, info = policy_file.parse(src.read_bytes(), str(src))
policy_file.save(out, tensors, config, {**info, "note": f"{checkpoint} at temperature {t:g}"},
                 play={"temperature": t})
PY
}
probe_2p_t05() {  # a play temperature between argmax (0) and sampling (1): ppo-2p-v2 at 0.5
  at_temperature "$out/ppo2p_t05.safetensors" ppo_2p_v2 0.5
  probe ppo2p_t05 "policy:$out/ppo2p_t05.safetensors" 2 --steps 1500000
}
probe_2p_sampled() { probe ppo2p_sampled ppo-2p-v2 2 --steps 1500000 --sampled; }
probe_3p_t05() {
  at_temperature "$out/ppo3p_t05.safetensors" ppo_3p 0.5
  probe ppo3p_t05 "policy:$out/ppo3p_t05.safetensors" 3 --steps 1500000
}
strength_t05() {  # what a temperature costs: T = 0.5 and 1 against gold and argmax play
  at_temperature "$out/ppo2p_t05.safetensors" ppo_2p_v2 0.5
  at_temperature "$out/ppo3p_t05.safetensors" ppo_3p 0.5
  tour t05_2p_vs_gold 2 "policy:$out/ppo2p_t05.safetensors,gold" --games 1000
  tour t05_2p_vs_ppo2p 2 "policy:$out/ppo2p_t05.safetensors,ppo-2p-v2" --games 1000
  at_temperature "$out/ppo2p_t1.safetensors" ppo_2p_v2 1
  tour t1_2p_vs_gold 2 "policy:$out/ppo2p_t1.safetensors,gold" --games 1000
  tour t1_2p_vs_ppo2p 2 "policy:$out/ppo2p_t1.safetensors,ppo-2p-v2" --games 1000
  tour t05_3p 3 "policy:$out/ppo3p_t05.safetensors,ppo-3p,gold" --games 1000
}
search() {  # the frozen 5M-step exploiter of ppo-2p-v2 against search:ppo-2p-v2 and ppo-2p-v2 itself
  # (the cold-started exploiter is left out: it learned to stall, and a stalling game runs to
  # the decision limit, which search makes slow)
  for opp in ppo-2p-v2 search:ppo-2p-v2; do
    tour "frozen_ppo2p_5m_vs_${opp/:/_}" 2 "policy:$out/ppo2p_5m/exploiter.safetensors,$opp" \
      --games "${SEARCH_GAMES:-60}" --mcts-iterations 64 --mcts-seconds 1
  done
}
for step in $steps; do "$step"; done
echo "probes done: $steps"
