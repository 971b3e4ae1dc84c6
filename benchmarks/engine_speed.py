"""Engine speed on this machine: numba compile time (cold and warm cache) and decisions per
second with uniformly random legal actions, three ways:

* ``Game.play`` from Python (the scripting API, legality checked per call);
* the raw njit functions (``flow.step``) driven by a Python loop;
* ``engine.playout.random_playout``: the whole loop compiled.

``python benchmarks/engine_speed.py [--decisions N]`` (the env adapters and peers: ``machu bench``)
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from machu_env.bench.timing import compile_times, game_play_rate


def raw_loop_rate(decisions: int, num_players: int = 3) -> float:
    from machu_env.engine.flow import advance, step
    from machu_env.engine.rng import seed_state
    from machu_env.engine.setup import init_state
    from machu_env.rules import layout as L
    from machu_env.rules.actions import NUM_ACTIONS

    s = np.zeros(L.STATE_SIZE, np.int32)
    buf = np.zeros(NUM_ACTIONS, np.int32)
    rng = np.random.default_rng(0)
    picks = rng.random(decisions)
    t0 = time.perf_counter()
    init_state(s, num_players, seed_state(0), -1, False)
    n = advance(s, buf)
    seed = 0
    for k in range(decisions):
        if n == 0:
            seed += 1
            init_state(s, num_players, seed_state(seed), -1, False)
            n = advance(s, buf)
        n = step(s, buf[int(picks[k] * n)], buf)
    return decisions / (time.perf_counter() - t0)


def compiled_rate(decisions: int, num_players: int = 3) -> float:
    from machu_env.engine.playout import random_playout
    from machu_env.engine.rng import seed_state
    from machu_env.engine.setup import init_state
    from machu_env.rules import layout as L
    from machu_env.rules.actions import NUM_ACTIONS

    s = np.zeros(L.STATE_SIZE, np.int32)
    buf = np.zeros(NUM_ACTIONS, np.int32)
    rng = seed_state(0)
    stats = np.zeros(3, np.int64)
    init_state(s, num_players, rng, -1, False)
    random_playout(s, buf, rng, num_players, 1000, stats)  # warm-up
    t0 = time.perf_counter()
    random_playout(s, buf, rng, num_players, decisions, stats)
    return decisions / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--decisions", type=int, default=200_000)
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")
    cold, warm = compile_times()
    print(f"compile + first game, cold cache: {cold:6.2f} s")
    print(f"compile + first game, warm cache: {warm:6.2f} s")
    game_play_rate(2000)  # warm-up in this process
    raw_loop_rate(2000)
    n = args.decisions
    print(f"Game.play (Python API):           {game_play_rate(n // 10):12,.0f} decisions/s")
    print(f"njit step, Python loop:           {raw_loop_rate(n):12,.0f} decisions/s")
    print(f"compiled random playout:          {compiled_rate(n * 10):12,.0f} decisions/s")


if __name__ == "__main__":
    main()
