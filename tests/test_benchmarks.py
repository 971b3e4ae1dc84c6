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
