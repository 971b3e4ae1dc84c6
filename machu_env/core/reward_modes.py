"""Terminal rewards shared by every adapter (PettingZoo, Gymnasium, the batch engine).

* ``"win"`` (default): +1 to the winner(s), -1 to the others (R9.4, R9.5; a shared win is +1 each).
* ``"rank"``: linear from +1 for first to -1 for last; players tied on (score, goods units) share
  the better rank.
* ``"score"``: the final score minus the mean of the others' scores, divided by 50.

The computation itself is the njit ``engine.rewards.terminal_rewards``.
"""

from __future__ import annotations

import numpy as np

from machu_env.engine.rewards import terminal_rewards as _terminal_rewards
from machu_env.engine.scoring import NUM_SCORE_COLUMNS, SC_SCORE, SC_UNITS, SC_WINNER

REWARD_MODES = ("win", "rank", "score")  # index = the engine's mode code


def check_reward_mode(reward: str) -> int:
    """The engine's mode code of ``reward``; ValueError for an unknown mode."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}; "
                         f"got {reward!r}")
    return REWARD_MODES.index(reward)


def terminal_rewards(scores: list[dict], reward: str) -> list[float]:
    """One reward per player from ``Game.scores()`` of a finished game."""
    n = len(scores)
    table = np.zeros((n, NUM_SCORE_COLUMNS), dtype=np.int32)
    for p, s in enumerate(scores):  # the columns the rewards read
        table[p, SC_SCORE], table[p, SC_UNITS] = s["score"], s["goods_units"]
        table[p, SC_WINNER] = s["winner"]
    out = np.zeros(n, dtype=np.float64)
    _terminal_rewards(table, n, check_reward_mode(reward), out)
    return [float(x) for x in out]
