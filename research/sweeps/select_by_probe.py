# Reproduces research/log.md, "Selection by probe inside the `best-2p` recipe" (2026-12-05).
"""Selection by probe: of a recipe run's evaluations at or above a ladder rung, keep the one its
exploiter beats least, then confirm it on probe seeds not used to choose it.

    python research/sweeps/select_by_probe.py RUN OUT [--rung best-2p] [--parallel 2]

RUN is a ``machu train --recipe`` folder (its phases' ``history.csv`` and ``checkpoints/``).
Every evaluation that reached ``--rung`` (its win share there at least the break-even) is a
candidate; each is probed with ``--choose-seed`` (``machu exploit --steps 1500000
--eval-games 2000 --threads 1``), ``--parallel`` at a time. The least exploitable candidate,
the run's own ``agent.safetensors`` (the ladder's choice) and the shipped ``--reference`` are
then probed with each ``--confirm-seeds``. Writes OUT/selection.json (every probe's figures, the
commands, the machine and the times) and prints a table.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def candidates(run: Path, rung: str) -> list[dict]:
    """Each evaluation of the run's phases that reached ``rung`` (2 players: 50 %)."""
    try:
        state = json.loads((run / "recipe.json").read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"{run}: not a finished `machu train --recipe` folder (its recipe.json: {e})")
    found, before = [], 0
    for phase in state["done"]:
        with open(run / phase / "history.csv") as f:
            for row in csv.DictReader(f):
                share = row.get(f"win_vs_{rung}", "")
                file = run / phase / "checkpoints" / f"step_{row['timesteps']}.safetensors"
                if share not in ("", "nan") and float(share) >= 0.5 and file.is_file():
                    found.append({"name": f"{phase}_{row['timesteps']}", "file": str(file),
                                  "steps": before + int(row["timesteps"]),
                                  f"win_vs_{rung}": float(share)})
        before += state["phases"][phase]["timesteps"]
    return found


def probe(agent: str, seed: int, out: Path) -> dict:
    """``machu exploit`` of ``agent`` with ``seed``: its summary (cached in ``out``)."""
    done = out / "summary.json"
    if not done.is_file():
        command = ["machu", "exploit", "--agent", agent, "--players", "2", "--steps",
                   "1500000", "--seed", str(seed), "--eval-games", "2000", "--threads", "1",
                   "--out", str(out)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    summary = json.loads(done.read_text())
    return {"agent": agent, "seed": seed, "exploiter_win_share": summary["exploiter_win_share"],
            "ci95": summary.get("ci95"), "exploiter_margin": summary.get("exploiter_margin"),
            "folder": str(out)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rung", default="best-2p")
    parser.add_argument("--reference", default="best-2p")
    parser.add_argument("--choose-seed", type=int, default=100)
    parser.add_argument("--confirm-seeds", default="101,103")
    parser.add_argument("--parallel", type=int, default=2)
    a = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    found = candidates(a.run, a.rung)
    if not found:
        sys.exit(f"{a.run}: no evaluation reached {a.rung}")
    a.out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(a.parallel) as pool:
        chosen = list(pool.map(lambda c: probe(f"policy:{c['file']}", a.choose_seed,
                                               a.out / f"{c['name']}_s{a.choose_seed}"), found))
        for c, p in zip(found, chosen, strict=True):
            c["probe"] = p
        best = min(found, key=lambda c: c["probe"]["exploiter_win_share"])
        others = {"selected": f"policy:{best['file']}",
                  "ladder_kept": f"policy:{a.run / 'agent.safetensors'}",
                  a.reference: a.reference}
        jobs = [(label, agent, seed) for seed in map(int, a.confirm_seeds.split(","))
                for label, agent in others.items()]
        confirmed = list(pool.map(lambda j: {"label": j[0], **probe(
            j[1], j[2], a.out / f"{j[0]}_s{j[2]}")}, jobs))
    result = {"command": " ".join(sys.argv), "machine": platform.processor() or
              platform.machine(), "cpu": _cpu(), "started": started,
              "ended": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "probe": "machu exploit --agent AGENT --players 2 --steps 1500000 --seed SEED "
                       "--eval-games 2000 --threads 1",
              "rung": a.rung, "candidates": found, "selected": best["name"],
              "confirmation": confirmed}
    (a.out / "selection.json").write_text(json.dumps(result, indent=2) + "\n")
    for c in found:
        print(f"{c['name']:>22}  vs {a.rung} {c[f'win_vs_{a.rung}']:.3f}  "
              f"probe s{a.choose_seed} {c['probe']['exploiter_win_share']:.4f}")
    for c in confirmed:
        print(f"{c['label']:>22}  probe s{c['seed']} {c['exploiter_win_share']:.4f} "
              f"(margin {c['exploiter_margin']})")
    print(f"selected {best['name']}; {a.out / 'selection.json'}")


def _cpu() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        pick = {k.strip(): v for k, _, v in (line.partition(":") for line in lines[:30])}
        return " ".join(pick.get(k, "").strip() for k in ("model name", "cpu family", "model"))
    except OSError:
        return platform.processor()


if __name__ == "__main__":
    main()
