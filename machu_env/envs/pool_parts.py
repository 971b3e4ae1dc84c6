"""``PoolParts``: a training batch split into parts that separate threads step at once.

One ``PoolVecEnv`` of 128 games is stepped by one thread: its compiled kernels are short and
the policy's forward passes small, so a second core adds little (2 threads trained 1.4-1.6x
as fast as 1 on a 2-core EPYC, 2026-11-27, the simulator 1.1-1.4x). Split into ``parts``
envs of ``num_envs / parts`` games each, every part can run the whole collection loop -- the
learner's forward pass, the engine, the opponents' forward passes -- on its own thread: the
engine's kernels release the GIL (``nogil``) and so do torch's operators, so the parts run
side by side (``train.collect``).

Each part has its own games and seed streams (part 0 keeps ``seed``: one part is exactly a
``PoolVecEnv``; part ``k`` > 0 the ``k``-th stream spawned from it) and its own frozen-policy
bank (``PolicyBank.fork``: the same weights, a generator of its own), so that what a part
plays depends on its own games only, never on how the threads interleave.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from machu_env.core.checks import check_int, check_seed
from machu_env.envs.pool_env import PoolVecEnv


def part_seed(seed: int, part: int) -> int:
    """The seed of part ``part`` (part 0: ``seed`` itself; the others spawned from it)."""
    if part == 0:
        return int(seed)
    return int(np.random.SeedSequence(int(seed), spawn_key=(int(part),)).generate_state(1)[0])


class PoolParts:
    """``num_envs`` games as ``parts`` ``PoolVecEnv`` s (sizes differing by at most one);
    ``slices[k]``: part ``k``'s columns in a rollout buffer of all ``num_envs`` games. The
    trainer's env API (``seed``, ``reset``, ``set_snapshots``, ``observe``) acts on every
    part; the per-step ``advance`` is each part's own."""

    def __init__(self, num_envs: int, parts: int, num_players: int = 2, seed: int = 0,
                 **settings: Any) -> None:
        n = check_int("num_envs", num_envs, 1, None)
        k = check_int("parts", parts, 1, n)
        seed = check_seed("seed", seed)
        sizes = [len(a) for a in np.array_split(np.arange(n), k)]
        self.parts = [PoolVecEnv(size, num_players, seed=part_seed(seed, j), **settings)
                      for j, size in enumerate(sizes)]
        ends = np.cumsum([0, *sizes])
        self.slices = [slice(int(a), int(b)) for a, b in zip(ends[:-1], ends[1:], strict=True)]
        self.num_envs = n
        self.num_players = num_players

    def seed(self, seed: int) -> None:
        """The seed of the next ``reset()`` (each part its own stream of it)."""
        seed = check_seed("seed", seed)
        for j, part in enumerate(self.parts):
            part.seed(part_seed(seed, j))

    def reset(self) -> None:
        for part in self.parts:
            part.reset()

    def set_snapshots(self, bank: Any, weights: Sequence[float] | None = None) -> None:
        """The frozen policies of every part: a bank forked per part (``fork``) where it can
        be, else the same bank or list of policies."""
        fork = getattr(bank, "fork", None)
        for j, part in enumerate(self.parts):
            part.set_snapshots(fork(j) if fork is not None else bank, weights=weights)

    def probabilities(self) -> dict[str, float]:
        return self.parts[0].probabilities()

    def observe(self, obs_out: np.ndarray, masks_out: np.ndarray) -> None:
        """Every game's learner observation and legal mask, each part into its columns."""
        for part, cols in zip(self.parts, self.slices, strict=True):
            part.observe(obs_out[cols], masks_out[cols])
