"""``machu train --overlap``: the next rollout is collected while the learner updates."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("torch")

from train_kit import tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from machu_env.cli import app  # noqa: E402
from machu_env.core.learner_batch import LearnerBatch  # noqa: E402
from machu_env.train.ppo.overlap import Overlap, split_threads  # noqa: E402
from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net  # noqa: E402
from machu_env.train.run.selfplay import Trainer, train  # noqa: E402


def _parameters(path):
    from machu_env.agents import policy_file

    return policy_file.parse(policy_file.read_bytes(path))[0]


def _model_and_env(seed: int = 0):
    env = LearnerBatch(8, 2, seed=seed, pool={"random": 1.0})
    settings = PPOSettings(n_envs=8, n_steps=16, batch_size=64, n_epochs=2)
    model = PPO(new_net(net_config([32, 32]), seed), settings, seed=seed)
    env.reset()
    model.start(env)
    return model, env


def _logp_of_buffer(net, buffer):
    """The log-probabilities that ``net`` gives the actions recorded in ``buffer``."""
    import torch

    from machu_env.train.ppo.ppo import masked_logits

    T = buffer.actions.shape[0]
    with torch.no_grad():
        logits = net(buffer.obs[:T].reshape(-1, buffer.obs.shape[-1]))[0]
        logp = torch.log_softmax(masked_logits(logits, buffer.masks[:T].reshape(
            -1, buffer.masks.shape[-1])), dim=1)
    return logp.gather(1, buffer.actions.reshape(-1, 1))[:, 0].reshape(T, -1)


def test_the_next_rollout_is_played_by_the_policy_before_the_update():
    import copy

    import torch

    model, env = _model_and_env()
    both = Overlap(model, seed=0, threads=2)
    try:
        before = copy.deepcopy(model.net)
        assert model.decoupled  # (the update clips around the policy it starts from)
        both.step(env, None, timesteps=10_000)  # update 1 on rollout 1; rollout 2 collected
        assert both.pending and model.num_timesteps == 8 * 16  # (the steps trained on)
        recorded = model.buffer.logp  # rollout 2, waiting for update 2
        assert torch.allclose(_logp_of_buffer(before, model.buffer), recorded, atol=1e-5)
        assert not torch.allclose(_logp_of_buffer(model.net, model.buffer), recorded, atol=1e-5)
        # the rollout's copy of the policy is the learner again once the update is done
        for a, b in zip(model.actor_net.parameters(), model.net.parameters(), strict=True):
            assert torch.equal(a, b) and a.data_ptr() != b.data_ptr()
        # rollout 2 starts where rollout 1 ended
        assert both.spare.obs[-1].equal(model.buffer.obs[0])
    finally:
        both.close()


def test_the_last_rollout_is_trained_on_and_none_is_collected_past_the_budget():
    model, env = _model_and_env()
    both = Overlap(model, seed=0)
    try:
        updates = 0
        while model.num_timesteps < 3 * 128:
            both.step(env, None, timesteps=3 * 128)
            updates += 1
        assert updates == 3 and model.num_timesteps == 3 * 128 and not both.pending
    finally:
        both.close()


def test_an_overlapped_run_trains_checkpoints_and_is_reproducible(tmp_path):
    import torch

    runs = [train(tiny(tmp_path / name, seed=seed, overlap=True, threads=2), verbose=False)
            for name, seed in (("a", 7), ("b", 7), ("c", 8))]
    assert all(r["timesteps"] == 3072 for r in runs)
    with (tmp_path / "a" / "history.csv").open() as f:
        assert [int(r["timesteps"]) for r in csv.DictReader(f)] == [0, 2048, 3072]
    a, b, c = (_parameters(tmp_path / name / "latest.safetensors") for name in "abc")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
    plain = train(tiny(tmp_path / "plain", seed=7), verbose=False)  # the same data, no lag
    d = _parameters(tmp_path / "plain" / "latest.safetensors")
    assert not all(torch.equal(a[k], d[k]) for k in a)
    assert plain["timesteps"] == runs[0]["timesteps"]


def test_an_overlapped_run_resumes(tmp_path):
    out = tmp_path / "run"
    train(tiny(out, timesteps=2048, overlap=True), verbose=False)
    trainer = Trainer(tiny(out, timesteps=4096, overlap=True), resume=True, verbose=False)
    assert trainer.model.num_timesteps == 2048
    assert trainer.run()["timesteps"] == 4096


def test_threads_are_split_between_the_update_and_the_rollout():
    assert split_threads(1) == (1, 1)
    assert split_threads(2) == (1, 1)
    assert split_threads(8) == (4, 4)
    assert split_threads(5) == (2, 3)


def test_overlap_must_be_a_flag(tmp_path):
    with pytest.raises(ValueError, match="overlap must be true or false"):
        tiny(tmp_path / "run", overlap="yes").check()
    assert not (tmp_path / "run").exists()


def test_machu_train_overlap_runs(tmp_path):
    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["train", "--players", "2", "--timesteps", "1024", "--n-envs",
                                 "16", "--n-steps", "64", "--batch-size", "256", "--net-arch",
                                 "32,32", "--imitate", "", "--eval-every", "1024",
                                 "--eval-games", "8", "--overlap", "--threads", "2",
                                 "--device", "cpu", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "latest.safetensors").is_file()
    assert '"overlap": true' in (out / "config.json").read_text()
    summary = json.loads((out / "summary.json").read_text())
    assert np.isfinite(summary["steps_per_second"]) and "steps/s)" in r.stdout


def test_decoupled_ppo_on_data_of_the_current_policy_is_plain_ppo_within_one_pass():
    """One epoch, one minibatch: the proximal policy (the first visit) is the policy that
    played the data, so decoupled PPO takes plain PPO's step."""
    import torch

    models = []
    for decoupled in (False, True):
        model, env = _model_and_env(seed=3)
        model.s.n_epochs, model.s.batch_size = 1, 8 * 16
        model.collect(env)
        model.decoupled = decoupled
        stats = model.update()
        models.append((model, stats))
    (plain, a), (decoupled, b) = models
    for p, q in zip(plain.net.parameters(), decoupled.net.parameters(), strict=True):
        assert torch.allclose(p, q, atol=1e-6)
    assert abs(a["policy_loss"] - b["policy_loss"]) < 1e-6


def _update_on_stale_data(shift: float, decoupled: bool = True, n_epochs: int = 1):
    """A model updated once on its own rollout whose first four games' recorded (behaviour)
    log-probabilities are lowered by ``shift``, as if an older policy had played them."""
    model, env = _model_and_env(seed=4)
    model.s.n_epochs = n_epochs
    model.collect(env)
    model.buffer.logp[:, :4] -= shift
    model.decoupled = decoupled
    return model, model.update()


def test_decoupled_ppo_clips_around_the_policy_that_first_saw_each_sample():
    """Stale data: plain PPO clips around the policy that played it (most samples clipped);
    decoupled PPO around the policy that first sees each sample in the update, so its first
    epoch clips nothing and its later epochs clip what moved since that visit."""
    _, plain = _update_on_stale_data(5.0, decoupled=False)
    _, first = _update_on_stale_data(5.0)
    _, two = _update_on_stale_data(5.0, n_epochs=2)
    assert plain["clip_fraction"] > 0.4 and plain["approx_kl"] > 1.0
    assert first["clip_fraction"] == 0.0 and first["approx_kl"] == 0.0
    assert 0.0 < two["approx_kl"] < 0.1  # (measured in the second epoch, from the first visit)


def test_decoupled_ppo_weights_stale_samples_by_the_capped_probability_ratio():
    """A sample's weight is proximal / behaviour probability, capped at ``MAX_LAG_WEIGHT``:
    samples 5 and 50 nats staler weigh the same (both capped), 0.3 nats less."""
    import math

    import torch

    from machu_env.train.ppo.ppo import MAX_LAG_WEIGHT

    assert math.exp(0.3) < MAX_LAG_WEIGHT < math.exp(5.0)
    nets = [_update_on_stale_data(shift)[0].net.parameters() for shift in (5.0, 50.0, 0.3)]
    five, fifty, slight = (list(p) for p in nets)
    assert all(torch.equal(a, b) for a, b in zip(five, fifty, strict=True))
    assert not all(torch.allclose(a, b, atol=1e-7) for a, b in zip(five, slight, strict=True))
