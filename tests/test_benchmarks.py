"""The benchmark suite's measuring functions run (tiny budgets; the figures are not checked)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


def test_benchmark_functions_measure_something():
    import run

    import machu_env

    assert run.compiled_playout(8, 0.01) > 0
    assert run.python_batch_loop(8, 0.01) > 0
    assert run.aec_loop(lambda: machu_env.env(num_players=3), 0.01) > 0
    assert run.gym_loop(0.01) > 0
    pytest.importorskip("stable_baselines3")
    from machu_env.sb3 import MachuPicchuVecEnv

    assert run.vecenv_loop(MachuPicchuVecEnv(8, 3), 0.01, lambda v: v.action_masks()) > 0


def test_train_speed_runs_both_learners_for_the_same_steps():
    pytest.importorskip("sb3_contrib")
    import train_speed

    small = {"n_envs": 8, "n_steps": 16, "batch_size": 64, "n_epochs": 1}
    old = train_speed.maskable_ppo(256, 2, **small)
    new = train_speed.machu_train(256, 2, threads=1, precision="fp32", **small)
    assert old["steps"] == new["steps"] == 256
    assert old["steps_per_second"] > 0 and new["steps_per_second"] > 0
    parts = new["update_seconds"] + new["rollout_policy_seconds"] + new["simulator_seconds"]
    assert 0 <= parts <= new["seconds"] + 0.2  # the parts (rounded to 0.1 s) within the whole


@pytest.mark.parametrize("argv", [["--steps", "0"], ["--threads", "-1"], ["--players", "7"]])
def test_train_speed_refuses_bad_arguments(argv, tmp_path, capsys):
    import train_speed

    with pytest.raises(SystemExit) as e:
        train_speed.main([*argv, "--out", str(tmp_path / "out")])
    assert e.value.code == 2 and "error:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing measured, nothing written
