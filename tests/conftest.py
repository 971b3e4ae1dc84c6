"""Shared fixtures, and the suite's threads: one torch thread and OpenMP's passive wait (set
before torch is first imported, and inherited by the commands the tests start), so that the
suite does not spin at OpenMP barriers when other work shares the cores (a busy
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
# tests/cli/test_first_hour.py checks those with the variable unset)
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


# --- no silent stretch in a test run --------------------------------------------------------
# A test that runs long (a training run, a compile on a busy machine) prints nothing until it
# ends, and `pytest -q` shows one dot per test: a line names the running test every
# QUIET_SECONDS of silence, so that a person watching the suite knows it is working.
QUIET_SECONDS = 25.0


class _Heartbeat:
    def __init__(self, config) -> None:
        import threading
        import time

        self.config, self.time = config, time
        self.current, self.since, self.last = "collecting the tests", time.monotonic(), 0.0
        # the terminal itself (a copy of stdout's descriptor taken before any test captures
        # it): writing there never touches sys.stdout, which a test may have swapped
        self.fd = os.dup(sys.stdout.fileno())
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def started(self, nodeid: str) -> None:
        self.current, self.since = nodeid, self.time.monotonic()
        self.last = self.since

    def _run(self) -> None:
        while not self.stop.wait(1.0):
            now = self.time.monotonic()
            if now - max(self.since, self.last) >= QUIET_SECONDS:
                self.last = now
                os.write(self.fd, f"\n  ... {self.current} still running "
                                  f"({now - self.since:.0f} s)\n".encode())


def pytest_configure(config) -> None:
    if not config.getoption("collectonly", False) and not hasattr(config, "workerinput"):
        config._machu_heartbeat = _Heartbeat(config)


def pytest_runtest_logstart(nodeid, location) -> None:
    heartbeat = getattr(_CONFIG[0], "_machu_heartbeat", None) if _CONFIG else None
    if heartbeat is not None:
        heartbeat.started(nodeid)


_CONFIG: list = []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session) -> None:
    _CONFIG.append(session.config)


def pytest_unconfigure(config) -> None:
    heartbeat = getattr(config, "_machu_heartbeat", None)
    if heartbeat is not None:
        heartbeat.stop.set()
        heartbeat.thread.join()
        os.close(heartbeat.fd)
