"""Training steps/s of ``machu train``'s thread settings on a quiet machine and beside a busy
process, side by side: do the defaults hold when anything else runs?

    python benchmarks/threads_under_load.py [--steps 204800] [--rounds 1] [--out DIR]
        [--settings "defaults,--threads 1"]

Each setting trains ``--steps`` env steps (``train_speed.machu_train``: PPO alone, no evaluation,
after a warm-up run) in a fresh process, first on a quiet machine, then beside one CPU-bound
neighbour (a Python busy loop, as a second job or a browser would be). The settings:

- ``defaults``: what ``machu train`` does with no thread option (every core for torch and numba,
  OpenMP's own wait: spin a while, then sleep);
- ``--threads 1``: one thread each;
- ``defaults, active wait`` / ``passive wait``: the defaults with ``OMP_WAIT_POLICY`` set
  (OpenMP's threads spin while they wait / sleep at once).

The goal: the defaults beside a busy process at >= 0.8x ``--threads 1`` beside it, and no slower
on a quiet machine than they are. Writes ``threads_under_load.json`` (machine, date, each
figure) under ``--out``; the last lines are a short summary.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from machu_env.bench.machine import describe

SETTINGS = {"defaults": (0, {}), "--threads 1": (1, {}),
            "defaults, active wait": (0, {"OMP_WAIT_POLICY": "ACTIVE"}),
            "defaults, passive wait": (0, {"OMP_WAIT_POLICY": "PASSIVE"})}
CHILD = """
import json, sys
sys.path.insert(0, {here!r})
from train_speed import machu_train
print(json.dumps(machu_train({steps}, 2, {threads}, "fp32")))
"""


def one(steps: int, threads: int, env: dict[str, str]) -> dict:
    """One setting's run in a fresh process (the wait policy is read at OpenMP's start)."""
    code = CHILD.format(here=str(Path(__file__).parent), steps=steps, threads=threads)
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, **env},
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=204_800)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    parser.add_argument("--settings", default=",".join(SETTINGS),
                        help="the settings to run, by name, comma-separated (default: all)")
    args = parser.parse_args()
    chosen = [n.strip() for n in args.settings.split(",") if n.strip()]
    if not chosen or set(chosen) - set(SETTINGS):
        parser.error(f"--settings takes names from: {', '.join(SETTINGS)}")
    rows = []
    for r in range(args.rounds):
        for load in ("quiet", "beside one busy process"):
            busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) \
                if load != "quiet" else None
            try:
                # (the order turns each round, so that no setting always runs first)
                for name in (chosen if r % 2 == 0 else chosen[::-1]):
                    threads, env = SETTINGS[name]
                    result = one(args.steps, threads, env)
                    rows.append({"round": r, "load": load, "setting": name,
                                 "steps_per_second": result["steps_per_second"]})
                    print(f"{load:>24}  {name:<22} {result['steps_per_second']:>9,.0f} steps/s",
                          flush=True)
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()

    def rate(load: str, setting: str) -> float:
        found = [x["steps_per_second"] for x in rows if x["load"] == load
                 and x["setting"] == setting]
        return sum(found) / len(found)

    busy, quiet = "beside one busy process", "quiet"
    result = {"machine": describe(), "date": time.strftime("%Y-%m-%d"),
              "command": "python benchmarks/threads_under_load.py " + " ".join(sys.argv[1:]),
              "steps": args.steps, "rounds": args.rounds, "rows": rows}
    lines = []
    if {"defaults", "--threads 1"} <= set(chosen):
        ratio = rate(busy, "defaults") / rate(busy, "--threads 1")
        result["defaults_over_threads_1_beside_busy"] = round(ratio, 3)
        result["defaults_over_threads_1_quiet"] = round(
            rate(quiet, "defaults") / rate(quiet, "--threads 1"), 3)
        lines.append(f"beside a busy process: the defaults train at {ratio:.2f}x --threads 1 "
                     "(goal >= 0.8)")
    if {"defaults", "defaults, passive wait"} <= set(chosen):
        quiet_ratio = rate(quiet, "defaults, passive wait") / rate(quiet, "defaults")
        result["passive_over_defaults_quiet"] = round(quiet_ratio, 3)
        lines.append(f"quiet: a passive wait trains at {quiet_ratio:.2f}x the defaults")
    from machu_env.core import files

    files.make_folder(args.out)
    files.write_json(args.out / "threads_under_load.json", result)
    for line in lines:
        print(line)
    print(f"written: {args.out / 'threads_under_load.json'}")


if __name__ == "__main__":
    main()
