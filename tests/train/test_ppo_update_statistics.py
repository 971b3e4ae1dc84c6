"""The PPO update's statistics (train/ppo/ppo.py): summed on the device and read once,
they are still each minibatch's own figures, averaged."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from machu_env.core.learner_batch import LearnerBatch  # noqa: E402
from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net, policy_terms  # noqa: E402


def _collected(**settings):
    s = PPOSettings(n_envs=8, n_steps=8, batch_size=64, n_epochs=1, **settings)
    model = PPO(new_net(net_config([16]), 0), s)
    env = LearnerBatch(8, 2, seed=3, pool="random:1")
    env.reset()
    model.start(env)
    model.collect(env)
    return model


def test_one_minibatch_of_the_rollouts_own_policy_has_ratio_one():
    """The first minibatch sees the policy that played: nothing clipped, no KL, the policy loss
    minus the mean of a normalised advantage (0), the entropy the policy's over the rows."""
    model = _collected()
    B = model.buffer
    with torch.no_grad():
        logits = model.net(B.obs[:8].reshape(64, -1))[0]
        entropy = policy_terms(logits, B.masks[:8].reshape(64, -1))[2].mean().item()
    stats = model.update()
    assert stats["clip_fraction"] == 0.0
    assert stats["approx_kl"] == pytest.approx(0.0, abs=1e-6)
    assert stats["policy_loss"] == pytest.approx(0.0, abs=1e-5)
    assert stats["entropy"] == pytest.approx(entropy, rel=1e-5)
    assert stats["value_loss"] > 0 and "magnet_kl" not in stats


def test_statistics_average_over_every_minibatch_and_epoch():
    """Later minibatches see a policy that moved: the averages say so (a KL above 0)."""
    model = _collected(learning_rate=0.01)
    model.s.batch_size, model.s.n_epochs = 16, 3
    stats = model.update()
    assert stats["approx_kl"] > 0 and 0 <= stats["clip_fraction"] <= 1
    assert set(stats) == {"policy_loss", "value_loss", "entropy", "clip_fraction", "approx_kl",
                          "ent_coef"}
