"""Training steps/s with 1 and 2 threads, in one run: how well ``machu train`` uses a second core.

    python benchmarks/thread_scaling.py [--steps 204800] [--rounds 2] [--players 2]
        [--chunksize N]

Each round trains ``--steps`` env steps (``train_speed.machu_train``: the defaults, the default
pool with a frozen copy of the initial policy, no evaluation, after a warm-up) with 1 thread, then
with 2 (torch's and numba's), then with 2 and ``--overlap`` (``machu_env.train.ppo.overlap``: the
next rollout collected on one core while the update runs on the other), then two 1-thread runs at
once in two processes (their steps/s summed: the machine's ceiling for two cores). Rounds alternate
so that a drift of the machine shows in all alike. (The published figures of 2026-11-27 also
measured rollouts split into two parts collected on a thread each, with the version of this script
in commit 1b3f8b5: slower, see research/log.md, and not kept.) ``--chunksize N`` adds 2 threads
with numba's dynamic scheduling in chunks of N games (``numba.set_parallel_chunksize``; 0, the
default, splits the games evenly between the threads). Writes ``thread_scaling.json`` (machine,
versions, date) under ``--out``. Measure on an idle machine. """

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numba
from train_speed import machu_train

from machu_env.bench.machine import describe

WAYS = {"1 thread": (1, False), "2 threads": (2, False), "2 threads, overlap": (2, True),
        "2 processes, 1 thread each": (1, "processes")}
KEYS = ("steps_per_second", "seconds", "update_seconds", "rollout_policy_seconds",
        "simulator_seconds")


def _one_thread(steps: int, players: int) -> dict:
    return machu_train(steps, players, 1, "fp32")


def two_processes(steps: int, players: int) -> dict:
    """Two 1-thread runs at once, in two processes: what this machine gives two workers that
    share nothing (no GIL, no memory): the ceiling of any design that splits one run over two
    cores. Their steps/s summed; the seconds the slower one's, the parts the mean."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        both = list(pool.map(_one_thread, [steps, steps], [players, players]))
    return {"steps_per_second": sum(r["steps_per_second"] for r in both),
            "seconds": max(r["seconds"] for r in both),
            **{k: statistics.mean(r[k] for r in both) for k in KEYS[2:]}}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=204_800, help="env steps per measurement")
    p.add_argument("--rounds", type=int, default=2, help="rounds of 1 and 2 threads")
    p.add_argument("--players", type=int, default=2, choices=range(2, 6))
    p.add_argument("--chunksize", type=int, default=0, help="also 2 threads with numba's "
                   "dynamic scheduling in chunks of this many games (0: not measured)")
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    a = p.parse_args(argv)
    if a.steps < 16_384 or a.rounds < 1 or a.chunksize < 0:
        p.error("--steps must be >= 16384 (one rollout), --rounds >= 1 and --chunksize >= 0")
    ways = {**WAYS, **({f"2 threads, chunksize {a.chunksize}": (2, False)} if a.chunksize
                       else {})}
    runs: dict[str, list[dict]] = {name: [] for name in ways}
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for r in range(a.rounds):
        for name, (threads, overlap) in ways.items():
            numba.set_parallel_chunksize(a.chunksize if "chunksize" in name else 0)
            s = (two_processes(a.steps, a.players) if overlap == "processes" else
                 machu_train(a.steps, a.players, threads, "fp32", overlap=overlap))
            runs[name].append({k: round(float(s[k]), 2) for k in KEYS})
            print(f"round {r + 1} {name:>30}: {s['steps_per_second']:>9,.0f} steps/s (update "
                  f"{s['update_seconds']:.1f} s, policy {s['rollout_policy_seconds']:.1f} s, "
                  f"simulator {s['simulator_seconds']:.1f} s)", flush=True)
    median = {name: statistics.median(x["steps_per_second"] for x in rs)
              for name, rs in runs.items()}
    one = median["1 thread"]
    result = {**describe(), "started": started, "steps": a.steps, "players": a.players,
              "command": "python benchmarks/thread_scaling.py " + " ".join(
                  argv if argv is not None else sys.argv[1:]),
              "runs": runs, "median_steps_per_second": median,
              "ratio_to_1_thread": {name: round(v / one, 2) for name, v in median.items()}}
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "thread_scaling.json").write_text(json.dumps(result, indent=1))
    for name, ratio in result["ratio_to_1_thread"].items():
        print(f"{name:>30}: {median[name]:>9,.0f} steps/s, {ratio:.2f}x 1 thread")
    return result


if __name__ == "__main__":
    main()
