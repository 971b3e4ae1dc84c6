"""Fast evaluation of a policy against one opponent kind: many games at once on the batch engine.

Every game of the batch is played exactly once (the learner's seat drawn per game), the policy
takes its most probable legal action, and the result is the learner's win share. Used by the
trainer's periodic evaluations; the shipped agents' reported figures come from
``machu tournament``, which plays them through the ``PolicyAgent`` one decision at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .pool_env import PoolVecEnv

Predict = Callable[[np.ndarray, np.ndarray], np.ndarray]


def win_share(predict: Predict, opponent: Any, games: int, num_players: int = 2,
              seed: int = 0) -> float:
    """The share of ``games`` (each played once, in parallel) that ``predict`` wins against
    ``opponent`` at every other seat: ``random``, ``builder``, ``gold`` (compiled) or a bank
    of frozen policies (``bank.PolicyBank`` or ``exploit.AgentBank``)."""
    return float(game_results(predict, opponent, games, num_players, seed).mean())


def game_results(predict: Predict, opponent: Any, games: int, num_players: int = 2,
                 seed: int = 0, max_learner_steps: int = 1000) -> np.ndarray:
    """1 for every game of ``games`` that ``predict`` won, else 0 (see ``win_share``); a game
    not over after ``max_learner_steps`` of its decisions counts as not won."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if isinstance(opponent, str):
        env = PoolVecEnv(games, num_players, seed=seed, pool={opponent: 1.0},
                         max_learner_steps=max_learner_steps)
    else:
        env = PoolVecEnv(games, num_players, seed=seed, pool={"self": 1.0},
                         max_learner_steps=max_learner_steps)
        env.set_snapshots(opponent)
    obs = env.reset()
    result = np.full(games, -1, dtype=np.int8)
    while (result < 0).any():
        obs, _, dones, infos = env.step(predict(obs, env.action_masks()))
        for i in np.flatnonzero(dones & (result < 0)):
            result[i] = infos[i]["won"]
    return result
