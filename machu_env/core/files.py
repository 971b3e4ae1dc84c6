"""Files that are whole or absent: every output a run may be stopped while writing is written
to a temporary name beside it and moved into place with ``os.replace`` (atomic on POSIX and
Windows), so an interrupt leaves the old file or the new one, never half of one (a group of
files changed as a whole: ``core.signals.held_signals``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

TEMP_MARK = ".partial-"  # in the temporary names: ".<name>.partial-<pid>"


def resolved(path: str | Path) -> Path:
    """``path`` made absolute with its links followed; ValueError in words for a link that
    points, through others, back to itself (pathlib raises a RuntimeError there)."""
    try:
        return Path(path).resolve()
    except RuntimeError:
        raise ValueError(f"{path}: a symbolic link loop (the link leads back to itself)") \
            from None


def temp_path(path: str | Path) -> Path:
    """The temporary name a file is written under before it replaces ``path``."""
    path = Path(path)
    return path.with_name(f".{path.name}{TEMP_MARK}{os.getpid()}")


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends normally the file written
    there replaces ``path`` at once, otherwise it is removed (``path`` untouched)."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)  # (absent after the replace)


def write_bytes(path: str | Path, data: bytes) -> Path:
    """``path`` holds ``data``, or (interrupted) what it held before."""
    with replacing(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    return write_bytes(path, text.encode())


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


def write_with(path: str | Path, writer: Callable[[Path], Any]) -> Path:
    """``writer(tmp)`` writes the file (``torch.save``, ``savefig``...); it then replaces
    ``path``."""
    with replacing(path) as tmp:
        writer(tmp)
    return Path(path)
