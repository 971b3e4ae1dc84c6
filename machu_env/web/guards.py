"""What every request passes before it reaches a game: same origin, a bounded body read in
bounded time, a bounded number of requests per client in progress.

Starlette is imported here only (the web extra); the app factory imports this module lazily.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse as _StarletteJSON

from machu_env.views.svg import LAYOUTS
from machu_env.web.store import BadRequest

T = TypeVar("T")


def client_of(request: Request) -> str:
    """The client's address: the peer of the connection (the server trusts no forwarding
    header unless its operator asked, ``machu serve --proxy-headers``)."""
    return request.client.host if request.client else "?"


async def off_loop(work: Callable[[], T]) -> T:
    """``work()`` in a worker thread (agents think there), never on the event loop."""
    return await run_in_threadpool(work)


BOARD_HEADER = "X-Board-Layout"  # the board picture a page asks for: "wide" or "phone"


def board_layout(request: Request) -> str:
    """The layout of the board picture the page asked for (``BOARD_HEADER``; "wide" without
    one): a phone's page asks for the picture drawn for its width."""
    layout = request.headers.get(BOARD_HEADER, "wide")
    if layout not in LAYOUTS:
        raise BadRequest(f"{BOARD_HEADER} must be one of {', '.join(LAYOUTS)}, not "
                         f"{layout[:40]!r}")
    return layout


def check_same_origin(request: Request) -> None:
    """POSTs: JSON only, from the served origin (a cross-site form or fetch gets 403)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise BadRequest(f"send the body as JSON (Content-Type: application/json), not "
                         f"{kind[:60] or 'no Content-Type'}", 415)
    origin = request.headers.get("origin")
    served = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin is not None and origin != served:
        raise BadRequest(f"cross-origin request refused: Origin {origin[:80]!r} is not "
                         f"{served!r}", 403)


class BodyReader:
    """Reads request bodies as JSON: each at most its route's limit, all of them together at
    most ``budget`` bytes held at once (past it: 503), each within ``seconds`` (else 408)."""

    def __init__(self, budget: int, seconds: float) -> None:
        self.budget, self.seconds = budget, seconds
        self.held = 0  # bytes of bodies being read now, all requests

    async def read(self, request: Request, limit: int) -> Any:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise BadRequest(f"the request body is larger than {limit} bytes", 413)
        body = bytearray()
        mine = 0
        try:
            async with asyncio.timeout(self.seconds):
                async for chunk in request.stream():
                    if self.held + len(chunk) > self.budget:
                        raise BadRequest("the server is reading too many request bodies at "
                                         "once; try again in a moment", 503)
                    self.held += len(chunk)
                    mine += len(chunk)
                    body += chunk
                    if len(body) > limit:
                        raise BadRequest(f"the request body is larger than {limit} bytes", 413)
        except TimeoutError:
            raise BadRequest(f"the request body did not arrive within {self.seconds:g} s",
                             408) from None
        except ClientDisconnect:
            raise BadRequest("the client went away before the body was read") from None
        finally:
            self.held -= mine
        try:
            value = json.loads(bytes(body) or b"null")
            json.dumps(value, ensure_ascii=False).encode("utf-8")  # no lone surrogate in it
        except UnicodeEncodeError:
            raise BadRequest("the body holds text that is not valid Unicode (a lone surrogate "
                             "escape such as \\ud800)") from None
        except (ValueError, RecursionError) as e:  # not JSON, not UTF-8, an int of 4301 digits
            raise BadRequest(f"the body is not JSON that this server reads ({str(e)[:120]})") \
                from None
        return value


class JSONResponse(_StarletteJSON):
    """Starlette's JSON response with non-ASCII text escaped: any string, even one holding a
    lone surrogate that slipped into a message, encodes (a 4xx stays a 4xx, never a 500)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False, indent=None,
                          separators=(",", ":")).encode("ascii")


class ClientGate:
    """At most ``per_client`` requests of one client in progress at once (past it: 429), so
    that one client's many slow requests cannot take every worker thread."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self._busy: dict[str, int] = {}
        self._lock = threading.Lock()

    @contextmanager
    def enter(self, client: str) -> Iterator[None]:
        with self._lock:
            n = self._busy.get(client, 0)
            if n >= self.per_client:
                raise BadRequest(f"you have {n} requests in progress, the most one client may "
                                 "have; wait for their answers", 429)
            self._busy[client] = n + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._busy[client] - 1
                if left:
                    self._busy[client] = left
                else:
                    del self._busy[client]
