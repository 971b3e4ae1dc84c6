"""Where a training run's games are stepped: by the learner itself (one ``LearnerBatch``), on
rollout-worker threads (``workers.LocalWorkers``) or on Ray actors (``ray_workers``)."""

from __future__ import annotations

from collections.abc import Callable

from machu_env.core.learner_batch import LearnerBatch
from machu_env.train.ppo.workers import LocalWorkers, WorkerSpec


def games_of(config, net_config: dict, say: Callable[[str], None] | None = None):
    """A run's games (``TrainConfig``): one ``LearnerBatch`` stepped by the learner itself, or
    split over rollout workers, threads here or Ray actors with ``--ray`` (``say`` reports a
    lost one)."""
    c = config
    if c.rollout_workers <= 1 and not c.ray:
        games = LearnerBatch(c.n_envs, c.players, seed=c.seed, pool=c.pool, reward=c.reward,
                             observation=c.observation, head_start=c.head_start)
        games.undo_on_error = False  # (a failed step ends the run: no copy of every game)
        return games
    spec = WorkerSpec.of(c, net_config)
    if c.ray:
        from machu_env.train.ppo.ray_workers import RayWorkers

        return RayWorkers(spec, c.rollout_workers, say=say)
    return LocalWorkers(spec, c.rollout_workers, c.threads)
