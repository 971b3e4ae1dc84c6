#!/usr/bin/env bash
# Reproduces research/log.md, "Rounds that move less, and a new `best-2p`" (2026-12-06).
# Two copies of a finished ten-round `best-2p-rounds` run go on for four more rounds each, side by
# side with one thread each, with fine-tunes that move less than the recipe's (6M steps at
# learning rate 3e-4):
#   slowa: learning rate 1e-4 and 3M steps a round;
#   slowb: the recipe's fine-tune plus a reverse KL 0.1 to the round's start agent (a magnet
#          that is never reset).
# Each copy's recipe.json gets the new recipe's name, since a resume checks it.
#   usage: rounds_move_less.sh RUN OUT   (RUN: the ten-round run folder, left as it is)
set -euo pipefail
run="$1"; out="$2"
mkdir -p "$out"
python - "$out" <<'EOF'
import json, sys
from importlib.resources import files
out = sys.argv[1]
base = json.loads(files("machu_env.train").joinpath(
    "recipe_files/best-2p-rounds.json").read_text())
variants = {"slowa": ({"learning_rate": 0.0001}, 3_000_000),
            "slowb": ({"magnet_coef": 0.1, "magnet_every": 1_000_000}, 6_000_000)}
for v, (settings, steps) in variants.items():
    r = json.loads(json.dumps(base))
    r["name"] = f"best-2p-rounds-{v}"
    r["summary"] = f"best-2p-rounds, rounds 11-14 with {settings}, {steps:,} steps (research)"
    r["rounds"].update(count=14, timesteps=steps)
    r["rounds"]["settings"].update(settings)
    json.dump(r, open(f"{out}/best-2p-rounds-{v}.json", "w"), indent=2)
EOF
for v in slowa slowb; do
  [ -d "$out/$v" ] || { cp -a "$run" "$out/$v"; python - "$out/$v/recipe.json" "$v" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1])); s["recipe"] = f"best-2p-rounds-{sys.argv[2]}"
json.dump(s, open(sys.argv[1], "w"), indent=2)
EOF
  }
  machu train --recipe "$out/best-2p-rounds-$v.json" --threads 1 --overlap --seed 1 \
    --timesteps 60000000 --minutes 90 --out "$out/$v" --resume > "$out/$v.log" 2>&1 &
done
wait
tail -n 3 "$out"/slow*.log
