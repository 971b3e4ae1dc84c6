"""The games (and saved positions) a web server holds, under unguessable ids.

Bounded three ways, so that no client can crowd out another:

* running entries: at most ``total`` in all (a new one past that: 503) and ``per_client`` per
  client address; a client's new entry past its share replaces its own least recently used one
  only if that one has been untouched for ``keep_seconds`` (else 429, naming how to free one), so
  a game being played is never dropped to make room;
* finished games (``session.finished``) do not count: they stay, their record downloadable, up
  to ``finished`` of them in all and ``finished_per_client`` per client (the oldest goes first)
  and for ``finished_seconds`` after last use;
* anything untouched for ``idle_seconds`` expires.

An id that was dropped answers 410 with the reason (a bounded memory of ``TOMBSTONES`` ids), an
id never issued 404. No method lists the ids.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

TOMBSTONES = 4096  # dropped ids remembered with their reason


class BadRequest(ValueError):
    """A client's mistake: answered with ``status`` and the message, nothing changed."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Entry:
    item: Any
    owner: str
    used: float


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:g} minute{'s' if seconds != 60 else ''}"


class GameStore:
    """Entries (games or saved positions) by id, with their owner and last use."""

    def __init__(self, *, total: int, per_client: int, idle_seconds: float,
                 keep_seconds: float = 0.0, finished: int = 0, finished_seconds: float = 0.0,
                 finished_per_client: int | None = None, what: str = "games") -> None:
        self.total, self.per_client, self.what = total, per_client, what
        self.idle_seconds, self.keep_seconds = idle_seconds, keep_seconds
        self.finished, self.finished_seconds = finished, finished_seconds
        self.finished_per_client = finished if finished_per_client is None else finished_per_client
        self._entries: dict[str, _Entry] = {}
        self._dropped: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()  # held for bookkeeping only, never while a game moves

    @property
    def one(self) -> str:
        return self.what.removesuffix("s")

    def check_room(self, owner: str) -> None:
        """BadRequest (429/503) now if ``owner``'s next ``add`` would be refused: the check
        before the work of building a game (a replayed record, a re-deal)."""
        with self._lock:
            self._room(owner, time.monotonic(), drop=False)

    def add(self, item: Any, owner: str) -> str:
        """Hold ``item`` for ``owner`` under a new id; BadRequest (429/503) when there is no
        room that may be made."""
        now = time.monotonic()
        with self._lock:
            self._room(owner, now, drop=True)
            game_id = secrets.token_urlsafe(16)
            self._entries[game_id] = _Entry(item, owner, now)
        return game_id

    def _room(self, owner: str, now: float, drop: bool) -> None:
        self._expire(now)
        mine = sorted((e.used, gid) for gid, e in self._entries.items()
                      if e.owner == owner and not _finished(e.item))
        if len(mine) >= self.per_client:
            used, oldest = mine[0]
            if now - used < self.keep_seconds:
                raise BadRequest(
                    f"you have {len(mine)} {self.what} running, the most one client may "
                    f"hold; finish one, or leave one untouched for "
                    f"{_minutes(self.keep_seconds)} (your next new {self.one} then "
                    f"replaces it)", 429)
            replaced = 1  # (a check only: the add would drop it)
            if drop:
                self._drop(oldest, f"it was replaced by a newer {self.one} of yours after "
                           f"{_minutes(self.keep_seconds)} unused" if self.keep_seconds else
                           f"it was replaced by a newer {self.one} of yours")
                replaced = 0
        else:
            replaced = 0
        running = sum(not _finished(e.item) for e in self._entries.values())
        if running - replaced >= self.total:
            raise BadRequest(f"the server holds its maximum of {self.total} running "
                             f"{self.what}; try again later", 503)

    def get(self, game_id: str) -> Any:
        """The item of ``game_id`` (its last use now); 410 with the reason for a dropped id,
        404 for one never issued."""
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            entry = self._entries.get(game_id)
            if entry is None:
                reason = self._dropped.get(game_id)
                if reason is not None:
                    raise BadRequest(f"this {self.one} is gone: {reason}", 410)
                raise BadRequest(f"no such {self.one}; start a game with POST /api/games", 404)
            entry.used = now
            return entry.item

    def __len__(self) -> int:
        """The entries held (after the expiry any access makes)."""
        with self._lock:
            self._expire(time.monotonic())
            return len(self._entries)

    def running(self) -> int:
        with self._lock:
            return sum(not _finished(e.item) for e in self._entries.values())

    def _drop(self, game_id: str, reason: str) -> None:
        del self._entries[game_id]
        self._dropped[game_id] = reason
        while len(self._dropped) > TOMBSTONES:
            self._dropped.popitem(last=False)

    def _expire(self, now: float) -> None:
        done = sorted((e.used, gid) for gid, e in self._entries.items() if _finished(e.item))
        for used, gid in done:
            if now - used > self.finished_seconds:
                self._drop(gid, f"it ended and was kept {_minutes(self.finished_seconds)} "
                           "after its last use")
        done = [(u, g) for u, g in done if g in self._entries]
        for _, gid in done[:max(0, len(done) - self.finished)]:
            self._drop(gid, "it ended and made room for newer finished games")
        kept: dict[str, int] = {}
        for _, gid in reversed([(u, g) for u, g in done if g in self._entries]):  # newest first
            owner = self._entries[gid].owner
            kept[owner] = kept.get(owner, 0) + 1
            if kept[owner] > self.finished_per_client:
                self._drop(gid, "it ended and made room for newer finished games of yours")
        for gid in [g for g, e in self._entries.items() if now - e.used > self.idle_seconds]:
            self._drop(gid, f"it was untouched for {_minutes(self.idle_seconds)}")


def _finished(item: Any) -> bool:
    return bool(getattr(item, "finished", False))
