"""Games as Ray tasks: the cluster backend of ``machu tournament --ray [ADDRESS]`` (the ``ray``
extra).

``ADDRESS``: ``local`` (the default when ``--ray`` has no value: join the local Ray instance if
one runs, otherwise start one), ``auto`` (the running cluster this machine belongs to) or
``ray://host:port`` / ``host:port`` (a remote cluster; machu-env must be installed on every
node, the same version). Each game is one task (``num_cpus=1``); a bounded window of tasks is
in flight (``4 x workers``), so a huge tournament never holds its job list, and results are
consumed in game order, so the summary for a seed is identical to the local backend's whatever
the number of nodes. Agent files named by path are read on the driver and shipped through the
object store: a node needs no copy of them.

Security: this module never switches Ray's token authentication off. Ray turns it on for a
local instance it starts and keeps the token in ``~/.ray/auth_token``; joining a cluster needs
that cluster's token (docs/cluster.md). That token is what keeps other machines out: Ray 2.60's
processes listen on every interface whatever node address they are given (measured: with
``_node_ip_address="127.0.0.1"`` or ``RAY_NODE_IP_ADDRESS=127.0.0.1`` too). A local instance
is started without its dashboard; a remote address that does not answer within
``CONNECT_TIMEOUT`` seconds is reported instead of waited for.

A task whose worker or node dies is retried (``max_retries``); Ctrl-C cancels the tasks in
flight. Every worker process loads the compiled engine from its node's
numba cache (compiled by the first game on a fresh node).
"""

from __future__ import annotations

import collections
import itertools
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from machu_env._extras import install_hint

MAX_RETRIES = 3
CONNECT_TIMEOUT = 10.0  # seconds for a remote address to accept a TCP connection


def require_ray():
    """The ``ray`` module, or ImportError naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise ImportError("the Ray backend needs the ray extra: "
                          + install_hint("ray")) from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of ``ray://host:port`` or ``host:port``; None for local and auto."""
    if address in ("local", "auto"):
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"a Ray address is local, auto, ray://host:port or host:port; got "
                         f"{address!r}")
    return host.strip("[]"), int(port)


def connect(address: str) -> bool:
    """Join (or start) the Ray instance at ``address``; True if this call started the
    connection (so the caller shuts it down again)."""
    ray = require_ray()
    if not isinstance(address, str) or not address:
        raise ValueError(f"a Ray address is local, auto, ray://host:port or host:port; got "
                         f"{address!r}")
    target = _host_port(address)
    if ray.is_initialized():
        return False
    if target is not None:  # fail fast where nothing listens or something else does (ray.init
        _check_grpc(address, target)  # would retry for many minutes)
    options: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address == "local":
        options["include_dashboard"] = False
    try:
        ray.init(address=None if address == "local" else address, **options)
    except (ConnectionError, ValueError, RuntimeError) as e:
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: {e}") from None
    return True


@contextmanager
def joined(address: str | None) -> Iterator[None]:
    """The Ray instance at ``address`` for the block (nothing where ``address`` is empty):
    joined (or started) first, so that a missing extra or an unreachable cluster fails before
    any work, and shut down after the block if the block joined it."""
    started = connect(address) if address else False
    try:
        yield
    finally:
        if started:
            require_ray().shutdown()


# an HTTP/2 client's connection preface and an empty SETTINGS frame (RFC 9113, 3.4)
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _check_grpc(address: str, target: tuple[str, int]) -> None:
    """A Ray head (its GCS, or the Ray client server) speaks gRPC, which is HTTP/2: its first
    frame is SETTINGS. ValueError in words, within ``CONNECT_TIMEOUT``, where nothing accepts
    the connection or what answers is not HTTP/2 (an HTTP/1 web server, a database)."""
    try:
        with socket.create_connection(target, timeout=CONNECT_TIMEOUT) as sock:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.sendall(_PREFACE)
            head = b""
            while len(head) < 9:
                part = sock.recv(9 - len(head))
                if not part:
                    break
                head += part
    except TimeoutError:
        head = b""
    except OSError as e:
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: nothing answered "
                         f"within {CONNECT_TIMEOUT:.0f} s ({e.strerror or e})") from None
    if len(head) < 9 or head[3] != 4:
        raise ValueError(f"{address!r} is not a Ray cluster: something listens there but does "
                         f"not answer as Ray's gRPC server does (within {CONNECT_TIMEOUT:.0f} s)")


def cluster_cpus() -> int:
    """The CPUs of the connected cluster (at least 1): the default number of workers."""
    return max(1, int(require_ray().cluster_resources().get("CPU", 1)))


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
