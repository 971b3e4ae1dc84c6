"""``machu train --ray``: the rollout workers as Ray actors repeat the threaded workers step for
step, and a worker lost mid-run is replaced while the run goes on. Runs where the ``ray`` extra
is installed; Ray is started by the tests (never ``ray stop``)."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("ray")

from train_kit import tiny  # noqa: E402

from machu_env.train.ppo.ray_workers import RayWorkers  # noqa: E402
from machu_env.train.run.selfplay import train  # noqa: E402


def _weights(folder):
    from machu_env.agents import policy_file

    return policy_file.parse(policy_file.read_bytes(folder / "latest.safetensors"))[0]


def test_ray_actors_train_the_same_weights_as_threads_here(tmp_path, ray_env):
    here = train(tiny(tmp_path / "here", rollout_workers=2, threads=1), verbose=False)
    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    on_ray = train(tiny(tmp_path / "ray", threads=1, ray="local"), verbose=False)
    assert on_ray["rollout_workers"] == 2  # (one per CPU of the cluster)
    assert here["timesteps"] == on_ray["timesteps"] == 3072
    a, b = _weights(tmp_path / "here"), _weights(tmp_path / "ray")
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_a_worker_lost_mid_run_is_replaced_and_the_run_goes_on(tmp_path, ray_env, monkeypatch,
                                                               capsys):
    ray_env.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    collect = RayWorkers.collect
    calls = []

    def lose_one_on_the_second_rollout(self, net, buffer, counts):
        calls.append(1)
        if len(calls) == 2:  # the process of worker 1 dies, as on a node that goes away
            os.kill(self.pids[1], signal.SIGKILL)
        return collect(self, net, buffer, counts)

    monkeypatch.setattr(RayWorkers, "collect", lose_one_on_the_second_rollout)
    summary = train(tiny(tmp_path / "run", threads=1, ray="local"), verbose=True)
    assert summary["timesteps"] == 3072 and len(calls) == 3
    assert summary["rollout_workers"] == 3 and summary["rollout_workers_lost"] == 1
    assert "rollout worker 1 was lost; a new one takes its 5 games" in capsys.readouterr().out
    weights = _weights(tmp_path / "run")
    assert all(bool(w.isfinite().all()) for w in weights.values())
