# Reproduces research/log.md, "A model for 16 cores and a GPU" (2026-12-08).
"""Two serial parts of a training step, timed: the undo copy of every game that a
``LearnerBatch`` step keeps (``_undo_on_error``) beside the step itself (``advance_unchecked``
against ``gold``, 3 players), and GAE over a rollout as a step-by-step tensor loop and as one
compiled pass (``train.ppo.rollout_buffer.gae``), at the trainer's batch shapes.

    python research/sweeps/serial_parts.py
"""

from __future__ import annotations

import time

import numpy as np
import torch

from machu_env.core.learner_batch import LearnerBatch
from machu_env.train.ppo.rollout_buffer import gae


def undo_copy(n: int) -> None:
    b = LearnerBatch(n, 3, seed=1, pool="gold:1", observation=2)
    b.reset()
    obs = np.zeros((n, b.obs_size), np.float32)
    masks = np.zeros((n, b.action_masks().shape[1]), np.bool_)
    rng = np.random.default_rng(0)

    def act():
        b.observe_unchecked(obs, masks)
        return (rng.random(masks.shape) * masks).argmax(1).astype(np.int32)

    for _ in range(20):
        b.advance_unchecked(act())
    t = time.perf_counter()
    for _ in range(200):
        with b._undo_on_error():
            pass
    copy = (time.perf_counter() - t) / 200
    t = time.perf_counter()
    for _ in range(100):
        b.advance_unchecked(act())
    step = (time.perf_counter() - t) / 100
    size = sum(a.nbytes for a in b._state_arrays())
    print(f"{n} games: undo copy {copy * 1e6:.1f} us a step ({size:,} bytes), "
          f"{copy / n * 1e6:.3f} us per env step; the step itself {step / n * 1e6:.2f} us")


def tensor_loop(r, s, v, gamma=0.99, lam=0.95):
    adv, last = torch.zeros_like(r), torch.zeros_like(r[0])
    for t in range(r.shape[0] - 1, -1, -1):
        live = 1.0 - s[t + 1]
        last = r[t] + gamma * v[t + 1] * live - v[t] + gamma * lam * live * last
        adv[t] = last
    return adv


def advantages(T: int, N: int) -> None:
    rng = np.random.default_rng(0)
    r = rng.normal(size=(T, N)).astype(np.float32)
    s = (rng.random((T + 1, N)) < 0.01).astype(np.float32)
    v = rng.normal(size=(T + 1, N)).astype(np.float32)
    adv = np.empty((T, N), np.float32)
    args = (r, s, v, np.float32(0.99), np.float32(0.99 * 0.95), adv)
    gae(*args)
    t = time.perf_counter()
    for _ in range(200):
        gae(*args)
    compiled = (time.perf_counter() - t) / 200
    rt, st, vt = (torch.from_numpy(x) for x in (r, s, v))
    tensor_loop(rt, st, vt)
    t = time.perf_counter()
    for _ in range(20):
        tensor_loop(rt, st, vt)
    loop = (time.perf_counter() - t) / 20
    print(f"GAE {T} x {N}: tensor loop {loop * 1e3:.2f} ms ({loop / (T * N) * 1e6:.3f} us per "
          f"env step), compiled {compiled * 1e3:.3f} ms ({compiled / (T * N) * 1e6:.4f})")


if __name__ == "__main__":
    torch.set_num_threads(1)
    for n in (128, 1024):
        undo_copy(n)
    for shape in ((128, 128), (16, 1024), (16, 4096)):
        advantages(*shape)
