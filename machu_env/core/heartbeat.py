"""A line every few seconds while a long step runs (compiling, evaluating thousands of games):
a command is never silent for long, whatever the machine's speed."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def beating(seconds: float, beat: Callable[[], None]) -> Iterator[None]:
    """``beat()`` every ``seconds`` (from a thread) while the block runs."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(seconds):
            beat()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
