"""Terminal rewards from the scores table (``scoring.final_scores``): the one implementation,
used by every adapter (``machu_env.core.reward_modes`` documents the modes)."""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.scoring import SC_SCORE, SC_UNITS, SC_WINNER

REWARD_WIN, REWARD_RANK, REWARD_SCORE = 0, 1, 2
SCORE_SCALE = 50.0


@njit(cache=True)
def terminal_rewards(scores: np.ndarray, n: int, mode: int, out: np.ndarray) -> None:
    """Write one reward per player into ``out[:n]`` for a finished game's ``scores``."""
    total = 0.0
    for p in range(n):
        total += scores[p, SC_SCORE]
    for p in range(n):
        if mode == REWARD_WIN:
            out[p] = 1.0 if scores[p, SC_WINNER] == 1 else -1.0
        elif mode == REWARD_RANK:
            ahead = 0  # players strictly ahead on (score, goods units)
            for q in range(n):
                if scores[q, SC_SCORE] > scores[p, SC_SCORE] or (
                    scores[q, SC_SCORE] == scores[p, SC_SCORE]
                    and scores[q, SC_UNITS] > scores[p, SC_UNITS]
                ):
                    ahead += 1
            out[p] = 1.0 - 2.0 * ahead / (n - 1)
        else:
            mine = scores[p, SC_SCORE]
            out[p] = (mine - (total - mine) / (n - 1)) / SCORE_SCALE
