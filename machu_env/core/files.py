"""The one way machu-env reads and writes a file (run folders, agent files, records, results).

- **Writes are whole or absent.** The data goes to an exclusive temporary file with an
  unpredictable name beside the target (``tempfile.mkstemp``: ``O_CREAT | O_EXCL``, so a link
  planted in a shared folder is never written through), is flushed to disk, then moved into
  place with ``os.replace`` (atomic on POSIX and Windows): an interrupt leaves the old file or
  the new one, never half of one (a group of files changed as a whole:
  ``core.signals.held_signals``). The target is a regular file or absent: a link, a folder or a
  device at its name is refused.
- **Reads are bounded.** Only a regular file is read (a FIFO or a device is refused, never
  waited on; the open does not block), at most ``limit`` bytes; with ``links=False`` a
  symbolic link is refused too (the files of a folder a command writes, where another user could
  plant one). ``read_json`` parses, then ``check`` (``core.schema``) says what is wrong in one
  line naming the file and the field.
- **A command overwrites or removes only what it wrote.** A folder claimed by a command
  (``core.run_files.RunFolder``) records, in its mark, every file written into it through this
  module (its identity: inode, size, modification time); a write over a file it did not record
  is refused, and ``remove`` removes only a recorded file that is still the one written.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

TEMP_MARK = ".partial-"  # in the temporary names: ".<name>.partial-<random>"
JSON_LIMIT = 1_000_000  # bytes: the largest JSON file a command reads back by default
_OWNERS: dict[Path, Any] = {}  # claimed folder (resolved) -> its RunFolder (core.run_files)


class FileRefused(ValueError):
    """A file that is not what the command may read or write there (in words)."""


def resolved(path: str | Path) -> Path:
    """``path`` made absolute with its links followed; ValueError in words for a link that
    points, through others, back to itself (pathlib raises a RuntimeError there)."""
    try:
        return Path(path).resolve()
    except RuntimeError:
        raise FileRefused(f"{path}: a symbolic link loop (the link leads back to itself)") \
            from None


# --- the folders a command claimed ------------------------------------------------------------
def register(root: Path, owner: Any) -> None:
    """Every write and removal under ``root`` from now on asks ``owner`` (``RunFolder``)."""
    _OWNERS[resolved(root)] = owner


def unregister(root: Path) -> None:
    _OWNERS.pop(resolved(root), None)


def owner_of(path: str | Path) -> Any:
    """The ``RunFolder`` of the deepest claimed folder holding ``path`` (None: unclaimed)."""
    if not _OWNERS:
        return None
    where = resolved(Path(path).parent)
    for folder in (where, *where.parents):
        if folder in _OWNERS:
            return _OWNERS[folder]
    return None


def identity(st: os.stat_result) -> list[int]:
    """What tells a file written by a command from another at the same name later."""
    return [int(st.st_ino), int(st.st_size), int(st.st_mtime_ns)]


# --- writing ----------------------------------------------------------------------------------
def _check_target(path: Path) -> None:
    """The target is absent or a regular file (a link, a folder, a FIFO is refused)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise FileRefused(f"cannot write {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else \
            "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise FileRefused(f"{path} is {kind}: machu-env writes only regular files there "
                          "(nothing was written)")


@contextmanager
def writing(path: str | Path, mode: str = "wb", recorded: bool = True) -> Iterator[IO]:
    """An open exclusive temporary file beside ``path``; when the block ends normally it is
    flushed to disk and replaces ``path`` (a claimed folder records it first, unless not
    ``recorded``: its own mark), otherwise it is removed and ``path`` is untouched."""
    path = Path(path)
    _check_target(path)
    owner = owner_of(path) if recorded else None
    if owner is not None:
        owner.may_write(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{TEMP_MARK}", dir=path.parent)
    except OSError as e:
        raise FileRefused(f"cannot write {path}: {e.strerror}") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # (mkstemp's 0600: the user's usual permissions)
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            st = os.fstat(f.fileno())
        if owner is not None:
            owner.record(path, identity(st))
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def write_bytes(path: str | Path, data: bytes) -> Path:
    """``path`` holds ``data``, or (interrupted) what it held before."""
    with writing(path) as f:
        f.write(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, data: Any, indent: int | None = 2) -> Path:
    """Strict JSON (a measure that is not a number, NaN or infinite, is ``null``: a bare
    ``NaN`` is not JSON, and ``jq`` or a browser refuse it)."""
    return write_text(path, json.dumps(finite(data), indent=indent, allow_nan=False))


def finite(data: Any) -> Any:
    """``data`` with every NaN or infinite float replaced by None (containers copied)."""
    if isinstance(data, float):
        return data if data == data and abs(data) != float("inf") else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite(v) for v in data]
    return data


def write_with(path: str | Path, writer: Callable[[IO[bytes]], Any]) -> Path:
    """``writer(f)`` writes the file into the open binary file ``f`` (``torch.save``,
    ``savefig``...); it then replaces ``path``."""
    with writing(path) as f:
        writer(f)
    return Path(path)


def copy(source: str | Path, target: str | Path, limit: int) -> Path:
    """``target`` a whole copy of the regular file ``source`` (at most ``limit`` bytes)."""
    return write_bytes(target, read_bytes(source, limit, links=False))


def make_folder(path: str | Path) -> Path:
    """``path`` as a folder (parents too); a claimed folder records the ones it created."""
    path = Path(path)
    missing = [p for p in (path, *path.parents) if not os.path.lexists(p)][::-1]
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FileRefused(f"{path} is a file, not a folder") from None
    except OSError as e:
        raise FileRefused(f"cannot create the folder {path}: {e.strerror}") from None
    if not path.is_dir():
        raise FileRefused(f"{path} is not a folder")
    for created in missing:
        owner = owner_of(created)
        if owner is not None:
            owner.record_folder(created)
    return path


def remove(path: str | Path) -> bool:
    """Remove ``path`` if this command wrote it (its claimed folder's mark records it as it is
    now); a file of anyone else's stays. Whether it was removed."""
    path = Path(path)
    owner = owner_of(path)
    if owner is None or not owner.wrote(path):
        return False
    os.unlink(path)
    owner.forget(path)
    return True


def clear_partial(folder: Path) -> None:
    """The temporary files a killed write left in ``folder`` (regular files named as this
    module names them; nothing else)."""
    try:
        found = list(folder.glob(f".*{TEMP_MARK}*"))
    except OSError:
        return
    for stale in found:
        if stale.is_file() and not stale.is_symlink():
            stale.unlink(missing_ok=True)


# --- reading ----------------------------------------------------------------------------------
def read_bytes(path: str | Path, limit: int, links: bool = True, what: str = "") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (FileRefused in words
    for a missing, oversized or irregular file; with ``links=False`` for a symbolic link)."""
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    named = f" ({what})" if what else ""
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileRefused(f"{path} does not exist{named}") from None
    except OSError as e:
        if not links and os.path.islink(path):
            raise FileRefused(f"{path} is a symbolic link: machu-env reads its own files "
                              f"there only as regular files{named}") from None
        raise FileRefused(f"cannot read {path}: {e.strerror}{named}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FileRefused(f"{path} is not a regular file{named}: refused, not read")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise FileRefused(f"cannot read {path}: {e.strerror}") from None
    if len(data) > limit:
        raise FileRefused(f"{path} is larger than {_size(limit)}{named}: refused, not read")
    return data


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n // 1000} kB" if n >= 1000 else f"{n} B"


def read_text(path: str | Path, limit: int, links: bool = True, what: str = "") -> str:
    data = read_bytes(path, limit, links, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileRefused(f"{path}: not UTF-8 text{f' ({what})' if what else ''}") from None


def parse_json(data: bytes | str, where: str) -> Any:
    """JSON text parsed (FileRefused naming ``where`` for anything else)."""
    try:
        return json.loads(data)
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError, an int of > 4300 digits
        raise FileRefused(f"{where}: not JSON ({e})") from None
    except RecursionError:
        raise FileRefused(f"{where}: JSON nested too deeply") from None


def read_json(path: str | Path, check: Callable[[Any, str], Any] | None = None,
              limit: int = JSON_LIMIT, links: bool = True) -> Any:
    """A JSON file, read as ``read_bytes`` reads, parsed, then ``check(data, str(path))``
    (``core.schema``: ValueError naming the file and the field); what ``check`` returns."""
    data = parse_json(read_bytes(path, limit, links), str(path))
    return check(data, str(path)) if check is not None else data
