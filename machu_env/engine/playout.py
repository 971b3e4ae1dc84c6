"""Random playouts entirely inside compiled code (throughput measurement, baselines)."""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.flow import advance, step
from machu_env.engine.rng import below
from machu_env.engine.setup import init_state
from machu_env.rules import layout as L


@njit(cache=True)
def random_playout(
    s: np.ndarray, buf: np.ndarray, rng: np.ndarray, num_players: int, num_decisions: int,
    stats: np.ndarray,
) -> int:
    """Play ``num_decisions`` uniformly random legal decisions, starting a new game (from
    ``rng``) whenever one ends. ``stats`` accumulates: games finished, rescue endings,
    conquest endings. Returns the number of decisions played."""
    n = advance(s, buf)
    for _k in range(num_decisions):
        if n == 0:
            stats[0] += 1
            stats[s[L.END_KIND]] += 1  # index 1 rescue, 2 conquest
            init_state(s, num_players, rng, -1, False)
            n = advance(s, buf)
        n = step(s, buf[below(rng, 0, n)], buf)
    return num_decisions
