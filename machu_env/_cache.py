"""Where numba keeps the compiled engine: a user cache folder keyed by every source it compiles.

Numba's own ``cache=True`` writes ``*.nbi``/``*.nbc`` files next to the sources (inside the
installed package, where they outlive ``pip uninstall``) and invalidates a function only when
its own file changes, although the constants of ``data.py`` and ``layout.py`` are compiled into
every kernel. This module registers a cache locator, used for the functions of ``machu_env``
only, that puts their cache in

    <root>/numba-<key>/<package folder>/

where ``key`` hashes the numba, numpy and Python versions and the content of every ``.py`` file
of those packages: editing any of them (a corrected card value, an upgrade) selects a fresh
folder, so stale machine code is never loaded. ``root`` is the first usable of
``$MACHU_ENV_CACHE_DIR``, ``$NUMBA_CACHE_DIR/machu-env``, ``$XDG_CACHE_HOME/machu-env`` (default
``~/.cache/machu-env``) and ``<temp dir>/machu-env-<user>`` (``~`` expanded; a relative path,
a file, an unwritable folder or one under the temp folder that others can write is passed over,
and ``explain`` says why). Where none is usable the engine compiles in memory for the process,
saying so once. Nothing is written until a compiled function is saved. ``machu cache`` shows
the choice (writing nothing) or clears the versions.

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


def _candidate_roots() -> list[tuple[str, str]]:
    """(where it comes from, the folder as given) for each candidate root, in order."""
    roots = []
    for var, sub in (("MACHU_ENV_CACHE_DIR", ""), ("NUMBA_CACHE_DIR", "machu-env")):
        if os.environ.get(var):
            given = os.path.expanduser(os.environ[var])
            roots.append((f"${var}", os.path.join(given, sub) if sub else given))
    xdg = os.environ.get("XDG_CACHE_HOME")
    roots.append(("$XDG_CACHE_HOME" if xdg else "~/.cache",
                  os.path.join(os.path.expanduser(xdg) if xdg else
                               os.path.join(str(Path.home()), ".cache"), "machu-env")))
    try:
        user = getpass.getuser()
    except Exception:  # no user name (containers): the uid will do
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    roots.append(("the temp folder", os.path.join(tempfile.gettempdir(), f"machu-env-{user}")))
    return roots


def _shared(folder: Path) -> bool:
    return Path(tempfile.gettempdir()).resolve() in folder.resolve().parents


def _refusal(folder: Path) -> str | None:
    """Why ``folder`` cannot hold the cache (None: it can), creating nothing. One under the
    shared temp folder must be this user's own and closed to others' writes (numba's index files
    are pickles: a folder another user can write could plant code)."""
    if not folder.is_absolute():
        return "a relative path (it would mean a cache per working folder)"
    try:
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                return "a file, not a folder"
            if not _private(folder):  # (anywhere: /dev/shm/x, 0777, is as open as /tmp)
                return ("not a folder of this user's that others cannot write (numba's index "
                        "files are pickles: another user could plant code there)")
            return None if os.access(folder, os.W_OK | os.X_OK) else "not writable"
        parent = folder.parent
        while not parent.exists():
            if parent.is_symlink():
                return f"{parent} is a dangling link"
            parent = parent.parent
        if not parent.is_dir():
            return f"{parent} is a file, not a folder"
        return None if os.access(parent, os.W_OK | os.X_OK) else f"{parent} is not writable"
    except OSError as e:
        return e.strerror or str(e)


def _writable(folder: Path) -> bool:
    """Whether ``folder`` can hold the cache; it is created if absent (mode 0700 under the
    shared temp folder)."""
    if _refusal(folder) is not None:
        return False
    try:
        folder.mkdir(mode=0o700 if _shared(folder) else 0o755, parents=True, exist_ok=True)
        if not _private(folder):
            return False
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _private(folder: Path) -> bool:
    """``folder`` is a real folder (no link) of this user that no one else may write."""
    st = folder.lstat()
    import stat

    return (stat.S_ISDIR(st.st_mode) and (not hasattr(os, "getuid") or st.st_uid == os.getuid())
            and not st.st_mode & 0o022)


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
def choice() -> tuple[Path | None, tuple[tuple[str, str, str], ...]]:
    """(the folder that holds every cache version, or None when no candidate can; and each
    candidate refused before it: (where it comes from, folder, why)). Creates nothing."""
    refused = []
    for source, given in _candidate_roots():
        why = _refusal(Path(given))
        if why is None:
            return Path(given), tuple(refused)
        refused.append((source, given, why))
    return None, tuple(refused)


def cache_root() -> Path | None:
    """The folder that holds every cache version (None: none can; the engine then compiles
    in memory, for this process only)."""
    return choice()[0]


def explain() -> str:
    """Which folder holds the cache and why the ones before it were not taken, in words."""
    root, refused = choice()
    words = [f"{source} {given}: {why}" for source, given, why in refused]
    if root is None:
        return ("no writable folder for the compiled engine (" + "; ".join(words) + "): it "
                "compiles in memory, for this process only; set MACHU_ENV_CACHE_DIR to a "
                "writable folder")
    return str(root) + (f" (not taken: {'; '.join(words)})" if words else "")


def _make_root() -> Path:
    """The root, created now (mode 0700 under the shared temp folder); OSError if it cannot."""
    root = cache_root()
    if root is None or not _writable(root):
        raise OSError(f"no writable folder for the compiled engine: {explain()}")
    return root


# subpackages that a checkout keeps in top-level folders of their own (agents/, train/) and
# pip installs inside the package (pyproject.toml's package-dir)
TOP_LEVEL = ("agents", "train")


@functools.lru_cache(maxsize=1)
def source_roots() -> dict[str, Path]:
    """Folder of each package whose functions this cache serves: name -> path (one folder
    when installed from a wheel; the checkout's agents/ and train/ beside it when editable)."""
    here = Path(__file__).resolve().parent
    roots = {PACKAGE: here}
    for name in TOP_LEVEL:
        spec = importlib.util.find_spec(f"{PACKAGE}.{name}")
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        if folders and here not in Path(folders[0]).resolve().parents:
            roots[f"{PACKAGE}.{name}"] = Path(folders[0]).resolve()
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


def cache_dir() -> Path | None:
    """The folder of this version's compiled functions (None: no cache folder, see
    ``cache_root``)."""
    root = cache_root()
    return None if root is None else root / f"numba-{source_key()}"


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

    def ensure_cache_path(self) -> None:
        """Created when a compiled function is first saved (not when it is defined: importing
        machu-env writes nothing)."""
        _make_root()
        super().ensure_cache_path()

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
        return cls(py_func, py_file, owner)  # (cache_root() found a usable folder)


_said: list[bool] = []


def _in_memory(dispatcher) -> bool:
    """Whether a function of ours compiles without a cache (no usable folder): said once."""
    code = getattr(dispatcher.py_func, "__code__", None)
    if code is None or _owner(code.co_filename) is None or cache_root() is not None:
        return False
    if not _said:
        _said.append(True)
        print(f"machu-env: {explain()}", file=sys.stderr)
    return True


def install() -> None:
    """Put the locator first in numba's list, and compile in memory where no folder can hold
    the cache (numba would refuse ``cache=True`` functions with a traceback); once."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # (renamed in numba 0.61)
    classes = impl._locator_classes
    if MachuCacheLocator not in classes:
        classes.insert(0, MachuCacheLocator)
    from numba.core.dispatcher import Dispatcher

    if not getattr(Dispatcher.enable_caching, "_machu", False):
        enable = Dispatcher.enable_caching

        def enable_caching(self) -> None:
            if not _in_memory(self):
                enable(self)

        enable_caching._machu = True
        Dispatcher.enable_caching = enable_caching


install()
