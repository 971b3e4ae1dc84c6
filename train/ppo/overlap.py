"""Rollout and update at once: the next rollout is collected on a second thread while the
learner updates on the last one (``machu train --overlap``).

On a 2-core machine the PPO update scales over two threads and the rollout does not (the
frozen opponents' small forward passes and the Python between the compiled kernels run on one
core): with ``--threads 2`` and no overlap the second core idles through most of each rollout.
Here each part keeps one core busy: a rollout thread steps the games (the engine's kernels
release the GIL) with a copy of the policy, and the main thread runs the update. The price is
one update of policy lag, as in APPO and Sample Factory: rollout ``k + 1`` is played by the
policy before update ``k``. The update then uses decoupled PPO (Hilton et al. 2022): the ratio
is clipped around a proximal policy, and each sample is reweighted by that policy's
probability over the one that played it (capped at ``ppo.MAX_LAG_WEIGHT``). The proximal
policy of a sample is the one that first sees it in the update: a pass of its own over the
rollout (the policy the update starts from) cost a sixth of the update, which is the
overlap's critical path. Plain PPO's clipping around the older policy needed about twice the
steps to 95 % against ``gold``; the decoupled update about as many as the plain trainer
(three seeds each, research/log.md). Once the rollout thread is done, the rest of
the update uses every thread.

The copy is synchronised after every update, the rollout thread has its own sampling stream
(seeded from the run's seed), and everything else a trainer does between updates —
snapshots, evaluations, exploiters, checkpoints — happens while no rollout is in flight.
The threads are split: with ``threads`` T, torch uses ``max(1, T // 2)`` in each thread (T
once the rollout is done) and the rollout thread's numba kernels ``max(1, T - T // 2)``. A
rollout process instead of the thread (no shared GIL) was measured as fast within this
machine's round-to-round noise, with a start-up and a main guard to pay: not kept (research).
"""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor

from machu_env.train.ppo.ppo import PPO


def split_threads(threads: int) -> tuple[int, int]:
    """(torch threads, the rollout thread's numba threads) for a total of ``threads``."""
    torch_threads = max(1, threads // 2)
    return torch_threads, max(1, threads - torch_threads)


class Plain:
    """The trainer's default step: a rollout, then the update on it."""

    pending = False

    def __init__(self, model: PPO) -> None:
        self.model = model

    def begin(self, env) -> None:
        """Start the games and observe them into the first rollout."""
        env.reset()
        self.model.start(env)

    def step(self, env, on_episodes, timesteps: int) -> dict[str, float]:
        self.model.collect(env, on_episodes)
        self.model.progress = self.model.num_timesteps / timesteps  # (the entropy schedule)
        return self.model.update()

    def close(self) -> None:
        pass


def stepper(model: PPO, seed: int, threads: int, overlap: bool) -> Plain | Overlap:
    """The trainer's step: ``Overlap`` with ``overlap``, else ``Plain``."""
    return Overlap(model, seed, threads) if overlap else Plain(model)


def _set_numba_threads(n: int) -> None:
    import numba

    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))  # (per thread in numba)


class Overlap:
    """Drives ``model``'s rollouts on a thread of its own, one rollout ahead of its updates."""

    def __init__(self, model: PPO, seed: int, threads: int = 0) -> None:
        import numba

        self.threads = threads or numba.get_num_threads()
        numba_threads = split_threads(self.threads)[1]
        self.model = model
        model.actor_net = copy.deepcopy(model.net).eval().requires_grad_(False)
        model.decoupled = True  # (its data is one update old: ppo.PPO.update)
        model.rollout_generator = model.sampling_stream(int(seed) + 7_919)
        self.spare = model.new_rollout(model.buffer.mirrored)
        self.pending = False  # a collected rollout waits in model.buffer for its update
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="rollout",
                                        initializer=_set_numba_threads,
                                        initargs=(numba_threads,))

    def begin(self, env) -> None:
        """Start the games and observe them into the first rollout."""
        env.reset()
        self.model.start(env)

    def step(self, env, on_episodes, timesteps: int) -> dict[str, float]:
        """One update on the pending rollout (collected first if none is), with the next
        rollout collected meanwhile while that one still fits in ``timesteps``. Returns the
        update's loss statistics. The model's ``num_timesteps`` counts the steps trained on:
        a rollout still waiting for its update is not in it (checkpoints, snapshots and
        evaluations are labelled with the steps their policy learned from)."""
        import torch

        m = self.model
        batch = m.s.n_steps * m.s.n_envs
        if self.pending:  # (a rollout counts in num_timesteps once it is trained on)
            m.num_timesteps += batch
        else:
            self._pool.submit(m.collect, env, on_episodes).result()
        m.progress = min(1.0, m.num_timesteps / timesteps)  # (the entropy schedule)
        future = None
        if m.num_timesteps < timesteps:
            nxt, last = self.spare, m.buffer
            nxt.carry_over(last)
            future = self._pool.submit(m.collect, env, on_episodes, nxt)
        try:
            losses = m.update(between=lambda: self._widen(future))
        finally:
            torch.set_num_threads(split_threads(self.threads)[0])
            if future is not None:
                future.result()  # (a failed rollout raises here, after the update)
        m.actor_net.load_state_dict(m.net.state_dict())
        if future is not None:
            m.buffer, self.spare = self.spare, m.buffer
            m.num_timesteps -= batch  # (collected, not yet trained on)
        self.pending = future is not None
        return losses

    def _widen(self, future) -> None:
        """Once the rollout thread is done, the rest of the update takes every thread."""
        import torch

        if (future is None or future.done()) and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)

    def close(self) -> None:
        """Stop the rollout thread (no rollout is in flight between steps)."""
        self._pool.shutdown(wait=True)
