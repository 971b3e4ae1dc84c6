"""The learner's advantages: GAE(lambda) in one compiled pass (``rollout_buffer.gae``) gives
the step-by-step tensor loop's numbers bit for bit, and stops at game boundaries."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net  # noqa: E402
from machu_env.train.ppo.rollout_buffer import gae  # noqa: E402


def _tensor_loop(rewards, starts, values, gamma, lam):
    """GAE(lambda) a step at a time over float32 tensors, as PPO trainers write it."""
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[0])
    for t in range(rewards.shape[0] - 1, -1, -1):
        live = 1.0 - starts[t + 1]
        delta = rewards[t] + gamma * values[t + 1] * live - values[t]
        last = delta + gamma * lam * live * last
        adv[t] = last
    return adv


@pytest.mark.parametrize("shape,gamma,lam", [((128, 128), 0.99, 0.95), ((16, 1024), 0.99, 0.95),
                                             ((7, 5), 0.9, 0.8), ((1, 3), 1.0, 1.0)])
def test_the_compiled_pass_gives_the_tensor_loops_numbers_bit_for_bit(shape, gamma, lam):
    rng = np.random.default_rng(sum(shape))
    T, N = shape
    rewards = torch.from_numpy(rng.normal(size=(T, N)).astype(np.float32))
    starts = torch.from_numpy((rng.random((T + 1, N)) < 0.05).astype(np.float32))
    values = torch.from_numpy(rng.normal(size=(T + 1, N)).astype(np.float32))
    adv = np.full((T, N), np.nan, dtype=np.float32)
    gae(rewards.numpy(), starts.numpy(), values.numpy(), np.float32(gamma),
        np.float32(gamma * lam), adv)
    assert torch.equal(torch.from_numpy(adv), _tensor_loop(rewards, starts, values, gamma, lam))


def test_ppo_advantages_stop_at_game_boundaries():
    model = PPO(new_net(net_config([8]), 0), PPOSettings(n_envs=1, n_steps=3, batch_size=3),
                seed=0)
    B = model.buffer
    B.rewards[:, 0] = torch.tensor([0.0, 1.0, 0.0])
    B.values[:, 0] = torch.tensor([0.5, 0.5, 0.5, 0.5])
    B.starts[:, 0] = torch.tensor([1.0, 0.0, 1.0, 0.0])  # the game ends after step 1
    adv, returns = model.advantages()
    g, lam = model.s.gamma, model.s.gae_lambda
    assert adv[1, 0] == pytest.approx(1.0 - 0.5)  # no bootstrap across the restart
    assert adv[0, 0] == pytest.approx((g * 0.5 - 0.5) + g * lam * 0.5)
    assert adv[2, 0] == pytest.approx(g * 0.5 - 0.5)
    assert torch.allclose(returns, adv + B.values[:-1])
