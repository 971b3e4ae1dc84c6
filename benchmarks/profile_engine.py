"""Where the engine's time goes: each component timed in compiled loops over the same recorded
game positions (numba code is invisible to Python profilers, so the parts are timed apart).

    python benchmarks/profile_engine.py
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from machu_env.engine.decisions import apply_decision
from machu_env.engine.flow import advance, step
from machu_env.engine.legal import legal_actions
from machu_env.engine.observation import OBS_SIZE, encode
from machu_env.engine.rng import below, seed_state
from machu_env.engine.setup import init_state
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _record(num: int, num_players: int, seed: int) -> tuple:
    """``num`` positions with a pending decision, and a random legal action for each."""
    states = np.zeros((num, L.STATE_SIZE), np.int32)
    actions = np.zeros(num, np.int32)
    rng = np.zeros(1, np.uint64)
    rng[0] = seed
    s = np.zeros(L.STATE_SIZE, np.int32)
    buf = np.zeros(NUM_ACTIONS, np.int32)
    init_state(s, num_players, rng, -1, False)
    n = advance(s, buf)
    for k in range(num):
        if n == 0:
            init_state(s, num_players, rng, -1, False)
            n = advance(s, buf)
        states[k] = s
        actions[k] = buf[below(rng, 0, n)]
        n = step(s, actions[k], buf)
    return states, actions


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _t_legal(states, scratch, buf):
    tot = 0
    for k in range(states.shape[0]):
        scratch[:] = states[k]
        tot += legal_actions(scratch, buf)
    return tot


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _t_apply(states, actions, scratch):
    for k in range(states.shape[0]):
        scratch[:] = states[k]
        apply_decision(scratch, actions[k])


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _t_copy(states, scratch):
    for k in range(states.shape[0]):
        scratch[:] = states[k]


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _t_step(states, actions, scratch, buf):
    for k in range(states.shape[0]):
        scratch[:] = states[k]
        step(scratch, actions[k], buf)


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _t_encode(states, scratch, out):
    for k in range(states.shape[0]):
        scratch[:] = states[k]
        encode(scratch, scratch[L.DECIDER], out)


@njit(cache=False)  # (a script outside the package: compiled for each run)
def _t_setup(num, num_players, rng, scratch, buf):
    for _ in range(num):
        init_state(scratch, num_players, rng, -1, False)
        advance(scratch, buf)


def _time(fn, *args) -> float:
    fn(*args)  # compile / warm
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def main() -> None:
    num = 400_000
    states, actions = _record(num, 3, 1)  # spans many games: every kind of decision
    buf = np.zeros(NUM_ACTIONS, np.int32)
    scratch = np.zeros(L.STATE_SIZE, np.int32)
    out = np.zeros(OBS_SIZE, np.float32)
    copy = _time(_t_copy, states, scratch)
    rows = {
        "step = apply_decision + advance (incl. next legal list)": _time(
            _t_step, states, actions, scratch, buf) - copy,
        "  apply_decision alone": _time(_t_apply, states, actions, scratch) - copy,
        "  legal_actions alone (once per decision)": _time(_t_legal, states, scratch, buf) - copy,
        "observation encode (per call)": _time(_t_encode, states, scratch, out) - copy,
    }
    games = 2000
    setup = _time(_t_setup, games, 3, seed_state(0), scratch, buf) / games
    print(f"{num:,} recorded 3-player positions, random legal actions; ns per decision "
          f"(reading a recorded position, {copy / num * 1e9:.1f} ns, subtracted):")
    for name, sec in rows.items():
        print(f"  {name:58s} {sec / num * 1e9:7.1f} ns")
    print(f"  {'setup of a new game (init_state + advance)':58s} {setup * 1e9:7.0f} ns "
          f"(once per ~125 decisions)")


if __name__ == "__main__":
    main()
