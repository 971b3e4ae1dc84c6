"""The web server's limits against a real uvicorn on 127.0.0.1: idle
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
def running(limits: Limits, connections: ConnectionLimits, agents_dir=None):
    """A real uvicorn serving the app on a free port of 127.0.0.1: (app, port)."""
    app = create_app(limits=limits, agents_dir=agents_dir)
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
    """A local client cannot claim another client's address."""
    with running(Limits(agent_seconds=60, games_per_client=1), ConnectionLimits()) as (app, port):
        status, state = request(port, "POST", "/api/games", {"opponents": "random"},
                                headers={"X-Forwarded-For": "10.1.2.3"})
        assert status == 201
        owners = {e.owner for e in app.state.games._entries.values()}
        assert owners == {"127.0.0.1"}


# --- hostile inputs, round 4 ---------------------------------------------------------
def _finished_record(seed: int = 3) -> tuple[dict, int]:
    """A random 2-player game's record and the seat of its last decision."""
    import random

    from machu_env import Game
    from machu_env.core.records import game_record

    game, rng = Game(2, seed=seed), random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_action_ids()))
    return game_record(game, ["a", "b"]), game.history[-1][0]


def test_lone_surrogates_get_a_400_in_words():
    """Item 3: ``{"\\ud800": 1}`` gave a 500 (the message carried the key into the response);
    a record naming an agent so, on /api/replay, too."""
    record, _ = _finished_record()
    record["agents"] = ["\ud800", "b"]
    with running(Limits(agent_seconds=60), ConnectionLimits()) as (_, port):
        for path, body in (("/api/games", {"\ud800": 1}), ("/api/replay", record),
                           ("/api/games", {"opponents": "random\udfff"})):
            status, answer = request(port, "POST", path, body)
            assert status == 400 and "lone surrogate" in answer["error"], (path, answer)


def test_one_client_cannot_pile_up_finished_games_or_replays():
    """Item 6: finished games count against a per-client cap (the review held 1 GB with 600 of
    them); a refused new game costs no replay (the room is checked first); /api/replay draws
    records of at most ``replay_decisions`` decisions."""
    from machu_env.web import routes as web_app

    record, seat = _finished_record()
    at = len(record["actions"]) - 1
    limits = Limits(agent_seconds=60, games_per_client=2, finished_games_per_client=3,
                    replay_decisions=len(record["actions"]) - 1)
    built = []
    real = web_app.new_session

    def counting(*args, **kwargs):
        built.append(1)
        return real(*args, **kwargs)

    web_app.new_session = counting
    try:
        with running(limits, ConnectionLimits()) as (app, port):
            for _ in range(8):  # a branch at the last decision, then that decision: finished
                status, state = request(port, "POST", "/api/games", {
                    "record": record, "at": at, "seat": seat, "opponents": "random"})
                assert status == 201 and state["your_turn"]
                status, state = request(port, "POST", f"/api/games/{state['id']}/play",
                                        {"action": state["legal"][0]["id"]})
                assert status == 200 and state["over"]
            assert len(app.state.games) == 3  # the client's 3 newest finished games
            for _ in range(2):
                assert request(port, "POST", "/api/games", {"opponents": "random"})[0] == 201
            count = len(built)
            for _ in range(5):  # no room: refused before the record is replayed
                status, body = request(port, "POST", "/api/games", {
                    "record": record, "at": at, "seat": seat, "opponents": "random"})
                assert status == 429 and "2 games running" in body["error"]
            assert len(built) == count
            status, body = request(port, "POST", "/api/replay", record)
            assert status == 413 and f"at most {limits.replay_decisions}" in body["error"]
            record["actions"] = record["actions"][:-1]
            record["result"] = None
            assert request(port, "POST", "/api/replay", record)[0] == 200
    finally:
        web_app.new_session = real


def test_an_unreadable_agent_file_is_a_400(tmp_path):
    """Item 4: a tensor dtype torch lacks (F8_E8M0) gave a 500 from ``--agents-dir``."""
    pytest.importorskip("torch")

    from hostile_files import f8_file

    f8_file(tmp_path / "f8.safetensors")
    with running(Limits(agent_seconds=60), ConnectionLimits(), agents_dir=tmp_path) as (_, port):
        status, body = request(port, "POST", "/api/games",
                               {"opponents": "policy:f8.safetensors"})
        assert status == 400 and "cannot be loaded here" in body["error"], body
