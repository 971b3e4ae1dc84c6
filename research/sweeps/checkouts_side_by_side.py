# Reproduces research/log.md, "One batch core, side by side" (2026-12-05).
"""Two checkouts of machu-env side by side on one machine, in alternating rounds: the engine's
throughput and ``machu train``'s env steps per second, each measured in a fresh process whose
``machu_env`` is the checkout's (``PYTHONPATH``).

    git worktree add /tmp/before <commit>
    python research/sweeps/checkouts_side_by_side.py --before /tmp/before --after . \
        --rounds 2 --out research/results/checkouts_side_by_side.json

Per round and checkout: (1) ``BatchEngine.random_playout``, 4,096 3-player games, decisions/s;
(2) the Gymnasium VectorEnv, 4,096 2-player games against ``random`` inside the batch, learner
steps/s; (3) the same with 128 games against the compiled pool ``random:0.1,builder:0.3,
gold:0.6``; (4) ``machu train``'s trainer (``train.selfplay.train``, its default pool, no
imitation, no evaluation) for ``--train-steps`` after a one-rollout warm-up, env steps/s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

PROBE = r"""
import json, sys, tempfile, time
import numpy as np
import gymnasium as gym
import importlib, importlib.util, os
import machu_env
from machu_env import BatchEngine

def top_level(name):
    # a checkout whose agents/ and train/ sit at the top (package-dir) puts them under machu_env
    folder = os.path.join(os.getcwd(), name)
    if os.path.isfile(os.path.join(folder, "__init__.py")) and not os.path.isdir(
            os.path.join(os.getcwd(), "machu_env", name)):
        spec = importlib.util.spec_from_file_location(
            "machu_env." + name, os.path.join(folder, "__init__.py"),
            submodule_search_locations=[folder])
        module = importlib.util.module_from_spec(spec)
        sys.modules["machu_env." + name] = module
        spec.loader.exec_module(module)

top_level("agents")
top_level("train")

def timed(step, seconds):
    step()  # warm-up: compiled, some games ended
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += step()
    return done / (time.perf_counter() - t0)

seconds, train_steps, threads = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
out = {}
engine = BatchEngine(4096, 3, seed=0)
out["playout_decisions_per_s"] = timed(lambda: engine.random_playout(4096 * 20), seconds)
for name, n, opponents in (("vector_random", 4096, "random:1"),
                           ("vector_compiled_pool", 128, "random:0.1,builder:0.3,gold:0.6")):
    envs = gym.make_vec("MachuPicchu-v0", num_envs=n, num_players=2, opponents=opponents)
    envs.reset(seed=0)
    def step():
        for _ in range(10):
            envs.step(envs.random_actions())
        return 10 * n
    out[name + "_steps_per_s"] = timed(step, seconds)
if os.path.isfile(os.path.join(os.getcwd(), "machu_env", "train", "config.py")):  # flat
    from machu_env.train.config import TrainConfig
    from machu_env.train.selfplay import train
else:  # the trainer's modules by job (train/run/)
    from machu_env.train.run.config import TrainConfig
    from machu_env.train.run.selfplay import train
assert train.__module__ and os.getcwd() in sys.modules[train.__module__].__file__
with tempfile.TemporaryDirectory() as tmp:
    never = 10**12
    def run(n, name):
        c = TrainConfig(players=2, timesteps=n, seed=0, out=f"{tmp}/{name}", imitate="",
                        snapshot_every=never, eval_every=never, eval_games=1, device="cpu",
                        threads=threads)
        return train(c, verbose=False)
    run(128 * 128, "warmup")
    s = run(train_steps, "run")
out["train_steps_per_s"] = s["steps_per_second"]
print(json.dumps(out))
"""


def measure(checkout: Path, seconds: float, train_steps: int, threads: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    done = subprocess.run([sys.executable, "-c", PROBE, str(seconds), str(train_steps),
                           str(threads)], env=env, cwd=checkout, capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"{checkout}: the probe failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cpu_model() -> str:
    """The CPU's model name with its family and model numbers (a brand alone names no
    generation)."""
    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        return platform.processor() or platform.machine()
    return (f"{fields.get('model name', '?')}, family {fields.get('cpu family', '?')} "
            f"model {fields.get('model', '?')}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--before", type=Path, required=True)
    p.add_argument("--after", type=Path, required=True)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--train-steps", type=int, default=204_800)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            row = measure(getattr(args, name), args.seconds, args.train_steps, args.threads)
            runs[name].append(row)
            print(f"round {r + 1} {name}: " + ", ".join(f"{k} {v:,.0f}" for k, v in row.items()),
                  flush=True)
    medians = {name: {k: statistics.median(row[k] for row in rows) for k in rows[0]}
               for name, rows in runs.items()}
    result = {"command": " ".join(["python", *sys.argv]), "cpu": cpu_model(),
              "cores": os.cpu_count(), "started": started,
              "ended": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "before": str(args.before), "after": str(args.after), "runs": runs,
              "medians": medians,
              "after_over_before": {k: medians["after"][k] / medians["before"][k]
                                    for k in medians["after"]}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    for k, v in result["after_over_before"].items():
        print(f"{k}: before {medians['before'][k]:,.0f}, after {medians['after'][k]:,.0f} "
              f"({v:.2f}x)")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
