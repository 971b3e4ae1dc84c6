"""The legal actions of the pending decision, written as an ascending list of action ids.

``legal_actions(s, buf)`` fills ``buf[:n]`` and returns ``n`` — a move list rather than a mask,
so that generating it costs only the legal actions and a random choice is one index.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine import stages as S
from machu_env.engine.common import can_afford, pb
from machu_env.rules import actions as A
from machu_env.rules import layout as L
from machu_env.rules.data import (
    ADJACENT,
    CONDOR_TEMPLE,
    CORN,
    CORN_PER_UNIT,
    HOUSE_OF_PRIESTS,
    INCA_COST,
    MARKET_EMPTY_BUY,
    MARKET_PRICES,
    MARKET_SPACES,
    NUM_CARDS,
    NUM_DISTRICTS,
    NUM_MOON_TILES,
    PLACE_OFFERS,
    PRIEST_COST,
    PRIEST_ROW_SIZE,
    TAKE_SETS,
)


@njit(cache=True)
def produce_max(s: np.ndarray, p: int, d: int) -> int:
    """R4.1: how many of ``p``'s Incas in district ``d`` can produce now."""
    b = pb(p)
    n = s[b + L.P_INCAS + d]
    if d == CORN:
        return n  # farmers produce free; corn is unlimited
    return min(n, s[b + L.P_GOODS + CORN], s[L.BANK + d])


@njit(cache=True)
def sacrifice_max(s: np.ndarray, p: int, d: int) -> int:
    """R4.2.1: llamas ``p`` may sacrifice at temple ``d`` (one per priest of its kind)."""
    b = pb(p)
    return min(s[b + L.P_PRIESTS + d - CONDOR_TEMPLE], s[b + L.P_GOODS + 1])


@njit(cache=True)
def offer_kinds(s: np.ndarray, p: int) -> int:
    """R4.2.2: bit mask of the goods kinds ``p`` could offer (corn needs 3)."""
    b = pb(p) + L.P_GOODS
    m = 1 if s[b] >= CORN_PER_UNIT else 0
    for g in range(1, 5):
        if s[b + g] > 0:
            m |= 1 << g
    return m


@njit(cache=True)
def take_kinds(s: np.ndarray) -> int:
    """R7.2: bit mask of goods kinds the bank can give (corn always)."""
    m = 1
    for g in range(1, 5):
        if s[L.BANK + g] > 0:
            m |= 1 << g
    return m


@njit(cache=True)
def market_buy_price(s: np.ndarray, g: int) -> int:
    k = s[L.MARKET + g]
    return MARKET_PRICES[k - 1] if k > 0 else MARKET_EMPTY_BUY


@njit(cache=True)
def _legal_move(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    b = pb(p)
    cur = s[b + L.P_PRINCE]
    n = 0
    if cur < 0:  # R2.10: the first turn goes anywhere, free
        for d in range(NUM_DISTRICTS):
            buf[n] = A.A_MOVE + d
            n += 1
        return n
    has_llama = s[b + L.P_GOODS + 1] > 0
    for d in range(NUM_DISTRICTS):
        if d != cur and (ADJACENT[cur, d] == 1 or has_llama):  # R3.1, R3.2, R3.4
            buf[n] = A.A_MOVE + d
            n += 1
    for t in range(NUM_MOON_TILES):  # R3.3
        if s[L.MOON_OWNER + t] < 0:
            buf[n] = A.A_STAY + t
            n += 1
    return n


@njit(cache=True)
def _legal_range(first: int, top: int, buf: np.ndarray) -> int:
    for k in range(top + 1):
        buf[k] = first + k
    return top + 1


@njit(cache=True)
def _legal_offer(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    avail = offer_kinds(s, p)
    n = 0
    for m in range(32):
        if m & ~avail == 0:
            buf[n] = A.A_OFFER + m
            n += 1
    return n


@njit(cache=True)
def _legal_place(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    d = s[L.CTX_DISTRICT]
    placed = s[L.CTX_PLACED]
    n = 0
    if s[pb(p) + L.P_SUPPLY] > 0:
        for t in range(5):
            if PLACE_OFFERS[d, t] == 1 and not (placed >> t) & 1 and can_afford(s, p, INCA_COST[t]):
                buf[n] = A.A_PLACE + t
                n += 1
    buf[n] = A.A_DONE
    return n + 1


@njit(cache=True)
def _legal_acquire(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    d = s[L.CTX_DISTRICT]
    lo, hi = (0, 2) if d == HOUSE_OF_PRIESTS else (2, 3)
    n = 0
    for k in range(lo, hi):
        if s[L.PRIESTS_TAKEN + k] < PRIEST_ROW_SIZE[k] and can_afford(s, p, PRIEST_COST[k]):
            buf[n] = A.A_ACQUIRE + k
            n += 1
    buf[n] = A.A_PASS
    return n + 1


@njit(cache=True)
def _legal_market_adjust(s: np.ndarray, buf: np.ndarray) -> int:
    buf[0] = A.A_MARKET_KEEP
    n = 1
    for g in range(1, 5):
        if s[L.BANK + g] > 0 and s[L.MARKET + g] < MARKET_SPACES:
            buf[n] = A.A_MARKET_ADD + g - 1
            n += 1
    for g in range(1, 5):
        if s[L.MARKET + g] > 0:
            buf[n] = A.A_MARKET_REMOVE + g - 1
            n += 1
    return n


@njit(cache=True)
def _legal_market_trade(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    b = pb(p) + L.P_GOODS
    bought = s[L.MKT_BOUGHT]
    sold = s[L.MKT_SOLD]
    buf[0] = A.A_DONE
    n = 1
    for g in range(1, 5):  # R4.5.2 buy; R4.5.3 not after selling it
        if (sold >> g) & 1:
            continue
        if s[L.MARKET + g] == 0 and s[L.BANK + g] == 0:
            continue
        if s[b + CORN] >= market_buy_price(s, g):
            buf[n] = A.A_BUY + g - 1
            n += 1
    for g in range(1, 5):  # sell; not after buying it
        if not (bought >> g) & 1 and s[b + g] > 0:
            buf[n] = A.A_SELL + g - 1
            n += 1
    return n


@njit(cache=True)
def _legal_sunclock(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    buf[0] = A.A_PASS
    n = 1
    b = pb(p) + L.P_INCAS
    for d in range(5):
        if s[b + d] > 0:
            buf[n] = A.A_SUNCLOCK + d
            n += 1
    return n


@njit(cache=True)
def _legal_return(s: np.ndarray, p: int, buf: np.ndarray) -> int:
    hand = s[pb(p) + L.P_HAND]
    n = 0
    for c in range(NUM_CARDS):
        if (hand >> c) & 1:
            buf[n] = A.A_RETURN + c
            n += 1
    return n


@njit(cache=True)
def _legal_take(s: np.ndarray, buf: np.ndarray) -> int:
    avail = take_kinds(s)
    n = 0
    for i in range(TAKE_SETS.shape[0]):
        m = (1 << TAKE_SETS[i, 0]) | (1 << TAKE_SETS[i, 1]) | (1 << TAKE_SETS[i, 2])
        if m & ~avail == 0:
            buf[n] = A.A_TAKE + i
            n += 1
    return n


@njit(cache=True)
def legal_actions(s: np.ndarray, buf: np.ndarray) -> int:
    """Write the pending decision's legal action ids into ``buf``; return how many (0 if none
    is pending)."""
    st = s[L.STAGE]
    p = s[L.DECIDER]
    if st == S.D_MOVE:
        return _legal_move(s, p, buf)
    if st == S.D_START:
        return _legal_range(A.A_START, 4, buf)
    if st == S.D_PRODUCE:
        return _legal_range(A.A_PRODUCE, produce_max(s, p, s[L.CTX_DISTRICT]), buf)
    if st == S.D_SACRIFICE:
        return _legal_range(A.A_SACRIFICE, sacrifice_max(s, p, s[L.CTX_DISTRICT]), buf)
    if st == S.D_OFFER:
        return _legal_offer(s, p, buf)
    if st == S.D_PLACE:
        return _legal_place(s, p, buf)
    if st == S.D_ACQUIRE:
        return _legal_acquire(s, p, buf)
    if st == S.D_MARKET_ADJUST:
        return _legal_market_adjust(s, buf)
    if st == S.D_MARKET_TRADE:
        return _legal_market_trade(s, p, buf)
    if st == S.D_SUNCLOCK:
        return _legal_sunclock(s, p, buf)
    if st == S.D_RETURN:
        return _legal_return(s, p, buf)
    if st == S.D_REDEEM:
        t = s[L.CTX_TILE]
        buf[0] = A.A_REDEEM + t - 1
        buf[1] = A.A_FORGO + t - 1
        return 2
    if st == S.D_TAKE:
        return _legal_take(s, buf)
    return 0
