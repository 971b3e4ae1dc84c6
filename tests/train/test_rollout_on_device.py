"""The rollout buffer on the learner's device: the policy's tensors and a copy of the observations
live where the network runs, the engine writes on the host. On a machine without a GPU the
device's path runs on CPU tensors kept apart (``mirror``) and must train exactly the weights of
the host's path; on a CUDA GPU the tensors are there."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from train_kit import tiny  # noqa: E402

from machu_env.core.learner_batch import LearnerBatch  # noqa: E402
from machu_env.train.ppo.overlap import Overlap  # noqa: E402
from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net  # noqa: E402
from machu_env.train.ppo.workers import EpisodeCounts  # noqa: E402
from machu_env.train.run.selfplay import Trainer  # noqa: E402


def _trained(mirror: bool, overlap: bool, device: str = "cpu"):
    """A small learner's weights after four updates, its buffer kept apart or not (one torch
    thread throughout: overlap widens the update's threads when its rollout ends, and a sum
    over another number of threads is another float)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train(mirror, overlap, device)
    finally:
        torch.set_num_threads(threads)


def _train(mirror: bool, overlap: bool, device: str):
    env = LearnerBatch(8, 2, seed=3, pool={"random": 0.5, "gold": 0.5})
    model = PPO(new_net(net_config([32, 32]), 3).to(device),
                PPOSettings(n_envs=8, n_steps=16, batch_size=64, n_epochs=2), seed=3)
    model.buffer = model.new_rollout(mirror)
    if overlap:
        both = Overlap(model, seed=3, threads=1)
        both.begin(env)
        for _ in range(4):
            both.step(env, None, 10**6)
        both.close()
    else:
        env.reset()
        model.start(env)
        for _ in range(4):
            model.collect(env)
            model.update()
    return model, {k: v.detach().cpu().numpy() for k, v in model.net.state_dict().items()}


@pytest.mark.parametrize("overlap", [False, True], ids=["plain", "overlap"])
def test_the_devices_copy_of_the_rollout_trains_the_same_weights(overlap):
    model, apart = _trained(mirror=True, overlap=overlap)
    B = model.buffer
    assert B.mirrored and B.obs_in.data_ptr() != B.obs.data_ptr()  # (a copy, not a view)
    assert torch.equal(B.obs_in, B.obs) and torch.equal(B.masks_in, B.masks)
    _, host = _trained(mirror=False, overlap=overlap)
    assert all(np.array_equal(apart[k], host[k]) for k in host)


def test_the_workers_rollout_reaches_the_devices_copy(tmp_path):
    trainer = Trainer(tiny(tmp_path / "run", rollout_workers=3, threads=1), verbose=False)
    model = trainer.model
    model.buffer = B = model.new_rollout(mirror=True)
    B.obs_in.fill_(-7.0)
    trainer.env.collect(model.net, B, EpisodeCounts())
    assert torch.equal(B.obs_in, B.obs) and torch.equal(B.masks_in, B.masks)
    assert not (B.obs_in == -7.0).all(dim=2).any()
    trainer.env.close()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_cuda_gpu_the_policy_and_the_update_read_the_rollout_there():
    model, weights = _trained(mirror=False, overlap=True, device="cuda")
    B = model.buffer
    assert B.mirrored and B.obs.is_pinned() and not B.obs.is_cuda
    assert all(t.is_cuda for t in (B.obs_in, B.masks_in, B.actions, B.logp, B.values))
    taken = B.masks_in[:-1].gather(2, B.actions[..., None])[..., 0]
    assert taken.all() and all(np.isfinite(w).all() for w in weights.values())
