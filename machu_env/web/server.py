"""``machu serve``: the app on uvicorn, with the connection limits uvicorn lacks.

uvicorn answers 503 past ``limit_concurrency`` connections or requests in progress, and closes
idle keep-alive connections (``timeout_keep_alive``), but not connections that never send a
request, nor their number: idle sockets could use up the process's file descriptors.
``guarded_protocol`` adds both to uvicorn's own h11 protocol: a connection past ``connections``
is closed at once, and one that has not sent a whole request head within ``head_seconds`` (of
opening, or of its previous answer) is closed. Request bodies are bounded in size, total and
time by the app itself (``guards.BodyReader``). Forwarding headers (``X-Forwarded-For``) are not
trusted unless the operator asks (``proxy_headers``): a local client could otherwise claim
another's address.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from machu_env._extras import install_hint
from machu_env.core.game import Game
from machu_env.core.records import game_record
from machu_env.views.svg import board_svg


@dataclass(frozen=True)
class ConnectionLimits:
    """What the listening socket lets clients hold."""

    connections: int = 1000        # open connections at once; more are closed at once
    head_seconds: float = 10.0     # to send a request's head (line and headers)
    keep_alive_seconds: int = 5    # an idle connection after an answer (uvicorn's own)


def file_descriptor_room(wanted: int) -> int:
    """Raise the process's soft limit of open files towards its hard limit so that ``wanted``
    connections fit with room to spare; returns the connections that fit."""
    try:
        import resource
    except ImportError:  # not on POSIX: nothing to raise
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + 256  # the server's own files, numba's cache, agent files
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return wanted if soft == resource.RLIM_INFINITY else max(1, min(wanted, soft - 256))


def guarded_protocol(limits: ConnectionLimits) -> type:
    """uvicorn's h11 protocol, closing connections past ``limits.connections`` and those that
    send no whole request head within ``limits.head_seconds``."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.connections:
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # a request head arrived: the app bounds the rest

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request's head, on a kept-alive connection

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(limits.head_seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _too_slow(self) -> None:
            self._head_timer = None
            if self.cycle is None or self.cycle.response_complete:
                self.transport.close()

    return GuardedH11Protocol


def server_config(app: Any, host: str = "127.0.0.1", port: int = 8000,
                  limits: ConnectionLimits | None = None, proxy_headers: bool = False,
                  log_level: str = "warning"):
    """The uvicorn ``Config`` of ``machu serve`` for ``app``."""
    import uvicorn

    limits = limits or ConnectionLimits()
    room = file_descriptor_room(limits.connections)
    if room < limits.connections:
        limits = ConnectionLimits(room, limits.head_seconds, limits.keep_alive_seconds)
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, http=guarded_protocol(limits),
        proxy_headers=proxy_headers, limit_concurrency=limits.connections,
        timeout_keep_alive=limits.keep_alive_seconds, ws="none", lifespan="off")


def warm_up() -> float:
    """Compile (on a fresh install) or load from numba's cache everything a game in the app
    needs — a whole game of random moves, the observation, the board SVG, the scores, the
    record — so that the first client does not wait for it; returns the seconds it took."""
    import random

    t0 = time.perf_counter()
    game = Game(2, seed=0)
    rng = random.Random(0)
    while not game.is_over and len(game.history) < 400:
        game.play(rng.choice(game.legal_action_ids()))
    game.observation(0)
    board_svg(game, 0)
    game.scores()
    game_record(game)
    return time.perf_counter() - t0


def serve(host: str = "127.0.0.1", port: int = 8000, allowed_hosts: Sequence[str] = (),
          agents_dir: str | Path | None = None, proxy_headers: bool = False) -> None:
    """Run the app with uvicorn (blocking) on ``host``: it answers the local names, ``host``
    and ``allowed_hosts``; bounded connections (``server.ConnectionLimits``); forwarding
    headers trusted only with ``proxy_headers`` (behind a reverse proxy on this machine)."""
    try:
        import uvicorn
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          + install_hint("web")) from None
    from machu_env.web.app import allowed_hosts_for, create_app

    app = create_app(allowed_hosts_for(host, allowed_hosts), agents_dir)
    uvicorn.Server(server_config(app, host, port, proxy_headers=proxy_headers)).run()
