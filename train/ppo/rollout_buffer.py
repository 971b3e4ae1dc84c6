"""The rollout buffer of the PPO learner (``ppo.PPO``): preallocated tensors, one row a step.

The engine writes each step's observations, legal masks, rewards and game starts straight into
host tensors (their numpy views: no per-step copies). What the policy produces (actions,
log-probabilities, values) is stored on the learner's device, and so is a copy of the
observations and masks that the forward passes and the update read: on a GPU each step's
observations go over once, asynchronously from pinned memory, the actions are sampled there and
only they come back, and the update finds its whole batch already on the device. On the CPU the
copy is the host tensors themselves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine.observation import OBS_SIZE, OBS_V2_SIZE
from machu_env.rules.actions import NUM_ACTIONS

HOST_FIELDS = ("obs", "masks", "rewards", "starts")  # written by the engine (numpy views)
DEVICE_FIELDS = ("actions", "logp", "values")  # written by the policy, on its device


def rollout_bytes(n_steps: int, n_envs: int, obs_size: int = OBS_V2_SIZE) -> int:
    """The host bytes of ``Rollout(n_steps, n_envs)`` (observations, masks, actions, values...)."""
    per_row = obs_size * 4 + NUM_ACTIONS + 4 + 4  # obs, masks, values, starts (T + 1 rows)
    return (n_steps + 1) * n_envs * per_row + n_steps * n_envs * (8 + 4 + 4)


class Rollout:
    """Preallocated rollout tensors, ``(n_steps, n_envs, ...)``: the engine's on the host with
    numpy views (``obs_np``, ``masks_np``), the policy's on ``device``, and the observations and
    masks as the network reads them (``obs_in``, ``masks_in``: on the device, filled by
    ``send``). ``mirror`` keeps that copy apart on the CPU too (the GPU's path, testable without
    one)."""

    def __init__(self, n_steps: int, n_envs: int, obs_size: int = OBS_SIZE,
                 device=None, mirror: bool = False) -> None:
        import torch

        T, N = n_steps, n_envs
        self.device = torch.device("cpu" if device is None else device)
        self.mirrored = mirror or self.device.type != "cpu"
        pin = self.device.type == "cuda"  # (pinned pages: the copies to the GPU are async)

        def host(shape, dtype=torch.float32):
            return torch.zeros(shape, dtype=dtype, pin_memory=pin)

        def here(shape, dtype=torch.float32):
            return torch.zeros(shape, dtype=dtype, device=self.device)

        self.obs = host((T + 1, N, obs_size))
        self.masks = host((T + 1, N, NUM_ACTIONS), torch.bool)
        self.rewards = host((T, N))
        self.starts = host((T + 1, N))  # 1 where a step starts a new game
        self.actions = here((T, N), torch.long)
        self.logp = here((T, N))
        self.values = here((T + 1, N))
        self.obs_np, self.masks_np = self.obs.numpy(), self.masks.numpy()
        if self.mirrored:
            self.obs_in, self.masks_in = here(self.obs.shape), here(self.masks.shape, torch.bool)
        else:
            self.obs_in, self.masks_in = self.obs, self.masks

    def send(self, rows=slice(None)) -> None:
        """The host's observations and masks of ``rows`` (a step, or a slice) to the device."""
        if self.mirrored:
            self.obs_in[rows].copy_(self.obs[rows], non_blocking=True)
            self.masks_in[rows].copy_(self.masks[rows], non_blocking=True)

    def carry_over(self, source: Rollout | None = None) -> None:
        """The last observation (of ``source``, by default this rollout) becomes the first of
        the next rollout."""
        source = self if source is None else source
        self.obs[0].copy_(source.obs[-1])
        self.masks[0].copy_(source.masks[-1])
        self.starts[0].copy_(source.starts[-1])
        self.send(0)


@njit(cache=True)
def gae(rewards: np.ndarray, starts: np.ndarray, values: np.ndarray, gamma: np.float32,
        gamma_lambda: np.float32, adv: np.ndarray) -> None:
    """GAE(lambda) advantages of a rollout into ``adv`` (T, N), in one compiled pass: from the
    step's ``rewards`` (T, N), ``starts`` (T + 1, N: 1 where a game began before the step's
    observation) and ``values`` (T + 1, N), float32 throughout, so that each sum is the one the
    step-by-step tensor loop gives, rounded as it rounds (tested bit for bit)."""
    T, N = rewards.shape
    one = np.float32(1.0)
    for t in range(T - 1, -1, -1):
        for i in range(N):
            live = one - starts[t + 1, i]
            delta = rewards[t, i] + gamma * values[t + 1, i] * live - values[t, i]
            later = adv[t + 1, i] if t + 1 < T else np.float32(0.0)
            adv[t, i] = delta + gamma_lambda * live * later
