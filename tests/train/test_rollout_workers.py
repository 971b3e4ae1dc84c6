"""``machu train --rollout-workers N``: the games split over workers with a copy of the policy,
gathered into one rollout and one update; a run repeats itself from its seed, whatever runs the
workers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from train_kit import tiny  # noqa: E402

from machu_env.core.learner_batch import StepResult  # noqa: E402
from machu_env.train.ppo import sizing  # noqa: E402
from machu_env.train.ppo.workers import EpisodeCounts, LocalWorkers, shares, worker_seed  # noqa: E402
from machu_env.train.run.selfplay import Trainer, train  # noqa: E402


def _weights(folder):
    from machu_env.agents import policy_file

    return policy_file.parse(policy_file.read_bytes(folder / "latest.safetensors"))[0]


def test_the_games_are_split_evenly_and_each_worker_has_streams_of_its_own():
    assert shares(16, 3) == [6, 5, 5] and sum(shares(128, 7)) == 128
    assert shares(8, 1) == [8]
    assert len({worker_seed(0, k) for k in range(64)}) == 64
    assert worker_seed(0, 1) != worker_seed(1, 1)
    for bad in (0, 17):
        with pytest.raises(ValueError, match=r"rollout_workers must be in \[1, n_envs = 16\]"):
            shares(16, bad)


def test_every_workers_games_are_counted_once():
    counts = EpisodeCounts()
    r = StepResult(rewards=np.zeros(3, np.float32), dones=np.ones(3, bool),
                   ended=np.arange(3), won=np.array([1.0, 0.0, 1.0]),
                   opponents=np.array([0, 1, 0]), labels=["gold", "self"],
                   cut=np.zeros(0, np.int64), cut_obs=np.zeros((0, 1), np.float32))
    counts(r)
    counts.merge({"gold": [1, 4], "random": (0, 2)})
    assert counts == {"gold": [3, 6], "self": [0, 1], "random": [0, 2]}
    assert counts.shares() == {"gold": 0.5, "self": 0.0, "random": 0.0}


def test_a_run_on_workers_repeats_itself_and_differs_from_one_worker(tmp_path):
    runs = {}
    for name, workers in (("a", 3), ("b", 3), ("one", 1)):
        summary = train(tiny(tmp_path / name, rollout_workers=workers, threads=1),
                        verbose=False)
        assert summary["timesteps"] == 3072 and summary["rollout_workers"] == workers
        runs[name] = _weights(tmp_path / name)
    assert all(np.array_equal(runs["a"][k], runs["b"][k]) for k in runs["a"])
    assert not all(np.array_equal(runs["a"][k], runs["one"][k]) for k in runs["a"])


def test_the_workers_fill_the_whole_rollout_with_legal_moves_of_the_current_policy(tmp_path):
    import torch

    trainer = Trainer(tiny(tmp_path / "run", rollout_workers=3, threads=1), verbose=False)
    games, model = trainer.env, trainer.model
    assert isinstance(games, LocalWorkers) and games.widths == [6, 5, 5]
    model.buffer.obs.fill_(-7.0)
    counts = EpisodeCounts()
    games.collect(model.net, model.buffer, counts)
    B = model.buffer
    assert not (B.obs == -7.0).all(dim=2).any()  # every game's every row was written
    taken = B.masks[:-1].gather(2, B.actions[..., None])[..., 0]
    assert taken.all()  # every move legal where it was played
    with torch.no_grad():  # played by this policy: its log-probabilities were recorded
        logits = model.net(B.obs[0])[0]
        logp = torch.log_softmax(logits.masked_fill(~B.masks[0], -torch.inf), 1)
    assert torch.allclose(logp.gather(1, B.actions[0][:, None])[:, 0], B.logp[0], atol=1e-5)
    assert sum(n for _, n in counts.values()) > 0
    games.close()


def test_impossible_worker_settings_are_refused_before_anything_is_written(tmp_path):
    from machu_env.train.run.config import TrainConfig

    TrainConfig(rollout_workers=2).check()  # (games left at 0: sized first, then checked)
    for kw, words in (({"rollout_workers": 17}, "must not exceed n_envs"),
                      ({"rollout_workers": 2, "overlap": True}, "do not combine")):
        with pytest.raises(ValueError, match=words):
            Trainer(tiny(tmp_path / "run", **kw), verbose=False)
        assert not (tmp_path / "run").exists()


def test_with_ray_the_workers_are_one_per_cluster_cpu_and_the_games_grow_with_them():
    s = sizing.size(0, 0, 0, "auto", 2, None, rollout_workers=0, ray_cpus=32)
    assert (s.rollout_workers, s.n_envs, s.n_steps, s.threads) == (32, 2048, 8, 2)
    assert "32 rollout workers (Ray actors)" in s.words(2, None)
    here = sizing.size(0, 0, 0, "auto", 2, None, rollout_workers=0)
    assert (here.rollout_workers, here.n_envs) == (1, 128)
    assert "rollout workers" not in here.words(2, None)
    assert sizing.size(0, 0, 0, "auto", 2, None, rollout_workers=4).rollout_workers == 4


def test_a_run_on_workers_resumes_from_its_checkpoint(tmp_path):
    first = train(tiny(tmp_path / "run", rollout_workers=2, threads=1, timesteps=2048),
                  verbose=False)
    assert first["timesteps"] == 2048
    resumed = train(tiny(tmp_path / "run", rollout_workers=2, threads=1, timesteps=3072),
                    resume=True, verbose=False)
    assert resumed["timesteps"] == 3072 and resumed["rollout_workers"] == 2
    assert all(bool(w.isfinite().all()) for w in _weights(tmp_path / "run").values())
