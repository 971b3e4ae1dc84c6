"""Games as Ray tasks: the cluster backend of ``machu tournament --ray [ADDRESS]`` (the ``ray``
extra).

``ADDRESS``: ``local`` (the default when ``--ray`` has no value: join the local Ray instance if
one runs, otherwise start one), ``auto`` (the running cluster this machine belongs to) or
``ray://host:port`` / ``host:port`` (a remote cluster; machu-env must be installed on every
node, the same version). Each game is one task (``num_cpus=1``); a bounded window of tasks is
in flight (``4 x workers``), so a huge tournament never holds its job list, and results are
consumed in game order, so the summary for a seed is identical to the local backend's whatever
the number of nodes. A task whose worker or node dies is retried (``max_retries``); Ctrl-C
cancels the tasks in flight. Every worker process loads the compiled engine from its node's
numba cache (compiled by the first game on a fresh node).
"""

from __future__ import annotations

import collections
import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

MAX_RETRIES = 3


def require_ray():
    """The ``ray`` module, or ImportError naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ImportError("the Ray backend needs the ray extra: pip install "
                          "'machu-env[ray]'") from None
    return ray


def connect(address: str) -> bool:
    """Join (or start) the Ray instance at ``address``; True if this call started the
    connection (so the caller shuts it down again)."""
    ray = require_ray()
    if not isinstance(address, str) or not address:
        raise ValueError(f"a Ray address is local, auto, ray://host:port or host:port; got "
                         f"{address!r}")
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    options: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address == "local":
        options["include_dashboard"] = False
    try:
        ray.init(address=None if address == "local" else address, **options)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: {e}") from None
    return True


def ordered_results(fn: Callable[[Any], Any], jobs: Iterator[Any], workers: int,
                    address: str = "local") -> Iterator[Any]:
    """``fn(job)`` for every job, run as Ray tasks, yielded in job order."""
    ray = require_ray()
    started = connect(address)
    task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(fn)
    window: collections.deque = collections.deque()
    try:
        window.extend(task.remote(job) for job in itertools.islice(jobs, 4 * workers))
        while window:
            result = ray.get(window.popleft())
            nxt = next(jobs, None)
            if nxt is not None:
                window.append(task.remote(nxt))
            yield result
    finally:
        for ref in window:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
