"""Fast evaluation of a policy against one opponent kind: many games at once on the batch engine.

Every game of the batch is played exactly once (the learner's seat drawn per game), the policy
takes its most probable legal action, and the result is the learner's win share. Used by the
trainer's periodic evaluations; the shipped agents' reported figures come from
``machu tournament``, which plays them through the ``PolicyAgent`` one decision at a time.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .pool_env import PoolVecEnv

Predict = Callable[[np.ndarray, np.ndarray], np.ndarray]


def model_predict(model) -> Predict:
    """A batched deterministic ``(obs, masks) -> actions`` of a MaskablePPO model."""

    def predict(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        return np.asarray(actions)

    return predict


def win_share(predict: Predict, opponent: str, games: int, num_players: int = 2,
              seed: int = 0) -> float:
    """The share of ``games`` (each played once, in parallel) that ``predict`` wins against
    ``opponent`` (``random``, ``builder`` or ``gold``) at every other seat."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    env = PoolVecEnv(games, num_players, seed=seed, pool={opponent: 1.0})
    obs = env.reset()
    result = np.full(games, -1, dtype=np.int8)
    while (result < 0).any():
        obs, _, dones, infos = env.step(predict(obs, env.action_masks()))
        for i in np.flatnonzero(dones & (result < 0)):
            result[i] = infos[i]["won"]
    return float(result.mean())
