"""Where the compiled engine is cached: ``~`` expanded, relative paths, files and unwritable
folders passed over with the reason said (``machu cache``), a folder of this user's under the
temp folder taken, and no usable folder at all a line, not a traceback: the engine then
compiles in memory and every command still runs. ``machu cache`` writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def _machu(env: dict[str, str], *argv: str, cwd: Path | None = None, timeout: float = 600):
    full = {**os.environ, "MACHU_ENV_WARMUP": "off", **env}
    return subprocess.run([sys.executable, "-c", "import machu_launch; machu_launch.main()",
                           *argv], capture_output=True, text=True, env=full, timeout=timeout,
                          cwd=cwd)


def _unusable(tmp_path: Path) -> dict[str, str]:
    """Every candidate a file: $MACHU_ENV_CACHE_DIR, $NUMBA_CACHE_DIR/machu-env,
    $XDG_CACHE_HOME/machu-env and the temp folder's machu-env-<user>."""
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    for name in ("cache", "numba", "xdg"):
        (blocked / name).write_text("a file")
    temp = tmp_path / "temp"
    temp.mkdir()
    import getpass

    (temp / f"machu-env-{getpass.getuser()}").write_text("a file")
    return {"MACHU_ENV_CACHE_DIR": str(blocked / "cache"),
            "NUMBA_CACHE_DIR": str(blocked / "numba"), "XDG_CACHE_HOME": str(blocked / "xdg"),
            "TMPDIR": str(temp)}


def test_no_writable_cache_folder_is_one_line_and_the_commands_run(tmp_path):
    env = _unusable(tmp_path)
    r = _machu(env, "cache")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "no writable folder for the compiled engine" in r.stdout + r.stderr
    assert "$MACHU_ENV_CACHE_DIR" in r.stdout + r.stderr and "a file" in r.stdout + r.stderr
    r = _machu(env, "rules")
    assert r.returncode == 0 and "Traceback" not in r.stderr and "start" in r.stdout, r.stderr
    r = _machu(env, "tournament", "--agents", "random,gold", "--players", "2", "--games", "2",
               "--workers", "1", "--no-progress", "--out", str(tmp_path / "t"))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    said = [line for line in r.stderr.splitlines() if "compiles in memory" in line]
    assert len(said) == 1, r.stderr


def test_a_relative_or_tilde_cache_folder_is_expanded_or_refused_with_the_reason(tmp_path):
    from machu_env import _cache

    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "MACHU_ENV_CACHE_DIR": "~/mcache"}
    r = _machu(env, "cache", cwd=tmp_path)
    assert r.returncode == 0 and str(home / "mcache") in r.stdout, r.stdout + r.stderr
    assert not (tmp_path / "~").exists()
    env = {"HOME": str(home), "MACHU_ENV_CACHE_DIR": "relative/cache"}
    r = _machu(env, "cache", cwd=tmp_path)
    assert "$MACHU_ENV_CACHE_DIR relative/cache: a relative path" in " ".join(r.stdout.split())
    assert not (tmp_path / "relative").exists()
    assert _cache._refusal(Path("relative")) is not None


def test_machu_cache_writes_nothing(tmp_path):
    env = {"MACHU_ENV_CACHE_DIR": str(tmp_path / "cache")}
    r = _machu(env, "cache")
    assert r.returncode == 0 and "(not compiled yet)" in r.stdout, r.stdout + r.stderr
    assert not (tmp_path / "cache").exists()


def test_a_folder_of_this_user_under_the_temp_folder_is_taken(tmp_path, monkeypatch):
    """A 0755 folder of this user (others cannot write it) is safe; one others can write is
    passed over, and the reason is said."""
    from machu_env import _cache

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    mine = tmp_path / "mine"
    mine.mkdir()
    mine.chmod(0o755)
    assert _cache._refusal(mine) is None and _cache._writable(mine)
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    assert "others cannot write" in _cache._refusal(open_to_all)
    monkeypatch.setenv("MACHU_ENV_CACHE_DIR", str(open_to_all))
    _cache.choice.cache_clear()
    try:
        root, refused = _cache.choice()
        assert root != open_to_all and refused[0][1] == str(open_to_all)
        assert "not taken: $MACHU_ENV_CACHE_DIR" in _cache.explain()
    finally:
        _cache.choice.cache_clear()


def test_cache_clear_removes_only_compiled_versions(tmp_path):
    root = tmp_path / "cache"
    (root / "numba-notours").mkdir(parents=True)
    (root / "numba-notours" / "keep.txt").write_text("mine")
    (root / "numba-0123456789abcdef0123").mkdir()
    r = _machu({"MACHU_ENV_CACHE_DIR": str(root)}, "cache", "--clear")
    assert r.returncode == 0, r.stderr
    assert (root / "numba-notours" / "keep.txt").read_text() == "mine"
    assert not (root / "numba-0123456789abcdef0123").exists()
