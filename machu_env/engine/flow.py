"""The game's flow: turns, trail rewards, day end, night and game end (R3, R5.5, R6–R8).

``advance`` runs the flow stages and plays single-option decisions automatically (R12.2) until a
decision with at least two legal actions is pending (its ids are left in ``buf``) or the game is
over. ``step`` applies one decision and advances.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine import stages as S
from machu_env.engine.common import end_game, has_pending_rewards, pb, take_from_bank
from machu_env.engine.decisions import apply_decision, moon_payout, start_take
from machu_env.engine.legal import legal_actions, offer_kinds, sacrifice_max
from machu_env.rules import layout as L
from machu_env.rules.data import (
    CORN,
    CORN_PER_UNIT,
    LAST_DAY,
    LLAMA,
    MAIN_TEMPLE,
    MAX_BONUS_UNITS,
    NUM_CARDS,
    NUM_MOON_TILES,
    NUM_PRODUCTION,
    SUMMIT_DRAW,
)


@njit(cache=True)
def _start_rewards(s: np.ndarray, p: int, ret: int) -> None:
    s[L.REWARD_PLAYER] = p
    s[L.REWARD_RET] = ret
    s[L.STAGE] = S.F_REWARDS


@njit(cache=True)
def _draw(s: np.ndarray, p: int) -> int:
    """Draw the top card of the deck into ``p``'s hand; return the card id. Whoever had put
    it at the bottom no longer knows where it is (``P_RETURNED``)."""
    top = s[L.DECK_TOP]
    c = s[L.DECK + top]
    s[L.DECK_TOP] = (top + 1) % NUM_CARDS
    s[L.DECK_COUNT] -= 1
    s[pb(p) + L.P_HAND] |= 1 << c
    for q in range(s[L.NUM_PLAYERS]):
        s[pb(q) + L.P_RETURNED] &= ~(1 << c)
    return c


@njit(cache=True)
def _rewards(s: np.ndarray) -> None:
    """R5.2, R5.3, R5.5: pay one player's granary corn, stable llamas, then each summit."""
    p = s[L.REWARD_PLAYER]
    b = pb(p)
    if s[b + L.P_PEND_CORN]:
        s[b + L.P_GOODS + CORN] += CORN_PER_UNIT * s[b + L.P_PEND_CORN]
        s[b + L.P_PEND_CORN] = 0
    if s[b + L.P_PEND_LLAMA]:
        take_from_bank(s, p, LLAMA, s[b + L.P_PEND_LLAMA])  # R1.1: missing llamas are lost
        s[b + L.P_PEND_LLAMA] = 0
    if s[b + L.P_PEND_SUMMIT] == 0:
        s[L.STAGE] = s[L.REWARD_RET]
        return
    s[b + L.P_PEND_SUMMIT] -= 1
    if s[L.DECK_COUNT] == 0:  # R8.1: after the deck ran out a summit pays 3 VP
        s[b + L.P_SUMMIT_VP] += 1
        return
    k = min(SUMMIT_DRAW, s[L.DECK_COUNT])
    for _ in range(k):
        _draw(s, p)
    if k == 1:  # the last card: the deck is exhausted (R8.1)
        s[L.DECK_EXHAUSTED] = 1
        return
    s[L.CTX_COUNT] = k - 1  # return 2 of 3, or 1 of 2
    s[L.DECIDER] = p
    s[L.STAGE] = S.D_RETURN


@njit(cache=True)
def _setup_next(s: np.ndarray) -> None:
    """R2.9: initial Incas clockwise from the start player, then the first turn (R2.10)."""
    n = s[L.NUM_PLAYERS]
    if s[L.CURSOR] < n:
        s[L.DECIDER] = (s[L.START_PLAYER] + s[L.CURSOR]) % n
        s[L.STAGE] = S.D_START
    else:
        s[L.ACTIVE] = s[L.START_PLAYER]
        s[L.STAGE] = S.F_TURN_START


@njit(cache=True)
def _produce_step(s: np.ndarray) -> None:
    """R4.1: the next player (seat order from the active player) with Incas in the district."""
    n = s[L.NUM_PLAYERS]
    d = s[L.CTX_DISTRICT]
    while s[L.CURSOR] < n:
        p = (s[L.ACTIVE] + s[L.CURSOR]) % n
        if s[pb(p) + L.P_INCAS + d] > 0:
            s[L.DECIDER] = p
            s[L.STAGE] = S.D_PRODUCE
            return
        s[L.CURSOR] += 1
    s[L.STAGE] = S.F_END_TURN


@njit(cache=True)
def _temple_step(s: np.ndarray) -> None:
    """R4.2: the next player (seat order from the active player) who could sacrifice."""
    n = s[L.NUM_PLAYERS]
    d = s[L.CTX_DISTRICT]
    while s[L.CURSOR] < n:
        p = (s[L.ACTIVE] + s[L.CURSOR]) % n
        if d == MAIN_TEMPLE:
            if offer_kinds(s, p) != 0:
                s[L.DECIDER] = p
                s[L.STAGE] = S.D_OFFER
                return
        elif sacrifice_max(s, p, d) > 0:
            s[L.DECIDER] = p
            s[L.STAGE] = S.D_SACRIFICE
            return
        s[L.CURSOR] += 1
    s[L.STAGE] = S.F_END_TURN


@njit(cache=True)
def _end_turn_step(s: np.ndarray) -> None:
    """R5.5: trail rewards in seat order from the active player, then the turn's end."""
    n = s[L.NUM_PLAYERS]
    while s[L.CURSOR] < n:
        p = (s[L.ACTIVE] + s[L.CURSOR]) % n
        if has_pending_rewards(s, p):
            _start_rewards(s, p, S.F_END_TURN_NEXT)
            return
        s[L.CURSOR] += 1
    s[L.STAGE] = S.F_TURN_DONE


@njit(cache=True)
def _turn_done(s: np.ndarray) -> None:
    """R6.2, R6.3: last turns and the time-track corn; R8: game end; else next turn or night."""
    n = s[L.NUM_PLAYERS]
    p = s[L.ACTIVE]
    day_over = False
    if s[L.LAST_TURNS] > 0:
        s[L.LAST_TURNS] -= 1
        if s[L.LAST_TURNS] == 0:
            day_over = True
            s[pb(p) + L.P_GOODS + CORN] += 1  # R6.3: the corn on the day's moon symbol
    if s[L.LAST_PRIEST] == 1 or s[L.DECK_EXHAUSTED] == 1:  # R8.1
        end_game(s, L.END_RESCUE)
    elif day_over:
        if s[L.DAY] == LAST_DAY:  # R8.2
            end_game(s, L.END_CONQUEST)
        else:  # R7
            s[L.LOOP_BASE] = s[L.SUN]
            s[L.CURSOR] = 0
            s[L.CTX_TILE] = 0
            s[L.STAGE] = S.F_NIGHT_MOON_STEP
    else:
        s[L.ACTIVE] = (p + 1) % n
        s[L.STAGE] = S.F_TURN_START


@njit(cache=True)
def _night_moon_step(s: np.ndarray) -> None:
    """R7.1: each player's moon tiles (corn, goods, trail), then their trail rewards."""
    n = s[L.NUM_PLAYERS]
    if s[L.CURSOR] >= n:
        if s[L.DECK_EXHAUSTED] == 1:  # R8.1: the game ends after this night step
            end_game(s, L.END_RESCUE)
        else:
            s[L.CURSOR] = 0
            s[L.STAGE] = S.F_NIGHT_SUN_STEP
        return
    p = (s[L.LOOP_BASE] + s[L.CURSOR]) % n
    t = s[L.CTX_TILE]
    while t < NUM_MOON_TILES and s[L.MOON_OWNER + t] != p:
        t += 1
    if t == NUM_MOON_TILES:
        s[L.CTX_TILE] = 0
        _start_rewards(s, p, S.F_NIGHT_MOON_NEXT)
        return
    s[L.MOON_OWNER + t] = -1  # back to the board
    s[L.CTX_TILE] = t + 1
    moon_payout(s, p, t, S.F_NIGHT_MOON_STEP)


@njit(cache=True)
def _night_sun_step(s: np.ndarray) -> None:
    """R7.2: each player's Sun Clock Incas pay out one at a time, then their trail rewards."""
    n = s[L.NUM_PLAYERS]
    if s[L.CURSOR] >= n:
        if s[L.DECK_EXHAUSTED] == 1:
            end_game(s, L.END_RESCUE)
        else:
            s[L.STAGE] = S.F_NIGHT_BONUS
        return
    p = (s[L.LOOP_BASE] + s[L.CURSOR]) % n
    if s[pb(p) + L.P_SUN_CLOCK] > 0:
        s[L.REDEEM_RET] = S.F_NIGHT_SUN_STEP
        start_take(s, p)
    else:
        _start_rewards(s, p, S.F_NIGHT_SUN_NEXT)


@njit(cache=True)
def _night_bonus(s: np.ndarray) -> None:
    """R7.3 new bonus units (bank permitting, at most 2), R7.4 the next day."""
    for d in range(NUM_PRODUCTION, MAIN_TEMPLE + 1):
        if s[L.BONUS + d] < MAX_BONUS_UNITS:
            s[L.BONUS + d] += 1
    for d in range(NUM_PRODUCTION):
        if s[L.BONUS + d] < MAX_BONUS_UNITS and (d == CORN or s[L.BANK + d] > 0):
            if d != CORN:
                s[L.BANK + d] -= 1
            s[L.BONUS + d] += 1
    s[L.DAY] += 1
    s[L.ACTIVE] = s[L.SUN]
    s[L.SUN] = -1
    s[L.MOONS_TODAY] = 0
    s[L.LAST_TURNS] = -1
    s[L.STAGE] = S.F_TURN_START


@njit(cache=True)
def _flow_step(s: np.ndarray) -> None:
    st = s[L.STAGE]
    if st == S.F_TURN_START:
        s[L.DECIDER] = s[L.ACTIVE]
        s[L.STAGE] = S.D_MOVE
    elif st == S.F_PRODUCE_STEP:
        _produce_step(s)
    elif st == S.F_TEMPLE_STEP:
        _temple_step(s)
    elif st == S.F_END_TURN:
        s[L.CURSOR] = 0
        s[L.STAGE] = S.F_END_TURN_STEP
    elif st == S.F_END_TURN_STEP:
        _end_turn_step(s)
    elif st == S.F_END_TURN_NEXT:
        s[L.CURSOR] += 1
        s[L.STAGE] = S.F_END_TURN_STEP
    elif st == S.F_REWARDS:
        _rewards(s)
    elif st == S.F_TURN_DONE:
        _turn_done(s)
    elif st == S.F_NIGHT_MOON_STEP:
        _night_moon_step(s)
    elif st == S.F_NIGHT_MOON_NEXT:
        s[L.CURSOR] += 1
        s[L.STAGE] = S.F_NIGHT_MOON_STEP
    elif st == S.F_NIGHT_SUN_STEP:
        _night_sun_step(s)
    elif st == S.F_NIGHT_SUN_NEXT:
        s[L.CURSOR] += 1
        s[L.STAGE] = S.F_NIGHT_SUN_STEP
    elif st == S.F_NIGHT_BONUS:
        _night_bonus(s)
    elif st == S.F_TAKE:
        start_take(s, s[L.DECIDER])
    elif st == S.F_SETUP_NEXT:
        _setup_next(s)
    else:
        raise RuntimeError("machu_env engine: unknown stage")


@njit(cache=True)
def advance(s: np.ndarray, buf: np.ndarray) -> int:
    """Run until a real decision is pending (its legal ids in ``buf``; returns their count) or
    the game is over (returns 0). Single-option decisions are played automatically (R12.2)."""
    while True:
        st = s[L.STAGE]
        if st < S.NUM_DECISION_KINDS:
            n = legal_actions(s, buf)
            if n >= 2:
                return n
            if n == 0:
                raise RuntimeError("machu_env engine: a decision without legal actions")
            apply_decision(s, buf[0])
        elif st == S.F_GAME_OVER:
            return 0
        else:
            _flow_step(s)


@njit(cache=True)
def step(s: np.ndarray, a: int, buf: np.ndarray) -> int:
    """Apply legal action ``a`` for the pending decision, then ``advance``."""
    s[L.DECISIONS] += 1
    apply_decision(s, a)
    return advance(s, buf)
