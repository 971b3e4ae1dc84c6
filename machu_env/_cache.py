"""Where numba keeps the compiled engine: a user cache folder keyed by every source it compiles.

Numba's own ``cache=True`` writes ``*.nbi``/``*.nbc`` files next to the sources (inside the
installed package, where they outlive ``pip uninstall``) and invalidates a function only when
its own file changes, although the constants of ``data.py`` and ``layout.py`` are compiled into
every kernel. This module registers a cache locator, used for the functions of ``machu_env``
(and its subpackages ``agents``, ``train``, ``benchmarks``) only, that puts their cache in

    <root>/numba-<key>/<package folder>/

where ``key`` hashes the numba, numpy and Python versions and the content of every ``.py`` file
of those packages: editing any of them (a corrected card value, an upgrade) selects a fresh
folder, so stale machine code is never loaded. ``root`` is the first writable of
``$MACHU_ENV_CACHE_DIR``, ``$NUMBA_CACHE_DIR/machu-env``, ``$XDG_CACHE_HOME/machu-env`` (default
``~/.cache/machu-env``) and ``<temp dir>/machu-env-<user>``. ``machu cache`` shows or clears it.

It must be imported before any engine module is (``machu_env/__init__.py`` does it first).
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import importlib.util
import os
import platform
import sys
import tempfile
from pathlib import Path

import numba
import numpy as np
from numba.core import caching

PACKAGE = "machu_env"
SUBPACKAGES = ("agents", "train", "benchmarks")  # installed as machu_env.<name>


def _candidate_roots() -> list[Path]:
    roots = []
    for var, sub in (("MACHU_ENV_CACHE_DIR", ""), ("NUMBA_CACHE_DIR", "machu-env")):
        if os.environ.get(var):
            roots.append(Path(os.environ[var]) / sub)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    roots.append(Path(xdg) / "machu-env")
    try:
        user = getpass.getuser()
    except Exception:  # no user name (containers): the uid will do
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    roots.append(Path(tempfile.gettempdir()) / f"machu-env-{user}")
    return roots


def _writable(folder: Path) -> bool:
    """Whether ``folder`` can hold the cache. One under the shared temp folder must be this
    user's own and closed to others (numba's index files are pickles: a folder planted there
    by another user would run its code)."""
    try:
        shared = Path(tempfile.gettempdir()).resolve() in folder.resolve().parents
        folder.mkdir(mode=0o700 if shared else 0o777, parents=True, exist_ok=True)
        if shared and not _private(folder):
            return False
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _private(folder: Path) -> bool:
    """``folder`` is a real folder (no link) of this user that no one else may write or read."""
    st = folder.lstat()
    import stat

    return (stat.S_ISDIR(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid())
            and not st.st_mode & 0o077)


_PRIVATE: dict[str, Path] = {}


def private_temp_folder(name: str) -> Path:
    """A folder of this process that only this user may use (``mkdtemp``: mode 0700, a fresh
    name), removed when the process ends: temporary files never go in a shared, guessable
    folder where another user could plant one."""
    folder = _PRIVATE.get(name)
    if folder is None or not folder.is_dir():
        import atexit
        import shutil

        folder = Path(tempfile.mkdtemp(prefix=f"machu-env-{name}-"))
        atexit.register(shutil.rmtree, folder, True)
        _PRIVATE[name] = folder
    return folder


@functools.lru_cache(maxsize=1)
def cache_root() -> Path:
    """The folder that holds every cache version (the first writable candidate)."""
    for root in _candidate_roots():
        if _writable(root):
            return root
    raise RuntimeError("machu-env found no writable folder for numba's cache; set "
                       "MACHU_ENV_CACHE_DIR to one")


@functools.lru_cache(maxsize=1)
def source_roots() -> dict[str, Path]:
    """Folder of each package whose functions this cache serves: name -> path."""
    here = Path(__file__).resolve().parent
    roots = {PACKAGE: here}
    for name in SUBPACKAGES:
        try:
            spec = importlib.util.find_spec(f"{PACKAGE}.{name}")
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            roots[name] = Path(next(iter(spec.submodule_search_locations))).resolve()
    return roots


@functools.lru_cache(maxsize=1)
def source_key() -> str:
    """A hash of every source the compiled functions may depend on, and of the toolchain."""
    h = hashlib.sha256()
    h.update(f"{numba.__version__}|{np.__version__}|{sys.version}|{platform.machine()}".encode())
    for name, root in sorted(source_roots().items()):
        for path in sorted(root.rglob("*.py")):
            h.update(f"{name}/{path.relative_to(root).as_posix()}\0".encode())
            h.update(path.read_bytes())
            h.update(b"\0")
    return h.hexdigest()[:20]


def cache_dir() -> Path:
    """The folder of this version's compiled functions."""
    return cache_root() / f"numba-{source_key()}"


def _owner(py_file: str) -> tuple[str, Path] | None:
    """(package name, package folder) of a source file of ours, else None."""
    path = Path(py_file).resolve()
    for name, root in source_roots().items():
        if root in path.parents:
            return name, root
    return None


@functools.cache
def _file_hash(path: str, mtime: float, size: int) -> bytes:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


class MachuCacheLocator(caching._CacheLocator):
    """Numba cache locator for the functions of machu-env's own source files."""

    def __init__(self, py_func, py_file: str, owner: tuple[str, Path]) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        name, root = owner
        rel = Path(py_file).resolve().parent.relative_to(root)
        self._cache_path = str(cache_dir() / name / rel)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self):
        st = os.stat(self._py_file)
        return _file_hash(self._py_file, st.st_mtime, st.st_size)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        owner = _owner(py_file) if os.path.exists(py_file) else None
        if owner is None:
            return None  # not ours: numba's usual locators decide
        self = cls(py_func, py_file, owner)
        self.ensure_cache_path()  # cache_root() checked it is writable
        return self


def install() -> None:
    """Put the locator first in numba's list (once)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # (renamed in numba 0.61)
    classes = impl._locator_classes
    if MachuCacheLocator not in classes:
        classes.insert(0, MachuCacheLocator)


install()
