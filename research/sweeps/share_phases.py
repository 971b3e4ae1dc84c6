# Reproduces research/log.md, "Recipes for 4 and 5 players" (2026-12-07).
"""One recipe run's finished phases handed to another recipe's run whose first phases are the same
(the same settings, player count, step budget and seed: a run is reproducible for its seed, so
the second run would have trained exactly these). The phases' folders are copied and the second
run's ``recipe.json`` records them as done, with their steps and seconds; ``machu train
--recipe <second> --resume`` then trains the rest.

    python research/sweeps/share_phases.py runs/best_4p runs/best_5p three three-polish
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from machu_env.core import files
from machu_env.train.recipes import recipes


def share(source: Path, target: Path, phases: list[str]) -> dict:
    """Copy ``phases`` of the run in ``source`` into the run in ``target`` (refused, nothing
    changed, unless both recipes' phases are the same and ``source`` finished them)."""
    done = files.read_json(source / "recipe.json", limit=4_000_000, links=False)
    state = files.read_json(target / "recipe.json", limit=4_000_000, links=False)
    first, second = recipes.load(done["recipe"]), recipes.load(state["recipe"])
    same = {k: first[k] for k in ("timesteps", "minutes")} == \
        {k: second[k] for k in ("timesteps", "minutes")} and done["seed"] == state["seed"]
    ours = [p for p in first["phases"] if p["name"] in phases]
    theirs = [p for p in second["phases"] if p["name"] in phases]
    if not same or ours != theirs or [p["name"] for p in ours] != phases \
            or [p["name"] for p in second["phases"][:len(phases)]] != phases:
        raise ValueError("the two runs' first phases, budgets and seeds differ: not shared")
    if done["done"][:len(phases)] != phases or state["done"]:
        raise ValueError(f"{source} has not finished {phases}, or {target} has phases done")
    for name in phases:
        if (target / name).exists():
            shutil.rmtree(target / name)  # (the target's own unfinished start of it)
        shutil.copytree(source / name, target / name, symlinks=False)
    ended = done["phases"][phases[-1]]["ended_at_seconds"]
    state.update(done=list(phases), steps=sum(done["phases"][n]["timesteps"] for n in phases),
                 elapsed_seconds=ended, phases={n: done["phases"][n] for n in phases},
                 shared_from={"run": str(source), "recipe": done["recipe"],
                              "phases": list(phases)})
    files.write_json(target / "recipe.json", state)
    return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("phases", nargs="+")
    args = parser.parse_args()
    try:
        state = share(args.source, args.target, args.phases)
    except (ValueError, KeyError, OSError) as e:
        print(f"share_phases: {e}", file=sys.stderr)
        return 2
    print(f"{args.target}: phases {', '.join(state['done'])} taken from {args.source} "
          f"({state['steps']:,} steps, {state['elapsed_seconds'] / 60:.1f} min); go on with "
          f"machu train --recipe {state['recipe']} --seed {state['seed']} --out {args.target} "
          "--resume --threads 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
