"""Determinisation: re-deal the cards a player cannot see (R10), for fair lookahead.

An agent that looks ahead by stepping the engine must not step the true state: a simulated
summit would draw the real next cards of the deck. ``redeal`` replaces what player ``p`` cannot
know — the other players' hands and the deck order — by a random deal consistent with what
``p`` does know (its own hand, every hand's size, the deck's size, R10.1).

The result depends only on ``p``'s information and the generator: the pool of unseen cards is
taken in card-id order (a set, not the hidden arrangement) before it is shuffled, so permuting
the hidden cards of a position changes nothing an agent decides with the same seed.
The cards ``p`` put at the bottom of the deck itself and no one has drawn since (R10.2:
``P_RETURNED``) stay where they are: ``p`` knows them. The other players' memory of their own
returns is theirs: it is cleared in the re-dealt copy (a simulated opponent forgets where its
returned cards are rather than tell ``p``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.rng import below
from machu_env.rules import layout as L
from machu_env.rules.data import NUM_CARDS


@njit(cache=True)
def unseen_cards(s: np.ndarray, p: int) -> int:
    """Bit mask of the cards ``p`` cannot place: the other hands and the deck, less the cards
    ``p`` itself put at the bottom of the deck (``P_RETURNED``)."""
    mask = 0
    for q in range(s[L.NUM_PLAYERS]):
        if q != p:
            mask |= s[L.PLAYER_BASE + q * L.PLAYER_SIZE + L.P_HAND]
    for i in range(s[L.DECK_COUNT]):
        mask |= 1 << s[L.DECK + (s[L.DECK_TOP] + i) % NUM_CARDS]
    return mask & ~s[L.PLAYER_BASE + p * L.PLAYER_SIZE + L.P_RETURNED]


@njit(cache=True)
def redeal(s: np.ndarray, p: int, rng: np.ndarray, i: int) -> None:
    """Deal the cards ``p`` cannot see at random (generator ``rng[i]``), in place: the same
    hand sizes and deck size, the deck rewritten from ``DECK`` with ``DECK_TOP = 0``."""
    pool = np.empty(NUM_CARDS, np.int32)
    mask = unseen_cards(s, p)
    k = 0
    for c in range(NUM_CARDS):
        if (mask >> c) & 1:
            pool[k] = c
            k += 1
    for j in range(k - 1, 0, -1):
        r = below(rng, i, j + 1)
        pool[j], pool[r] = pool[r], pool[j]
    dealt = 0
    for q in range(s[L.NUM_PLAYERS]):
        if q == p:
            continue
        b = L.PLAYER_BASE + q * L.PLAYER_SIZE + L.P_HAND
        size = 0
        for c in range(NUM_CARDS):
            size += (s[b] >> c) & 1
        hand = 0
        for _ in range(size):
            hand |= 1 << pool[dealt]
            dealt += 1
        s[b] = hand
    known = s[L.PLAYER_BASE + p * L.PLAYER_SIZE + L.P_RETURNED]
    old = np.empty(NUM_CARDS, np.int32)
    for j in range(s[L.DECK_COUNT]):
        old[j] = s[L.DECK + (s[L.DECK_TOP] + j) % NUM_CARDS]
    for j in range(s[L.DECK_COUNT]):
        if (known >> old[j]) & 1:  # p's own return: it stays where p put it
            s[L.DECK + j] = old[j]
        else:
            s[L.DECK + j] = pool[dealt]
            dealt += 1
    s[L.DECK_TOP] = 0
    for q in range(s[L.NUM_PLAYERS]):
        if q != p:
            s[L.PLAYER_BASE + q * L.PLAYER_SIZE + L.P_RETURNED] = 0
