"""Rollout collection for ``ppo.PPO``: one env on the calling thread, or the parts of a
``PoolParts`` env (``machu_env.envs.pool_parts``) on a thread each.

Every part runs the whole loop for its columns of the rollout buffer -- the learner's forward
pass, the engine, the opponents -- with its own sampling generator, so the rollout does not
depend on how the threads interleave. While the parts run, numba uses one thread per part (the
parts are the parallelism). Torch's thread settings are left alone: they are process-wide (the
matrix library's among them), and changing them here would change other computations' sums.
"""

from __future__ import annotations

import threading
import time

import numpy as np


def collect(model, env, on_episodes=None) -> None:
    """One rollout of ``n_steps`` learner steps in every game of ``env`` into ``model``'s
    buffer. ``on_episodes`` gets each step's ``StepResult`` (for win statistics; called under
    a lock when parts run at once)."""
    parts = getattr(env, "parts", None)
    t0 = time.perf_counter()
    if parts is None or len(parts) == 1:
        env_parts = [env] if parts is None else parts
        cols = [slice(None)] if parts is None else env.slices
        policy, simulator = _collect_part(model, env_parts[0], cols[0], model.generator,
                                          on_episodes)
    else:
        policy, simulator = _collect_parts(model, env, on_episodes)
        wall = time.perf_counter() - t0  # the threads' times overlap: the wall-clock, shared
        total = max(policy + simulator, 1e-12)  # out in the threads' proportions
        policy, simulator = wall * policy / total, wall * simulator / total
    t1 = time.perf_counter()
    B = model.buffer
    B.values[-1] = model._values(B.obs[-1])
    model.seconds["rollout_policy"] += policy + time.perf_counter() - t1
    model.seconds["simulator"] += simulator
    model.num_timesteps += model.s.n_steps * model.s.n_envs


def _collect_parts(model, env, on_episodes) -> tuple[float, float]:
    """Each part on a thread of its own; (policy, simulator) seconds summed over the threads.
    An error in a part is raised here after every thread has stopped."""
    import numba

    generators = model.part_generators(len(env.parts))
    lock = threading.Lock()

    def guarded(r) -> None:
        with lock:
            on_episodes(r)

    done: list[tuple[float, float] | BaseException | None] = [None] * len(env.parts)

    def work(j: int) -> None:
        try:
            numba.set_num_threads(1)  # (numba's thread count is per thread)
            done[j] = _collect_part(model, env.parts[j], env.slices[j], generators[j],
                                    guarded if on_episodes is not None else None)
        except BaseException as e:  # noqa: BLE001 (re-raised on the calling thread)
            done[j] = e

    workers = [threading.Thread(target=work, args=(j,), daemon=True)
               for j in range(len(env.parts))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for result in done:
        if isinstance(result, BaseException):
            raise result
    return sum(r[0] for r in done), sum(r[1] for r in done)


def _collect_part(model, env, cols: slice, generator, on_episodes) -> tuple[float, float]:
    """``n_steps`` steps of ``env``'s games into the buffer's columns ``cols``; returns the
    (policy, simulator) seconds."""
    B, s = model.buffer, model.s
    policy = simulator = 0.0
    for t in range(s.n_steps):
        t0 = time.perf_counter()
        actions, logp, values = model._policy(B.obs[t, cols], B.masks[t, cols], generator)
        B.actions[t, cols], B.logp[t, cols], B.values[t, cols] = actions, logp, values
        t1 = time.perf_counter()
        r = env.advance(actions.numpy().astype(np.int32))
        env.observe(B.obs_np[t + 1, cols], B.masks_np[t + 1, cols])
        t2 = time.perf_counter()
        rewards = torch_from(r.rewards)
        if r.cut.size and s.cut_as_loss:  # stalling to the limit is no way out
            rewards[r.cut] -= 1.0
        elif r.cut.size:  # truncated games: bootstrap from their last observation
            rewards[r.cut] += s.gamma * model._values(r.cut_obs)
        B.rewards[t, cols] = rewards
        B.starts[t + 1, cols] = torch_from(r.dones.astype(np.float32))
        if on_episodes is not None:
            on_episodes(r)
        policy += t1 - t0 + time.perf_counter() - t2
        simulator += t2 - t1
    return policy, simulator


def torch_from(array: np.ndarray):
    """A tensor over ``array``'s memory (a contiguous copy first where it is not)."""
    import torch

    return torch.from_numpy(np.ascontiguousarray(array))
