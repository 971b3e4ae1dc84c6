"""Threads that make room for other work: a run whose threads were sized to the machine (no
``--threads``) uses fewer while other processes keep cores busy, and every core again when they
stop.

torch's and numba's thread teams wait for each other by spinning; with more runnable threads
than cores (another job, a browser, a second run), a team keeps waiting on a member the system
has not scheduled, and training slows several-fold (``benchmarks/threads_under_load.py``). One
thread per free core avoids it. The other work is measured, not guessed: the machine's busy CPU
time (``/proc/stat``) less this process's own, over the last interval.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

CHECK_SECONDS = 5.0  # between two readings of the machine's load
YIELD_AT = 0.4  # cores busy with other work from which the run gives one up
RETURN_BELOW = 0.25  # cores busy with other work under which the run takes them back


def _machine_busy() -> float | None:
    """Seconds of CPU time the whole machine has spent busy (all cores), or None where
    ``/proc/stat`` cannot be read (not Linux)."""
    try:
        with open("/proc/stat", "rb") as f:  # (the kernel's counters, not a user's file)
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != b"cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


def others_from(busy: float, own: float, wall: float) -> float:
    """Cores that other processes kept busy over ``wall`` seconds in which the machine was
    busy ``busy`` CPU-seconds and this process ``own`` of them."""
    return max(0.0, busy - own) / wall if wall > 0 else 0.0


def threads_for(full: int, others: float, now: int) -> int:
    """The threads to use out of ``full`` while other work takes ``others`` cores (``now``:
    the threads in use, for the hysteresis between giving cores up and taking them back)."""
    if others >= YIELD_AT:
        return max(1, full - max(1, round(others)))
    if others < RETURN_BELOW:
        return full
    return now


class ThreadGovernor:
    """Checks the machine every ``CHECK_SECONDS`` (``check`` after each update) and sets the
    threads with ``apply(n)``; returns a line to say when it changes them."""

    def __init__(self, full: int, apply: Callable[[int], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.full = self.now = full
        self.apply, self.clock = apply, clock
        self.last = self._sample()

    def _sample(self) -> tuple[float, float | None, float]:
        return self.clock(), _machine_busy(), _own_cpu()

    def check(self) -> str | None:
        if self.full <= 1 or self.clock() - self.last[0] < CHECK_SECONDS:
            return None
        (t0, busy0, own0), self.last = self.last, self._sample()
        t, busy, own = self.last
        if busy is None or busy0 is None:
            return None
        others = others_from(busy - busy0, own - own0, t - t0)
        target = threads_for(self.full, others, self.now)
        if target == self.now:
            return None
        self.apply(target)
        self.now = target
        if target < self.full:
            return (f"other work keeps {others:.1f} of the cores busy: training on {target} "
                    f"thread{'s' if target != 1 else ''} while it lasts")
        return f"the other work has stopped: training on {target} threads again"
