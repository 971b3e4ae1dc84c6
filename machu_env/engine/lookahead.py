"""The heuristics' greedy lookahead, compiled: a value function of a player's position and the
choice of the legal action whose result scores best under it.

Every legal action is tried on a copy of the state (``flow.step``) and the result scored by
``position_value`` with a weight vector (one per heuristic: builder, gold, racer). A Prince move
is scored after the mover's own follow-up decisions of that turn are played the same greedy way.
``choose_fair`` first re-deals the cards the decider cannot see (``redeal``), so a choice never
depends on hidden information. The heuristic agents (``agents.heuristic``) and the training
pool's compiled opponents (``engine.pool``) call the same functions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.flow import step
from machu_env.engine.redeal import redeal
from machu_env.engine.scoring import victory_points
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.rules.data import CARD_GOLD, NUM_CARDS

# Weights of the value function (index: meaning).
W_VP, W_GOLD, W_INCA, W_PRIEST, W_CARD, W_TRAIL, W_MOON, W_SUNCLOCK = range(8)
W_CORN, W_LLAMA, W_COCA, W_POTTERY, W_CLOTH = range(8, 13)
NUM_WEIGHTS = 13

BUILDER_WEIGHTS = np.array(
    [4.0, 0.3, 1.5, 4.0, 1.5, 3.0, 0.5, 1.0, 0.2, 0.5, 0.7, 0.7, 0.7], dtype=np.float64)
GOLD_WEIGHTS = np.array(
    [3.0, 1.0, 1.0, 2.0, 3.0, 4.0, 0.5, 0.8, 0.2, 0.6, 0.5, 0.5, 0.5], dtype=np.float64)
# the best of 40 random variations of GOLD_WEIGHTS with trail >= 4.5, gold >= 1.2, moon >= 1,
# Sun Clock >= 1.2 (300 games each against gold; research/log.md)
RACER_WEIGHTS = np.array(
    [2.43, 1.2, 1.07, 2.2, 4.1, 4.5, 1.0, 1.2, 0.18, 1.07, 0.44, 0.76, 0.67], dtype=np.float64)


@njit(cache=True)
def position_value(s: np.ndarray, p: int, w: np.ndarray) -> float:
    """A heuristic value of player ``p``'s position (higher is better)."""
    b = L.PLAYER_BASE + p * L.PLAYER_SIZE
    hand = s[b + L.P_HAND]
    cards = 0
    gold = 0
    for c in range(NUM_CARDS):
        if (hand >> c) & 1:
            cards += 1
            gold += CARD_GOLD[c]
    incas = 0
    for d in range(5):
        incas += s[b + L.P_INCAS + d]
    priests = s[b + L.P_PRIESTS] + s[b + L.P_PRIESTS + 1] + s[b + L.P_PRIESTS + 2]
    moons = 0
    for t in range(7):
        if s[L.MOON_OWNER + t] == p:
            moons += 1
    trail = (s[b + L.P_SCOUT] + 20 * s[b + L.P_PEND_SUMMIT]) / 20.0
    v = w[W_VP] * victory_points(s, p) + w[W_GOLD] * gold + w[W_INCA] * incas
    v += w[W_PRIEST] * priests + w[W_CARD] * cards + w[W_TRAIL] * trail + w[W_MOON] * moons
    v += w[W_SUNCLOCK] * s[b + L.P_SUN_CLOCK]
    v += w[W_CORN] * s[b + L.P_GOODS] / 3.0 + w[W_CORN] * 3 * s[b + L.P_PEND_CORN]
    for g in range(1, 5):
        v += w[W_CORN + g] * s[b + L.P_GOODS + g]
    return v


@njit(cache=True)
def _best_action(s: np.ndarray, legal: np.ndarray, n: int, p: int, w: np.ndarray,
                 scratch: np.ndarray, buf: np.ndarray, noise: np.ndarray) -> int:
    """The legal action whose immediate result scores best for ``p`` (noise breaks ties)."""
    best, best_v = legal[0], -1e18
    for k in range(n):
        scratch[:] = s
        step(scratch, legal[k], buf)
        v = position_value(scratch, p, w) + noise[k]
        if v > best_v:
            best, best_v = legal[k], v
    return best


@njit(cache=True)
def _move_value(s: np.ndarray, a: int, p: int, w: np.ndarray, noise: np.ndarray) -> float:
    """Value of Prince move ``a`` after the mover's own greedy follow-ups in that turn."""
    t = s.copy()
    buf = np.zeros(NUM_ACTIONS, np.int32)
    scratch = np.zeros_like(s)
    inner = np.zeros(NUM_ACTIONS, np.int32)
    n = step(t, a, buf)
    while n > 0 and t[L.DECIDER] == p and t[L.ACTIVE] == p and t[L.STAGE] != 1:
        legal = buf[:n].copy()
        choice = _best_action(t, legal, n, p, w, scratch, inner, noise)
        n = step(t, choice, buf)
    return position_value(t, p, w)


@njit(cache=True)
def choose(s: np.ndarray, legal: np.ndarray, w: np.ndarray, noise: np.ndarray) -> int:
    """The heuristic's action for the pending decision of state ``s``."""
    p = s[L.DECIDER]
    n = legal.shape[0]
    if s[L.STAGE] == 1:  # a Prince move: look through the rest of the turn
        best, best_v = legal[0], -1e18
        for k in range(n):
            v = _move_value(s, legal[k], p, w, noise) + noise[k]
            if v > best_v:
                best, best_v = legal[k], v
        return best
    scratch = np.zeros_like(s)
    buf = np.zeros(NUM_ACTIONS, np.int32)
    return _best_action(s, legal, n, p, w, scratch, buf, noise)


@njit(cache=True)
def choose_fair(s: np.ndarray, legal: np.ndarray, w: np.ndarray, noise: np.ndarray,
                rng: np.ndarray, i: int) -> int:
    """``choose`` on a copy of ``s`` in which the cards the decider cannot see are re-dealt
    from generator ``rng[i]``: the choice depends only on what the decider may know."""
    t = s.copy()
    redeal(t, t[L.DECIDER], rng, i)
    return choose(t, legal, w, noise)
