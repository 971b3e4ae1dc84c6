"""Victory points, gold and final scores (R9)."""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.common import pb
from machu_env.rules import layout as L
from machu_env.rules.data import (
    CARD_GOLD,
    CARD_ICONS,
    CORN_PER_UNIT,
    GRANARY,
    LLAMA_STABLE,
    NUM_CARDS,
    NUM_PRODUCTION,
    SUMMIT_VP,
)

# Columns of the scores table written by ``final_scores``.
SC_VP, SC_GOLD, SC_MULT, SC_SCORE, SC_UNITS, SC_WINNER = range(6)
NUM_SCORE_COLUMNS = 6


@njit(cache=True)
def trail_bonus(space: int) -> int:
    """R9.2: 1 for a Scout on 7-12, 2 on 13-19."""
    if space >= LLAMA_STABLE:
        return 2
    return 1 if space >= GRANARY else 0


@njit(cache=True)
def _holding(s: np.ndarray, b: int, icon: int) -> int:
    """R9.1: what one icon of a card is worth: the player's Incas in the icon's production
    district, or the player's priests of the icon's kind (``b``: the player's base)."""
    if icon < NUM_PRODUCTION:
        return s[b + L.P_INCAS + icon]
    return s[b + L.P_PRIESTS + icon - NUM_PRODUCTION]


@njit(cache=True)
def victory_points(s: np.ndarray, p: int) -> int:
    """R9.1-R9.3: icons x holdings, the trail bonus, 3 VP per summit without a card."""
    b = pb(p)
    hand = s[b + L.P_HAND]
    vp = 0
    for c in range(NUM_CARDS):
        if (hand >> c) & 1:
            vp += _holding(s, b, CARD_ICONS[c, 0]) + _holding(s, b, CARD_ICONS[c, 1])
    return vp + trail_bonus(s[b + L.P_SCOUT]) + SUMMIT_VP * s[b + L.P_SUMMIT_VP]


@njit(cache=True)
def vp_details(s: np.ndarray, p: int, out: np.ndarray) -> None:
    """``victory_points`` split: ``out[i]`` for the icon ``i`` (``data.ICONS``) on the
    player's cards, ``out[8]`` the trail bonus, ``out[9]`` the summits without a card."""
    b = pb(p)
    hand = s[b + L.P_HAND]
    out[:] = 0
    for c in range(NUM_CARDS):
        if (hand >> c) & 1:
            for j in range(2):
                out[CARD_ICONS[c, j]] += _holding(s, b, CARD_ICONS[c, j])
    out[8] = trail_bonus(s[b + L.P_SCOUT])
    out[9] = SUMMIT_VP * s[b + L.P_SUMMIT_VP]


@njit(cache=True)
def gold(s: np.ndarray, p: int) -> int:
    """R9.4: gold on the player's cards plus the trail bonus."""
    b = pb(p)
    hand = s[b + L.P_HAND]
    g = 0
    for c in range(NUM_CARDS):
        if (hand >> c) & 1:
            g += CARD_GOLD[c]
    return g + trail_bonus(s[b + L.P_SCOUT])


@njit(cache=True)
def goods_units(s: np.ndarray, p: int) -> int:
    """R9.5: goods units left (3 corn = 1 unit, remainder ignored)."""
    b = pb(p) + L.P_GOODS
    return s[b] // CORN_PER_UNIT + s[b + 1] + s[b + 2] + s[b + 3] + s[b + 4]


@njit(cache=True)
def conquest_multiplier(golds: np.ndarray, g: int) -> int:
    """R9.4: x3 for the most gold, x2 for the second most, else x1; ties share a rank and the
    ranks are dense (count the distinct gold values above ``g``)."""
    above = 0
    for i in range(golds.shape[0]):
        if golds[i] > g:
            first = True
            for j in range(i):
                if golds[j] == golds[i]:
                    first = False
                    break
            if first:
                above += 1
    return 3 if above == 0 else (2 if above == 1 else 1)


@njit(cache=True)
def final_scores(s: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out[:n, :6]`` (vp, gold, multiplier, score, goods units, winner).

    The conquest multipliers (R9.4: dense gold ranks x3, x2, x1) apply only when the game ended
    by conquest; winners (R9.5 tie-break on goods units, then shared) are marked only once the
    game is over.
    """
    n = s[L.NUM_PLAYERS]
    for p in range(n):
        out[p, SC_VP] = victory_points(s, p)
        out[p, SC_GOLD] = gold(s, p)
        out[p, SC_UNITS] = goods_units(s, p)
        out[p, SC_MULT] = 1
        out[p, SC_WINNER] = 0
    if s[L.END_KIND] == L.END_CONQUEST:
        for p in range(n):
            out[p, SC_MULT] = conquest_multiplier(out[:n, SC_GOLD], out[p, SC_GOLD])
    for p in range(n):
        out[p, SC_SCORE] = out[p, SC_VP] * out[p, SC_MULT]
    if s[L.GAME_OVER] == 1:
        best_score = -1
        best_units = -1
        for p in range(n):
            sc = out[p, SC_SCORE]
            u = out[p, SC_UNITS]
            if sc > best_score or (sc == best_score and u > best_units):
                best_score = sc
                best_units = u
        for p in range(n):
            if out[p, SC_SCORE] == best_score and out[p, SC_UNITS] == best_units:
                out[p, SC_WINNER] = 1
