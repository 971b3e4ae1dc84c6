"""Jobs in processes of their own, ended with the command: a stop signal (Ctrl-C, SIGTERM or
SIGHUP, to the whole group or to the command's process alone, as ``timeout``, ``kill``,
``docker stop`` and systemd send it) terminates the running jobs and drops the queued ones at
once, and the command exits within seconds instead of waiting for them."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

POLL = 0.2  # seconds between looks at the jobs (a signal lands between two)


def run_jobs(fn: Callable[[Any], Any], jobs: Sequence[Any], workers: int) -> list[Any]:
    """``[fn(job) for job in jobs]``, ``workers`` at a time, each job in a spawned process (no
    forked numba or torch state); a job's exception is raised here. When anything stops the
    wait (a stop signal's exception, a job's error) every worker is terminated first."""
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(workers, maxtasksperchild=1)
    try:
        pending = pool.map_async(fn, list(jobs), chunksize=1)
        while not pending.ready():
            pending.wait(POLL)
        results = pending.get()
    except BaseException:
        _end(pool)
        raise
    pool.close()
    pool.join()
    return results


def _end(pool) -> None:
    """Terminate the pool's processes (SIGTERM: a job's default handler ends it at once)."""
    pool.terminate()
    pool.join()
