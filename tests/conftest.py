"""Shared fixtures, and the suite's threads: one torch thread and OpenMP's passive wait (set
before torch is first imported, and inherited by the commands the tests start), so that the
suite does not spin at OpenMP barriers when other work shares the cores (issue #57: a busy
2-core machine ran 11 tests in 82 minutes with torch's default team), and Ray's workers at the
suite's priority. A test that measures threads sets them itself."""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# the engine compiles inside the work, as the tests expect (no up-front compile with its lines;
# tests/project/test_first_hour.py checks those with the variable unset)
os.environ.setdefault("MACHU_ENV_WARMUP", "off")
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Ray starts its workers at nice 15: beside other busy processes they got about 4 % of a core
# (an RLlib test of 10 s ran for minutes); the tests' workers run at the suite's own priority
os.environ.setdefault("RAY_worker_niceness", "0")
# stable-baselines3's logger makes a folder per run in the temp dir (SB3-<date>): the suite's go
# into one folder of its own, removed when the run ends
_SB3_LOGS = tempfile.mkdtemp(prefix="machu-tests-sb3-")
os.environ.setdefault("SB3_LOGDIR", _SB3_LOGS)
atexit.register(shutil.rmtree, _SB3_LOGS, ignore_errors=True)
os.environ.setdefault("MKL_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    """torch's intra-op threads: 1 for the whole suite (where torch is installed)."""
    try:
        import torch
    except ImportError:
        yield
        return
    torch.set_num_threads(1)
    yield


@pytest.fixture
def ray_env(tmp_path, monkeypatch):
    """Ray's settings for a test that starts Ray itself (never ``ray stop``): no auth prompt, a
    temporary HOME, and this process's numba cache for the workers (else each would compile the
    engine again). Shuts down what the test left running."""
    ray = pytest.importorskip("ray")
    from machu_env._cache import cache_root

    monkeypatch.setenv("MACHU_ENV_CACHE_DIR", str(cache_root()))
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    yield ray
    if ray.is_initialized():
        ray.shutdown()
