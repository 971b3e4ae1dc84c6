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

from machu_env.core.learner_batch import LearnerBatch
from machu_env.engine.observation import OBS_V2_SIZE
from machu_env.engine.rewards import SCORE_SCALE  # the "score" reward is the margin / 50
from machu_env.rules.layout import HISTORY_KINDS

HABITS = ("sacrifice", "offer", "sunclock")  # the decision kinds an evaluation reports per game

MAX_EVAL_STEPS = 300

Predict = Callable[[np.ndarray, np.ndarray], np.ndarray]


def win_share(predict: Predict, opponent: Any, games: int, num_players: int = 2,
              seed: int = 0) -> float:
    """The share of ``games`` (each played once, in parallel) that ``predict`` wins against
    ``opponent`` at every other seat: ``random``, ``builder``, ``gold`` (compiled) or a bank
    of frozen policies (``bank.PolicyBank`` or ``probe_opponent.AgentBank``)."""
    return float(game_results(predict, opponent, games, num_players, seed).mean())


def win_share_and_habits(predict: Predict, opponent: Any, games: int, num_players: int = 2,
                         seed: int = 0) -> tuple[float, dict[str, float]]:
    """``win_share`` and the learner's decisions of each kind of ``HABITS`` per game (temple
    sacrifices of at least one llama, Main Temple offerings, Sun Clock moves: the roads to the
    summit), so that a training run shows within minutes when it leaves one of them unused.
    Keys ``sacrifices_per_game``, ``offers_per_game``, ``sunclocks_per_game``."""
    won, _, _, counts = _play(predict, opponent, games, num_players, seed, 1000, None)
    return float(won.mean()), {f"{h}s_per_game": round(float(counts[:, k].mean()), 3)
                               for k, h in enumerate(HABITS)}


def game_results(predict: Predict, opponent: Any, games: int, num_players: int = 2,
                 seed: int = 0, max_learner_steps: int = 1000) -> np.ndarray:
    """1 for every game of ``games`` that ``predict`` won, else 0 (see ``win_share``); a game
    not over after ``max_learner_steps`` of its decisions counts as not won."""
    return _play(predict, opponent, games, num_players, seed, max_learner_steps, None)[0]


def game_outcomes(predict: Predict, opponent: Any, games: int, num_players: int = 2,
                  seed: int = 0, max_learner_steps: int = MAX_EVAL_STEPS
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(won, margin, cut) per game with the seats rotated: game ``k`` seats the learner at
    ``k % num_players`` (seat ``s``'s games are one batch seeded ``seed + s``). ``won`` is 1/0;
    ``margin`` is the learner's final score minus the mean of the others' scores. A game still
    running after ``max_learner_steps`` of the learner's decisions (two deterministic policies
    can move for ever without staying; games between trained policies end within about 130)
    counts as not won, margin 0, and ``cut`` 1 (so that a learner that stalls is seen)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    won = np.zeros(games, dtype=np.int8)
    margin = np.zeros(games, dtype=np.float64)
    cut = np.zeros(games, dtype=np.int8)
    for seat in range(min(num_players, games)):
        n = len(range(seat, games, num_players))
        w, m, c, _ = _play(predict, opponent, n, num_players, seed + seat, max_learner_steps,
                           seat)
        won[seat::num_players], margin[seat::num_players], cut[seat::num_players] = w, m, c
    return won, margin, cut


def _play(predict: Predict, opponent: Any, games: int, num_players: int, seed: int,
          max_learner_steps: int, seat: int | None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each of ``games`` played once: (won 1/0, score margin, cut 1/0) per game, and the
    learner's decisions of each kind of ``HABITS`` in it (from the history summary of its last
    observation, version 3)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    pool = {opponent: 1.0} if isinstance(opponent, str) else {"self": 1.0}
    # the longest observation (version 3): every predictor reads its prefix
    env = LearnerBatch(games, num_players, seed=seed, pool=pool, learner_seat=seat,
                     reward="score", max_learner_steps=max_learner_steps, observation=3)
    if not isinstance(opponent, str):
        env.set_snapshots(opponent, weights=getattr(opponent, "weights", None))
    env.reset()
    result = np.full(games, -1, dtype=np.int8)
    margin = np.zeros(games, dtype=np.float64)
    cut = np.zeros(games, dtype=np.int8)
    counts = np.zeros((games, len(HABITS)), dtype=np.int64)
    at = [OBS_V2_SIZE + HISTORY_KINDS.index(h) for h in HABITS]  # the learner's own block
    while (result < 0).any():
        chosen = env.checked_actions(predict(env.observations(), env.action_masks()))
        r = env.advance_unchecked(chosen)
        finished = np.concatenate([r.ended, r.cut])
        last = np.concatenate([env.terminal(r.ended), r.cut_obs])
        won = np.concatenate([r.won, np.zeros(r.cut.size, dtype=np.bool_)])
        for k in np.flatnonzero(result[finished] < 0):
            i = finished[k]
            result[i] = won[k]
            margin[i] = round(float(r.rewards[i]) * SCORE_SCALE, 3)
            cut[i] = k >= r.ended.size
            counts[i] = np.rint(last[k][at] * 50)  # (stored / 50)
    return result, margin, cut, counts
