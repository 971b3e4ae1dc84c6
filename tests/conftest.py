import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest  # noqa: E402


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
