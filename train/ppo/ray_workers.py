"""Rollout workers as Ray actors: ``machu train --ray ADDRESS`` spreads the run's games over a
cluster (the ``ray`` extra; ``ray_backend`` joins the cluster and says what it needs).

Each actor is a ``workers.RolloutWorker`` (one thread): it keeps its games between rollouts, gets
the learner's weights through the object store once per rollout (one ``ray.put`` shared by
all actors) and returns its columns as numpy arrays. The actors' streams are the same as
``LocalWorkers``' threads, so a Ray run repeats a threaded run of as many workers step for
step. The actors reserve no CPU in Ray's accounting and are spread over the nodes: they step
games only while the learner waits for them, and the evaluations' Ray tasks run only between
rollouts, so a reserved CPU would idle through every evaluation and hold its tasks back (with
as many actors as CPUs, for ever).

A worker lost mid-run (its process or its node gone) is replaced by a new actor, which gets
the pool again, starts new games from a stream of its own and plays that rollout's share
again; the run goes on and says so. After ``MAX_REPLACEMENTS`` losses in one rollout the run
stops with the error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Any

from machu_env.ray_backend import require_ray
from machu_env.train.ppo.ppo import Rollout
from machu_env.train.ppo.workers import (
    EpisodeCounts,
    RolloutWorker,
    WorkerSpec,
    merge,
    policy_weights,
    pool_payload,
    shares,
)

MAX_REPLACEMENTS = 3  # losses survived within one rollout
REPLACEMENT_SEED = 104_729  # a replacement's games: seed + REPLACEMENT_SEED x its number


class _Actor(RolloutWorker):
    """A ``RolloutWorker`` in a Ray worker process: one numba and one torch thread."""

    def __init__(self, spec: dict, index: int) -> None:
        import numba
        import torch

        numba.set_num_threads(1)
        torch.set_num_threads(1)
        super().__init__(spec, index)

    def ready(self) -> int:
        """The actor's process id, once it is built."""
        import os

        return os.getpid()


class RayWorkers:
    """``workers`` rollout actors on the connected Ray cluster (``ray_backend.connect``)."""

    def __init__(self, spec: WorkerSpec, workers: int,
                 say: Callable[[str], None] | None = None) -> None:
        ray = require_ray()
        self._ray, self.say = ray, say or (lambda text: None)
        self.widths = shares(spec.n_envs, workers)
        self.specs = [asdict(replace(spec, n_envs=w)) for w in self.widths]
        self._remote = ray.remote(num_cpus=0, max_restarts=0,
                                  scheduling_strategy="SPREAD")(_Actor)
        self.actors = [self._remote.remote(s, k) for k, s in enumerate(self.specs)]
        self.lost = 0
        self._pool: dict[str, Any] | None = None
        self._seed: int | None = None
        self.pids = ray.get([a.ready.remote() for a in self.actors])  # (a failed start here)

    def set_snapshots(self, bank, weights: Sequence[float] | None = None) -> None:
        self._pool = pool_payload(bank, weights)
        ref = self._ray.put(self._pool)
        self._ray.get([a.set_pool.remote(ref) for a in self.actors])

    def seed(self, seed: int) -> None:
        self._seed = int(seed)
        self._ray.get([a.seed.remote(seed) for a in self.actors])

    def collect(self, net, buffer: Rollout, counts: EpisodeCounts) -> dict[str, float]:
        """Every actor's rollout with ``net``'s weights, into ``buffer`` (lost actors
        replaced); the slowest actor's seconds."""
        ray = self._ray
        weights = ray.put(policy_weights(net))
        futures = [a.collect.remote(weights, True) for a in self.actors]
        parts: list[Any] = []
        for k, future in enumerate(futures):
            for attempt in range(MAX_REPLACEMENTS + 1):
                try:
                    parts.append(ray.get(future))
                    break
                except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError,
                        ray.exceptions.NodeDiedError) as e:
                    if attempt == MAX_REPLACEMENTS:
                        raise RuntimeError(f"rollout worker {k} was lost {attempt + 1} times "
                                           f"in one rollout: {type(e).__name__}") from None
                    future = self._replace(k).collect.remote(weights, True)
        return merge(parts, buffer, self.widths, counts)

    def _replace(self, k: int):
        """A new actor in place of worker ``k``: the pool again, new games."""
        ray = self._ray
        self.lost += 1
        self.say(f"rollout worker {k} was lost; a new one takes its "
                 f"{self.widths[k]} games (losses so far: {self.lost})")
        ray.kill(self.actors[k], no_restart=True)
        actor = self._remote.remote(self.specs[k], k)
        base = self._seed if self._seed is not None else self.specs[k]["seed"]
        ray.get(actor.seed.remote(base + REPLACEMENT_SEED * self.lost))
        if self._pool is not None:
            ray.get(actor.set_pool.remote(self._pool))
        self.actors[k] = actor
        self.pids[k] = ray.get(actor.ready.remote())
        return actor

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor, no_restart=True)
        self.actors = []
