"""Probe speed: how long the exploitability probe (``machu exploit``) takes, and whether a faster
setting still finds what the published one finds.

    python benchmarks/probe_speed.py [--agent ppo-2p-race] [--players 2] [--seed 100]
        [--steps 1500000] [--eval-games 2000] [--epochs 4,2,1] [--threads 2]
        [--out benchmarks/results] [--name probe_speed.json]

Each ``--epochs`` value runs ``machu exploit --agent AGENT --n-epochs E ...`` in a new process,
one after the other (the published probe is 4 epochs); per run: the wall-clock of the whole
command (start-up, training, the 2,000 evaluation games), the training and evaluation seconds
the probe reports, env steps/s, and the exploiter's win share and margin with their 95 %
intervals (numba's kernels are compiled by an unmeasured short probe first). A faster probe is
as good as the published one only if its exploiter wins about as much: compare the intervals.
Measure on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machu_env.bench.machine import describe


def probe(agent: str, players: int, seed: int, steps: int, games: int, epochs: int,
          threads: int, folder: Path) -> dict:
    argv = ["machu", "exploit", "--agent", agent, "--players", str(players), "--steps",
            str(steps), "--seed", str(seed), "--eval-games", str(games), "--n-epochs",
            str(epochs), "--threads", str(threads), "--out", str(folder)]
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from machu_env.cli import entry_point; "
                    "entry_point()", *argv[1:]], check=True, capture_output=True)
    wall = time.perf_counter() - t0
    s = json.loads((folder / "summary.json").read_text())
    return {"n_epochs": epochs, "command": shlex.join(argv), "wall_seconds": round(wall, 1),
            "train_seconds": s["train_seconds"], "eval_seconds": s["eval_seconds"],
            "steps_per_second": s["steps_per_second"], "steps": s["steps"],
            "exploiter_win_share": s["exploiter_win_share"], "ci95": s["ci95"],
            "exploiter_margin": s["exploiter_margin"], "margin_ci95": s["margin_ci95"]}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", default="ppo-2p-race")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--steps", type=int, default=1_500_000)
    p.add_argument("--eval-games", type=int, default=2000)
    p.add_argument("--epochs", default="4,2,1", help="comma-separated --n-epochs values")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    p.add_argument("--name", default="probe_speed.json")
    a = p.parse_args(argv)
    epochs = [int(x) for x in a.epochs.split(",") if x.strip()]
    if not epochs or min(epochs) < 1:
        raise SystemExit("probe_speed: --epochs must list integers of 1 or more, like 4,2,1")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        # numba's kernels compiled first, unmeasured (as after a user's first run)
        probe(a.agent, a.players, a.seed, 4096, 10, 1, a.threads, Path(tmp) / "warm_up")
        for e in epochs:
            runs.append(probe(a.agent, a.players, a.seed, a.steps, a.eval_games, e, a.threads,
                              Path(tmp) / f"epochs_{e}"))
            print(json.dumps(runs[-1]), flush=True)
    result = {"benchmark": "probe_speed", "started": started, "machine": describe(),
              "agent": a.agent, "players": a.players, "seed": a.seed, "runs": runs}
    a.out.mkdir(parents=True, exist_ok=True)
    target = a.out / a.name
    partial = target.with_suffix(".part")  # an interrupted run leaves no valid result file
    partial.write_text(json.dumps(result, indent=1) + "\n")
    partial.replace(target)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
