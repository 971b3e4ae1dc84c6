"""The stop signals (Ctrl-C, SIGTERM, SIGHUP) and ``held_signals``, which keeps them waiting while
a group of files is written, so that the group is changed as a whole (a checkpoint's weights,
optimizer and step)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# the signals that stop a command, held while a group of files is written
STOPS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


@contextmanager
def held_signals() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP wait until the block has run, then act as they would have (the
    handlers in place before are restored first). Outside the main thread (where no handler
    can be set) the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    old = {}
    for s in STOPS:
        previous = signal.getsignal(s)
        if previous is not signal.SIG_IGN and previous is not None:
            old[s] = signal.signal(s, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        for s in dict.fromkeys(noted):
            signal.raise_signal(s)
