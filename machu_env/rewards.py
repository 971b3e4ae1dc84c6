"""Terminal rewards shared by every env adapter (PettingZoo, Gymnasium).

* ``"win"`` (default): +1 to the winner(s), -1 to the others (R9.4, R9.5; a shared win is +1 each).
* ``"rank"``: linear from +1 for first to -1 for last; players tied on (score, goods units) share
  the better rank.
* ``"score"``: the final score minus the mean of the others' scores, divided by ``SCORE_SCALE``.
"""

from __future__ import annotations

REWARD_MODES = ("win", "rank", "score")
SCORE_SCALE = 50.0


def check_reward_mode(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}; "
                         f"got {reward!r}")
    return reward


def terminal_rewards(scores: list[dict], reward: str) -> list[float]:
    """One reward per player from ``Game.scores()`` of a finished game."""
    n = len(scores)
    if reward == "win":
        return [1.0 if s["winner"] else -1.0 for s in scores]
    if reward == "rank":
        keys = [(s["score"], s["goods_units"]) for s in scores]
        ranks = [sum(k > mine for k in keys) for mine in keys]  # players strictly ahead
        return [1.0 - 2.0 * r / (n - 1) for r in ranks]
    total = sum(s["score"] for s in scores)
    return [(s["score"] - (total - s["score"]) / (n - 1)) / SCORE_SCALE for s in scores]
