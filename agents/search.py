"""A search agent: determinized Monte Carlo search at the root (information-set style).

Each iteration re-deals what the deciding player cannot know — the other players' hands and the
deck order — consistently with what it does know (its own cards, every hand's size, the deck
size), tries one root action chosen by UCB1, plays on with random legal actions in compiled code
for ``depth`` decisions (or to the end), and scores the leaf: a finished game by its result,
otherwise by the gold heuristic's position value against the best opponent. The most visited
root action is played. The budget is a number of iterations or seconds per decision. The
re-deal is ``machu_env.engine.redeal.redeal``, shared by every agent that looks ahead.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from machu_env.agents.base import check_seconds
from machu_env.core.game import Game
from machu_env.engine.flow import step
from machu_env.engine.lookahead import GOLD_WEIGHTS, position_value
from machu_env.engine.redeal import redeal
from machu_env.engine.rng import below, seed_state
from machu_env.engine.scoring import SC_SCORE, SC_WINNER, final_scores
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS


@njit(cache=True)
def _leaf_value(t: np.ndarray, p: int, n: int, scores: np.ndarray, w: np.ndarray) -> float:
    """In [0, 1]-ish: a finished game's result, else the heuristic position value of ``p``
    against the best opponent, squashed."""
    if t[L.GAME_OVER] == 1:
        final_scores(t, scores)
        other = 0
        for q in range(n):
            if q != p and scores[q, SC_SCORE] > other:
                other = scores[q, SC_SCORE]
        margin = (scores[p, SC_SCORE] - other) / 50.0
        return scores[p, SC_WINNER] + 0.1 * max(-1.0, min(1.0, margin))
    mine = position_value(t, p, w)
    best = -1e18
    for q in range(n):
        if q != p:
            best = max(best, position_value(t, q, w))
    return 1.0 / (1.0 + math.exp(-(mine - best) / 10.0))


@njit(cache=True)
def search(s: np.ndarray, legal: np.ndarray, iterations: int, rng: np.ndarray,
           value: np.ndarray, visits: np.ndarray, c: float, depth: int, w: np.ndarray) -> None:
    """``iterations`` UCB1 iterations at the root; accumulates ``value`` and ``visits``.
    Rollouts are random for ``depth`` decisions, then the leaf is evaluated (``_leaf_value``)."""
    p = s[L.DECIDER]
    n = s[L.NUM_PLAYERS]
    k = legal.shape[0]
    t = np.empty_like(s)
    buf = np.zeros(NUM_ACTIONS, np.int32)
    scores = np.zeros((5, 6), np.int32)
    for _ in range(iterations):
        total = visits.sum()
        arm, best = 0, -1e18
        for a in range(k):
            if visits[a] == 0:
                arm = a
                break
            u = value[a] / visits[a] + c * math.sqrt(math.log(total) / visits[a])
            if u > best:
                arm, best = a, u
        t[:] = s
        redeal(t, p, rng, 0)
        m = step(t, legal[arm], buf)
        d = 0
        while m > 0 and d < depth:
            m = step(t, buf[below(rng, 0, m)], buf)
            d += 1
        value[arm] += _leaf_value(t, p, n, scores, w)
        visits[arm] += 1


class MCTSAgent:
    """Determinized root search with compiled random rollouts.

    Args:
        seconds: time budget per decision (used when ``iterations`` is None).
        iterations: a fixed number of iterations per decision (deterministic for a seed).
        c: the UCB1 exploration constant.
        depth: random decisions per rollout before the leaf is evaluated (default: play
            to the end; a short depth with the heuristic leaf value measured much weaker).
    """

    name = "mcts"

    def __init__(self, seed: int = 0, seconds: float = 1.0, iterations: int | None = None,
                 c: float = 0.7, depth: int = 10_000) -> None:
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        if iterations is None:
            check_seconds(seconds)
        self.seconds, self.iterations, self.c, self.depth = seconds, iterations, c, depth
        self.rng = seed_state(int(seed) * 2654435761 + 1)  # any int seed (mod 2**64)

    def act(self, game: Game) -> int:
        legal = np.array(game.legal_action_ids(), dtype=np.int32)
        value = np.zeros(len(legal))
        visits = np.zeros(len(legal), dtype=np.int64)
        s = game.state.copy()
        if self.iterations is not None:
            search(s, legal, self.iterations, self.rng, value, visits, self.c, self.depth,
                   GOLD_WEIGHTS)
        else:
            deadline = time.perf_counter() + self.seconds
            chunk = 16
            while time.perf_counter() < deadline:
                search(s, legal, chunk, self.rng, value, visits, self.c, self.depth,
                       GOLD_WEIGHTS)
                chunk = min(chunk * 2, 512)
        return int(legal[int(np.argmax(visits))])
