"""Setting up a game from a seed (R2). The only randomness of a game lives here (R12.3)."""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine import stages as S
from machu_env.engine.common import pb
from machu_env.engine.rng import below
from machu_env.rules import layout as L
from machu_env.rules.data import (
    BANK_START,
    LEARNING_GAME_EXTRA_DAYS,
    MARKET_START_UNITS,
    NUM_CARDS,
    NUM_MOON_TILES,
    NUM_PRODUCTION,
    START_GOODS,
)

# Indexed by player count (0, 1 unused): Incas per player (R1) and start day (R2.6).
_INCAS = np.array([0, 0, 12, 10, 9, 8], dtype=np.int32)
_START_DAY = np.array([0, 0, 1, 2, 3, 3], dtype=np.int32)


@njit(cache=True)
def init_state(
    s: np.ndarray, num_players: int, rng: np.ndarray, start_player: int, learning: bool
) -> None:
    """Fill ``s`` with a new game (not yet advanced to its first decision).

    ``rng`` is a one-element uint64 generator state (``rng.seed_state``); ``start_player`` < 0
    draws it (R2.8). Draw order: start player, then the deck shuffle (R2.3), then one card per
    player from the top, seats 0..n-1 (R2.7).
    """
    n = num_players
    s[:] = 0
    s[L.NUM_PLAYERS] = n
    s[L.DAY] = _START_DAY[n] + (LEARNING_GAME_EXTRA_DAYS if learning else 0)
    first = below(rng, 0, n) if start_player < 0 else start_player
    s[L.START_PLAYER] = first
    s[L.ACTIVE] = first
    s[L.SUN] = -1
    s[L.LAST_TURNS] = -1
    s[L.CTX_DISTRICT] = -1
    s[L.LEARNING] = 1 if learning else 0
    # R2.3 the deck: a Fisher-Yates shuffle of the 28 cards
    for i in range(NUM_CARDS):
        s[L.DECK + i] = i
    for i in range(NUM_CARDS - 1, 0, -1):
        j = below(rng, 0, i + 1)
        c = s[L.DECK + i]
        s[L.DECK + i] = s[L.DECK + j]
        s[L.DECK + j] = c
    s[L.DECK_TOP] = 0
    s[L.DECK_COUNT] = NUM_CARDS
    # R1.1 / R2.2 / R2.4 / R2.5 the bank, market, temple stones and bonus units
    for g in range(1, 5):
        s[L.BANK + g] = BANK_START[g] - MARKET_START_UNITS - 1 - n * START_GOODS[g]
        s[L.MARKET + g] = MARKET_START_UNITS
    for d in range(9):
        s[L.BONUS + d] = 1
    for t in range(NUM_MOON_TILES):
        s[L.MOON_OWNER + t] = -1
    # R2.7 / R2.8 / R2.11 the players
    for p in range(n):
        b = pb(p)
        for g in range(5):
            s[b + L.P_GOODS + g] = START_GOODS[g]
        s[b + L.P_SUPPLY] = _INCAS[n]
        s[b + L.P_PRINCE] = -1
        s[b + L.P_SCOUT] = 1 + (p - first) % n
        c = s[L.DECK + s[L.DECK_TOP]]
        s[L.DECK_TOP] += 1
        s[L.DECK_COUNT] -= 1
        s[b + L.P_HAND] = 1 << c
        if learning:
            for d in range(NUM_PRODUCTION):
                s[b + L.P_INCAS + d] = 1
            s[b + L.P_SUPPLY] -= NUM_PRODUCTION
    s[L.CURSOR] = 0
    s[L.STAGE] = S.F_TURN_START if learning else S.F_SETUP_NEXT
