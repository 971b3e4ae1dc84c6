"""Small shared rule helpers over the state array (player blocks, Scout movement, payments)."""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.stages import F_GAME_OVER
from machu_env.rules import layout as L
from machu_env.rules.data import CORN, GRANARY, LLAMA_STABLE, TRAIL_LENGTH


@njit(cache=True, inline="always")
def pb(p: int) -> int:
    """Offset of player ``p``'s block."""
    return L.PLAYER_BASE + p * L.PLAYER_SIZE


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _crossings(start: int, steps: int, space: int) -> int:
    """How many of the unwrapped spaces ``start+1 .. start+steps`` are ``space`` (mod 20)."""
    r = space % TRAIL_LENGTH
    return (start + steps - r) // TRAIL_LENGTH - (start - r) // TRAIL_LENGTH


@njit(cache=True)
def move_scout(s: np.ndarray, p: int, steps: int) -> None:
    """R5: advance ``p``'s Scout; granary, stable and summit crossings are paid later (R5.5)."""
    if steps <= 0:
        return
    b = pb(p)
    pos = s[b + L.P_SCOUT]
    s[b + L.P_PEND_CORN] += _crossings(pos, steps, GRANARY)
    s[b + L.P_PEND_LLAMA] += _crossings(pos, steps, LLAMA_STABLE)
    s[b + L.P_PEND_SUMMIT] += _crossings(pos, steps, TRAIL_LENGTH)
    s[b + L.P_SCOUT] = (pos + steps) % TRAIL_LENGTH


@njit(cache=True)
def can_afford(s: np.ndarray, p: int, cost: np.ndarray) -> bool:
    b = pb(p) + L.P_GOODS
    for g in range(5):  # an explicit loop: numba compiles no generators
        if s[b + g] < cost[g]:
            return False
    return True


@njit(cache=True)
def pay_to_bank(s: np.ndarray, p: int, cost: np.ndarray) -> None:
    """Pay ``cost`` (by good); corn leaves the game (unlimited), other goods go to the bank."""
    b = pb(p) + L.P_GOODS
    for g in range(5):
        c = cost[g]
        if c:
            s[b + g] -= c
            if g != CORN:
                s[L.BANK + g] += c


@njit(cache=True)
def take_from_bank(s: np.ndarray, p: int, g: int, units: int) -> int:
    """Give ``p`` up to ``units`` of good ``g`` from the bank (R1.1); corn is unlimited."""
    b = pb(p) + L.P_GOODS
    if g == CORN:
        s[b] += units
        return units
    k = min(units, s[L.BANK + g])
    s[L.BANK + g] -= k
    s[b + g] += k
    return k


@njit(cache=True)
def has_pending_rewards(s: np.ndarray, p: int) -> bool:
    b = pb(p)
    return (s[b + L.P_PEND_CORN] + s[b + L.P_PEND_LLAMA] + s[b + L.P_PEND_SUMMIT]) > 0


@njit(cache=True)
def end_game(s: np.ndarray, kind: int) -> None:
    s[L.GAME_OVER] = 1
    s[L.END_KIND] = kind
    s[L.STAGE] = F_GAME_OVER
    s[L.DECIDER] = -1
