"""The web server's limits against a real uvicorn on 127.0.0.1 (issue #34, items 3, 4, 6): idle
and surplus connections, slow and oversized bodies, the body budget, a slow agent that must not
stall other requests, one client's requests in progress, forwarding headers. Every request loop
is bounded in count and time; the server runs in a thread of the test and stops with it."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from contextlib import contextmanager

import pytest

pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")

from machu_env.web import Limits, create_app  # noqa: E402
from machu_env.web.server import ConnectionLimits, server_config  # noqa: E402


@contextmanager
def running(limits: Limits, connections: ConnectionLimits):
    """A real uvicorn serving the app on a free port of 127.0.0.1: (app, port)."""
    app = create_app(limits=limits)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(server_config(app, "127.0.0.1", port, limits=connections,
                                          log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield app, port
    finally:
        server.should_exit = True
        thread.join(10)


def request(port: int, method: str, path: str, body=None, source: str = "127.0.0.1",
            headers: dict | None = None, timeout: float = 30.0):
    """(status, JSON) of one request from the loopback address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(source, 0))
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, body=data, headers={
            "Host": f"127.0.0.1:{port}", "Content-Type": "application/json", **(headers or {})})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closed ``sock`` within ``seconds`` (it read nothing else)."""
    sock.settimeout(seconds)
    try:
        return sock.recv(65536) == b"" or True
    except TimeoutError:
        return False
    except OSError:
        return True


FAST = ConnectionLimits(connections=20, head_seconds=1.0, keep_alive_seconds=1)


def test_idle_and_surplus_connections_are_closed():
    with running(Limits(agent_seconds=60), FAST) as (_, port):
        socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
        try:
            time.sleep(0.3)
            surplus = sum(closed_within(s, 0.05) for s in socks)
            assert surplus >= 20  # past 20 connections: closed at once
            assert all(closed_within(s, 3.0) for s in socks)  # no request head: closed
        finally:
            for s in socks:
                s.close()
        status, body = request(port, "GET", "/api/agents")  # honest clients are served
        assert status == 200 and "random" in body["agents"]


def test_slow_and_oversized_bodies_are_cut_and_bounded():
    limits = Limits(agent_seconds=60, body_seconds=1.0, body_budget=2**20)
    with running(limits, FAST) as (_, port):
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(f"POST /api/replay HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: "
                     f"application/json\r\nContent-Length: 1500000\r\n\r\n".encode()
                     + b"[" * 900_000)  # most of the budget, then nothing
        time.sleep(0.3)
        status, body = request(port, "POST", "/api/replay", {"pad": "x" * 300_000})
        assert status == 503 and "too many request bodies" in body["error"]
        slow.settimeout(5)
        answer = b""
        while b"}" not in answer:
            chunk = slow.recv(4096)
            if not chunk:
                break
            answer += chunk
        answer = answer.decode()
        assert answer.startswith("HTTP/1.1 408") and "did not arrive within 1 s" in answer
        slow.close()
        status, body = request(port, "POST", "/api/replay", {"pad": "x" * 300_000})
        assert status == 400  # the budget is free again: a whole body is read (not a record)
        status, body = request(port, "POST", "/api/games", {"pad": "x" * 2_100_000})
        assert status == 413 and "larger than" in body["error"]


def _watched(port: int, source: str = "127.0.0.1") -> str:
    status, state = request(port, "POST", "/api/games", {"num_players": 2, "seat": None,
                                                         "opponents": "random"}, source)
    assert status == 201
    return state["id"]


class Sleepy:
    """An agent that thinks for ``seconds`` before every decision (a stand-in for search)."""

    name = "sleepy"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def act(self, game):
        time.sleep(self.seconds)
        return game.legal_action_ids()[0]


def test_a_slow_game_stalls_neither_its_viewers_nor_other_clients():
    limits = Limits(agent_seconds=1.0, requests_per_client=3)
    with running(limits, ConnectionLimits()) as (app, port):
        gid = _watched(port)
        session = app.state.games.get(gid)
        session.agents = {0: Sleepy(0.2), 1: Sleepy(0.2)}
        answers = {}

        def advance():
            t0 = time.monotonic()
            answers["advance"] = (request(port, "POST", f"/api/games/{gid}/advance", {}),
                                  time.monotonic() - t0)
        worker = threading.Thread(target=advance)
        worker.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        status, seen = request(port, "GET", f"/api/games/{gid}")  # no waiting on the lock
        assert status == 200 and seen["busy"] and time.monotonic() - t0 < 0.5
        status, body = request(port, "POST", f"/api/games/{gid}/advance", {})
        assert status == 409 and "busy" in body["error"]
        t0 = time.monotonic()  # another client's new game does not wait either
        assert request(port, "POST", "/api/games", {"opponents": "random"}, "127.0.0.2")[0] \
            == 201 and time.monotonic() - t0 < 2.0
        worker.join(10)
        (status, state), took = answers["advance"]
        assert status == 200 and state["pending"] and not state["over"]
        assert took < 2.0  # capped at agent_seconds (1 s) plus one decision


def test_one_clients_requests_in_progress_are_bounded():
    limits = Limits(agent_seconds=2.0, requests_per_client=2)
    with running(limits, ConnectionLimits()) as (app, port):
        games = [_watched(port) for _ in range(3)]
        for gid in games:
            app.state.games.get(gid).agents = {0: Sleepy(0.3), 1: Sleepy(0.3)}
        results = []
        workers = [threading.Thread(target=lambda g=g: results.append(
            request(port, "POST", f"/api/games/{g}/advance", {})[0])) for g in games[:2]]
        for w in workers:
            w.start()
        time.sleep(0.4)
        status, body = request(port, "POST", f"/api/games/{games[2]}/advance", {})
        assert status == 429 and "2 requests in progress" in body["error"]
        assert request(port, "GET", "/api/agents", source="127.0.0.3")[0] == 200
        for w in workers:
            w.join(10)
        assert results == [200, 200]


def test_forwarding_headers_are_not_trusted_by_default():
    """Issue #34, item 6: a local client cannot claim another client's address."""
    with running(Limits(agent_seconds=60, games_per_client=1), ConnectionLimits()) as (app, port):
        status, state = request(port, "POST", "/api/games", {"opponents": "random"},
                                headers={"X-Forwarded-For": "10.1.2.3"})
        assert status == 201
        owners = {e.owner for e in app.state.games._entries.values()}
        assert owners == {"127.0.0.1"}
