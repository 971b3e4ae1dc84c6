"""A tiny counter-based generator (splitmix64) for the setup and random playouts.

Numba's global ``np.random`` state is per thread, so results would depend on the thread count;
this generator keeps its whole state in one ``uint64`` that the caller owns.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def next_u64(state: np.ndarray, i: int) -> np.uint64:
    """Advance ``state[i]`` and return the next 64 random bits."""
    state[i] = state[i] + _GOLDEN
    z = state[i]
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def below(state: np.ndarray, i: int, n: int) -> int:
    """A uniform integer in ``0 .. n-1`` (n >= 1)."""
    return int(next_u64(state, i) % np.uint64(n))


def seed_state(seed: int) -> np.ndarray:
    """A one-element generator state for ``seed`` (any Python int)."""
    return np.array([np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)], dtype=np.uint64)
