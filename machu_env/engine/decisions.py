"""Applying one (legal) decision to the state; each sets the stage that follows it.

The caller guarantees legality (``Game.play`` and the batch engine check it first); these
functions only carry out the rule and never call ``advance`` themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine import stages as S
from machu_env.engine.common import move_scout, pay_to_bank, pb, popcount, take_from_bank
from machu_env.engine.legal import market_buy_price, take_kinds
from machu_env.rules import actions as A
from machu_env.rules import layout as L
from machu_env.rules.data import (
    ADJACENT,
    CENTRAL_PLAZA,
    CONDOR_TEMPLE,
    CORN,
    CORN_PER_UNIT,
    HOUSE_OF_PRIESTS,
    HOUSE_OF_VIRGINS,
    INCA_COST,
    LAST_DAY,
    LLAMA,
    MAIN_TEMPLE,
    MAIN_TEMPLE_STEPS,
    MARKET_FULL_SELL,
    MARKET_PRICES,
    MARKET_SPACES,
    MOON_CORN,
    MOON_CORN_PAYOUT,
    MOON_TILES_PER_DAY,
    MOON_TRAIL_STEPS,
    NUM_CARDS,
    NUM_PRIEST_CARDS,
    NUM_PRODUCTION,
    PRIEST_COST,
    PRIEST_ROW_SIZE,
    ROYAL_PALACE,
    SUN_CLOCK_STEPS,
    TAKE_SETS,
    TEMPLE_STONE_STEPS,
    WATCHMANS_HUT,
)


@njit(cache=True)
def sacrifice_value(s: np.ndarray, kind: int) -> int:
    """R4.4.2: the lowest visible number of a priest row = (row size + 4) - cards taken."""
    return PRIEST_ROW_SIZE[kind] + 4 - s[L.PRIESTS_TAKEN + kind]


@njit(cache=True)
def _goods_tile_payable(s: np.ndarray, p: int, t: int) -> bool:
    """R7.1: a goods moon tile is a decision only when its owner has corn and the bank has it."""
    return s[pb(p) + L.P_GOODS + CORN] > 0 and s[L.BANK + t] > 0


@njit(cache=True)
def moon_payout(s: np.ndarray, p: int, t: int, ret: int) -> None:
    """Pay moon tile ``t`` to ``p`` (R7.1, R7.5); a payable goods tile becomes a decision."""
    if t == MOON_CORN:
        s[pb(p) + L.P_GOODS + CORN] += MOON_CORN_PAYOUT
        s[L.STAGE] = ret
    elif t <= 4:
        if _goods_tile_payable(s, p, t):
            s[L.CTX_TILE] = t
            s[L.DECIDER] = p
            s[L.REDEEM_RET] = ret
            s[L.STAGE] = S.D_REDEEM
        else:
            s[L.STAGE] = ret
    else:
        move_scout(s, p, MOON_TRAIL_STEPS[t])
        s[L.STAGE] = ret


@njit(cache=True)
def _stay(s: np.ndarray, p: int, t: int) -> None:
    """R3.3: take moon tile ``t``; R6.1 the 3rd tile of the day brings the Sun tile."""
    s[L.MOON_OWNER + t] = p
    s[L.MOONS_TODAY] += 1
    if s[L.MOONS_TODAY] == MOON_TILES_PER_DAY:
        s[L.SUN] = p
        s[L.LAST_TURNS] = s[L.NUM_PLAYERS]  # this turn plus one more for every other player
    if s[L.DAY] == LAST_DAY:  # R7.5: paid at once on day 9
        moon_payout(s, p, t, S.F_END_TURN)
    else:
        s[L.STAGE] = S.F_END_TURN


@njit(cache=True)
def _enter(s: np.ndarray, p: int, d: int) -> None:
    """R3.4 / R4: the action of district ``d`` for active player ``p``."""
    s[L.CTX_DISTRICT] = d
    s[L.DECIDER] = p
    if d <= MAIN_TEMPLE:  # the 9 once-a-day districts
        units = s[L.BONUS + d]
        if units == 0:  # R4.0: the Incas already worked today
            s[L.STAGE] = S.F_END_TURN
            return
        s[L.BONUS + d] = 0
        s[L.CURSOR] = 0
        if d < NUM_PRODUCTION:  # R4.1
            s[pb(p) + L.P_GOODS + d] += units * (CORN_PER_UNIT if d == CORN else 1)
            s[L.STAGE] = S.F_PRODUCE_STEP
        else:  # R4.2
            move_scout(s, p, TEMPLE_STONE_STEPS * units)
            s[L.STAGE] = S.F_TEMPLE_STEP
    elif d == WATCHMANS_HUT or d == ROYAL_PALACE:
        s[L.CTX_PLACED] = 0
        s[L.STAGE] = S.D_PLACE
    elif d == HOUSE_OF_PRIESTS or d == HOUSE_OF_VIRGINS:
        s[L.STAGE] = S.D_ACQUIRE
    elif d == CENTRAL_PLAZA:
        s[L.MKT_BOUGHT] = 0
        s[L.MKT_SOLD] = 0
        s[L.STAGE] = S.D_MARKET_ADJUST
    else:  # SUN_CLOCK
        s[L.STAGE] = S.D_SUNCLOCK


@njit(cache=True)
def _move(s: np.ndarray, p: int, a: int) -> None:
    if a >= A.A_STAY:
        _stay(s, p, a - A.A_STAY)
        return
    d = a - A.A_MOVE
    b = pb(p)
    cur = s[b + L.P_PRINCE]
    if cur >= 0 and ADJACENT[cur, d] == 0:  # R3.2: one llama to the bank
        s[b + L.P_GOODS + LLAMA] -= 1
        s[L.BANK + LLAMA] += 1
    s[b + L.P_PRINCE] = d
    _enter(s, p, d)


@njit(cache=True)
def _produce(s: np.ndarray, p: int, k: int) -> None:
    d = s[L.CTX_DISTRICT]
    if d == CORN:
        s[pb(p) + L.P_GOODS + CORN] += CORN_PER_UNIT * k
    else:
        s[pb(p) + L.P_GOODS + CORN] -= k
        take_from_bank(s, p, d, k)
    s[L.CURSOR] += 1
    s[L.STAGE] = S.F_PRODUCE_STEP


@njit(cache=True)
def _sacrifice(s: np.ndarray, p: int, k: int) -> None:
    kind = s[L.CTX_DISTRICT] - CONDOR_TEMPLE
    s[pb(p) + L.P_GOODS + LLAMA] -= k
    s[L.BANK + LLAMA] += k
    move_scout(s, p, k * sacrifice_value(s, kind))
    s[L.CURSOR] += 1
    s[L.STAGE] = S.F_TEMPLE_STEP


@njit(cache=True)
def _offer(s: np.ndarray, p: int, m: int) -> None:
    b = pb(p) + L.P_GOODS
    for g in range(5):
        if (m >> g) & 1:
            if g == CORN:
                s[b] -= CORN_PER_UNIT
            else:
                s[b + g] -= 1
                s[L.BANK + g] += 1
    move_scout(s, p, MAIN_TEMPLE_STEPS * popcount(m))
    s[L.CURSOR] += 1
    s[L.STAGE] = S.F_TEMPLE_STEP


@njit(cache=True)
def _place(s: np.ndarray, p: int, a: int) -> None:
    if a == A.A_DONE:
        s[L.STAGE] = S.F_END_TURN
        return
    t = a - A.A_PLACE
    pay_to_bank(s, p, INCA_COST[t])
    b = pb(p)
    s[b + L.P_SUPPLY] -= 1
    s[b + L.P_INCAS + t] += 1
    s[L.CTX_PLACED] |= 1 << t


@njit(cache=True)
def _acquire(s: np.ndarray, p: int, a: int) -> None:
    s[L.STAGE] = S.F_END_TURN
    if a == A.A_PASS:
        return
    k = a - A.A_ACQUIRE
    pay_to_bank(s, p, PRIEST_COST[k])
    s[pb(p) + L.P_PRIESTS + k] += 1
    s[L.PRIESTS_TAKEN + k] += 1
    taken = s[L.PRIESTS_TAKEN] + s[L.PRIESTS_TAKEN + 1] + s[L.PRIESTS_TAKEN + 2]
    if taken == NUM_PRIEST_CARDS:  # R8.1: the game ends after this turn
        s[L.LAST_PRIEST] = 1


@njit(cache=True)
def _market_adjust(s: np.ndarray, a: int) -> None:
    if a >= A.A_MARKET_REMOVE:
        g = a - A.A_MARKET_REMOVE + 1
        s[L.MARKET + g] -= 1
        s[L.BANK + g] += 1
    elif a >= A.A_MARKET_ADD:
        g = a - A.A_MARKET_ADD + 1
        s[L.BANK + g] -= 1
        s[L.MARKET + g] += 1
    s[L.STAGE] = S.D_MARKET_TRADE


@njit(cache=True)
def _market_trade(s: np.ndarray, p: int, a: int) -> None:
    b = pb(p) + L.P_GOODS
    if a == A.A_DONE:
        s[L.STAGE] = S.F_END_TURN
    elif a >= A.A_SELL:
        g = a - A.A_SELL + 1
        s[b + g] -= 1
        k = s[L.MARKET + g]
        if k < MARKET_SPACES:
            s[b + CORN] += MARKET_PRICES[k]
            s[L.MARKET + g] = k + 1
        else:
            s[b + CORN] += MARKET_FULL_SELL
            s[L.BANK + g] += 1
        s[L.MKT_SOLD] |= 1 << g
    else:
        g = a - A.A_BUY + 1
        s[b + CORN] -= market_buy_price(s, g)
        if s[L.MARKET + g] > 0:
            s[L.MARKET + g] -= 1
        else:
            s[L.BANK + g] -= 1
        s[b + g] += 1
        s[L.MKT_BOUGHT] |= 1 << g


@njit(cache=True)
def _sunclock(s: np.ndarray, p: int, a: int) -> None:
    s[L.STAGE] = S.F_END_TURN
    if a == A.A_PASS:
        return
    b = pb(p)
    s[b + L.P_INCAS + a - A.A_SUNCLOCK] -= 1
    s[b + L.P_SUN_CLOCK] += 1
    if s[L.DAY] == LAST_DAY:  # R7.5: the payout is immediate, the Inca stays
        s[L.REDEEM_RET] = S.F_END_TURN
        s[L.STAGE] = S.F_TAKE


@njit(cache=True)
def finish_take(s: np.ndarray, p: int, kinds: int) -> None:
    """R7.2: give one unit of each good in ``kinds`` and advance the Scout 3; at night the
    Inca goes back to the supply (on day 9 it stays)."""
    for g in range(5):
        if (kinds >> g) & 1:
            take_from_bank(s, p, g, CORN_PER_UNIT if g == CORN else 1)
    move_scout(s, p, SUN_CLOCK_STEPS)
    if s[L.DAY] < LAST_DAY:
        b = pb(p)
        s[b + L.P_SUN_CLOCK] -= 1
        s[b + L.P_SUPPLY] += 1
    s[L.STAGE] = s[L.REDEEM_RET]


@njit(cache=True)
def start_take(s: np.ndarray, p: int) -> None:
    """A Sun Clock payout for ``p``: a decision when 3 of at least 4 kinds can be chosen,
    otherwise every available kind (at most 3) is taken at once."""
    s[L.DECIDER] = p
    avail = take_kinds(s)
    if popcount(avail) > 3:
        s[L.STAGE] = S.D_TAKE
    else:
        finish_take(s, p, avail)


@njit(cache=True)
def _return_card(s: np.ndarray, p: int, c: int) -> None:
    """R5.3: put card ``c`` at the very bottom of the deck."""
    s[pb(p) + L.P_HAND] &= ~(1 << c)
    s[pb(p) + L.P_RETURNED] |= 1 << c  # p knows where it is (R10.2)
    s[L.DECK + (s[L.DECK_TOP] + s[L.DECK_COUNT]) % NUM_CARDS] = c
    s[L.DECK_COUNT] += 1
    s[L.CTX_COUNT] -= 1
    if s[L.CTX_COUNT] == 0:
        s[L.STAGE] = S.F_REWARDS


@njit(cache=True)
def _redeem(s: np.ndarray, p: int, a: int) -> None:
    t = s[L.CTX_TILE]
    if a < A.A_FORGO:
        s[pb(p) + L.P_GOODS + CORN] -= 1
        take_from_bank(s, p, t, 1)
    s[L.CTX_TILE] = t + 1  # the night's tile loop continues after this tile
    s[L.STAGE] = s[L.REDEEM_RET]


@njit(cache=True)
def history_kind(st: int, a: int) -> int:
    """The history kind (``L.HISTORY_KINDS``) of action ``a`` at decision stage ``st``, or -1:
    moves, stays, productions, sacrifices and offers of at least one unit, placements, market
    trades and Sun Clock uses."""
    if st == S.D_MOVE:
        return L.H_MOVE if a < A.A_STAY else L.H_STAY
    if st == S.D_PRODUCE and a > A.A_PRODUCE:
        return L.H_PRODUCE
    if st == S.D_SACRIFICE and a > A.A_SACRIFICE:
        return L.H_SACRIFICE
    if st == S.D_OFFER and a > A.A_OFFER:
        return L.H_OFFER
    if st == S.D_PLACE and a < A.A_DONE:
        return L.H_PLACE
    if st == S.D_MARKET_TRADE and A.A_BUY <= a < A.A_SUNCLOCK:
        return L.H_TRADE
    if st == S.D_SUNCLOCK and a != A.A_PASS:
        return L.H_SUNCLOCK
    return -1


@njit(cache=True)
def apply_decision(s: np.ndarray, a: int) -> None:
    """Carry out legal action ``a`` for the pending decision (and count it in the decider's
    history, ``L.P_HISTORY``)."""
    st = s[L.STAGE]
    p = s[L.DECIDER]
    h = history_kind(st, a)
    if h >= 0:
        s[pb(p) + L.P_HISTORY + h] += 1
    if st == S.D_MOVE:
        _move(s, p, a)
    elif st == S.D_PRODUCE:
        _produce(s, p, a - A.A_PRODUCE)
    elif st == S.D_SACRIFICE:
        _sacrifice(s, p, a - A.A_SACRIFICE)
    elif st == S.D_OFFER:
        _offer(s, p, a - A.A_OFFER)
    elif st == S.D_PLACE:
        _place(s, p, a)
    elif st == S.D_ACQUIRE:
        _acquire(s, p, a)
    elif st == S.D_MARKET_ADJUST:
        _market_adjust(s, a)
    elif st == S.D_MARKET_TRADE:
        _market_trade(s, p, a)
    elif st == S.D_SUNCLOCK:
        _sunclock(s, p, a)
    elif st == S.D_RETURN:
        _return_card(s, p, a - A.A_RETURN)
    elif st == S.D_REDEEM:
        _redeem(s, p, a)
    elif st == S.D_TAKE:
        i = a - A.A_TAKE
        finish_take(s, p, (1 << TAKE_SETS[i, 0]) | (1 << TAKE_SETS[i, 1]) | (1 << TAKE_SETS[i, 2]))
    elif st == S.D_START:  # R2.9
        b = pb(p)
        s[b + L.P_SUPPLY] -= 1
        s[b + L.P_INCAS + a - A.A_START] += 1
        s[L.CURSOR] += 1
        s[L.STAGE] = S.F_SETUP_NEXT

