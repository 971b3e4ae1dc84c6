# Reproduces research/log.md, "Rollout workers on two cores" (2026-12-05).
"""``machu train`` to 95 % against gold with one rollout (the default), with the games split
over threads (``--rollout-workers 2``) and over a local Ray instance's actors (``--ray local
--rollout-workers 3``), seed by seed: wall-clock to the goal, steps, env steps/s and the
learning curve (win share against gold at each evaluation).

    python research/sweeps/rollout_workers.py --seeds 1 2 \
        --out research/results/rollout_workers_2cores.json
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

BASE = ["machu", "train", "--players", "2", "--stop-at", "0.95", "--eval-opponents", "gold"]
VARIANTS = {"one rollout": [], "2 workers (threads)": ["--rollout-workers", "2"],
            "3 workers (Ray actors)": ["--ray", "local", "--rollout-workers", "3"]}


def cpu_name() -> str:
    """The CPU's model name with its family and model numbers, and the cores."""
    fields: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name") or platform.processor()
    return f"{name}, family {fields.get('cpu family')} model {fields.get('model')}, " \
           f"{os.cpu_count()} cores"


def run(variant: list[str], seed: int, folder: Path) -> dict:
    out = folder / f"run_{seed}_{len(list(folder.glob('run_*')))}"
    env = {**os.environ, "HOME": str(folder / "home")}  # (Ray's files out of the home folder)
    (folder / "home").mkdir(exist_ok=True)
    t0 = time.perf_counter()
    done = subprocess.run([*BASE, "--seed", str(seed), "--out", str(out), "--json", *variant],
                          capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t0
    summary = json.loads(done.stdout)
    with open(out / "history.csv") as f:
        curve = [(int(r["timesteps"]), float(r["win_vs_gold"])) for r in csv.DictReader(f)]
    return {"seed": seed, "wall_seconds": round(wall, 1), "timesteps": summary["timesteps"],
            "steps_per_second": summary["steps_per_second"],
            "win_vs_gold": summary["final_eval"]["win_vs_gold"], "curve": curve}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--out", default="research/results/rollout_workers_2cores.json")
    args = parser.parse_args()
    subprocess.run(["machu", "warmup"], check=True, capture_output=True)
    results: dict[str, list] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory() as tmp:
        for variant in VARIANTS.values():  # (unmeasured: what warmup leaves to the first run)
            run([*variant, "--timesteps", "16384"], 0, Path(tmp))
        for seed in args.seeds:
            for name, variant in VARIANTS.items():
                results[name].append(run(variant, seed, Path(tmp)))
                print(name, results[name][-1]["wall_seconds"], flush=True)
    Path(args.out).write_text(json.dumps({
        "command": " ".join(BASE) + " --seed S [variant] (wall-clock of the command, engine "
                   "compiled beforehand)",
        "cpu": cpu_name(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "variants": {k: " ".join(v) for k, v in VARIANTS.items()}, "results": results},
        indent=1) + "\n")


if __name__ == "__main__":
    main()
