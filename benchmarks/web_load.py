"""Load on the web app: many clients, each on its own loopback address, playing whole games.

    python benchmarks/web_load.py --clients 8,40,150 --seconds 60 [--opponents gold]

Starts ``machu serve`` (the real server: uvicorn with its limits) on a free port of 127.0.0.1
in a subprocess, then for each client count runs that many clients for ``--seconds``: client
``k`` sends from 127.0.0.``k + 2`` over one kept-alive connection, starts a 2-player game
against ``--opponents``, plays a random legal action until the game is over (asking the
server again while it answers ``pending``), downloads the record and starts the next game.
Every answer is counted by status; a 429 or 503 (a limit) is an error and the client waits
half a second. Clients run as threads in ``--processes`` processes beside the server: on a
small machine they compete with it for the CPUs, as real local clients would. Prints a table
and writes ``web_load.json`` (machine, versions, date) under ``--out``. Every loop is bounded
in time; only loopback addresses are used.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

from machu_env.bench.machine import describe


class Client:
    """One player on address ``source``: whole games, one request at a time."""

    def __init__(self, port: int, source: str, opponents: str, seed: int) -> None:
        self.port, self.source, self.opponents = port, source, opponents
        self.rng = random.Random(seed)
        self.conn: http.client.HTTPConnection | None = None
        self.latencies: list[float] = []
        self.statuses: Counter[int] = Counter()
        self.finished = 0

    def call(self, method: str, path: str, body=None) -> tuple[int, dict | None]:
        for attempt in range(2):  # a kept-alive connection the server closed: reconnect once
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60,
                                                       source_address=(self.source, 0))
            t0 = time.perf_counter()
            try:
                data = None if body is None else json.dumps(body).encode()
                self.conn.request(method, path, body=data, headers={
                    "Host": f"127.0.0.1:{self.port}", "Content-Type": "application/json"})
                r = self.conn.getresponse()
                raw = r.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt:
                    self.statuses[0] += 1  # no answer at all
                    return 0, None
                continue
            self.latencies.append(time.perf_counter() - t0)
            self.statuses[r.status] += 1
            try:
                return r.status, json.loads(raw)
            except ValueError:
                return r.status, None
        return 0, None

    def run(self, until: float) -> None:
        state = None
        while time.monotonic() < until:
            if state is None or state.get("over"):
                status, state = self.call("POST", "/api/games", {
                    "num_players": 2, "seat": 0, "opponents": self.opponents})
            elif state.get("pending") or not state.get("legal"):
                status, state = self.call("POST", f"/api/games/{state['id']}/advance", {})
            else:
                pick = self.rng.choice(state["legal"])["id"]
                status, state = self.call("POST", f"/api/games/{state['id']}/play",
                                          {"action": pick})
            if status in (200, 201) and state and state.get("over"):
                self.call("GET", f"/api/games/{state['id']}/record")
                self.finished += 1
            elif status not in (200, 201):
                if status == 409 and state and "busy" in state.get("error", ""):
                    time.sleep(0.05)
                else:
                    time.sleep(0.5)
                state = None
        if self.conn is not None:
            self.conn.close()


def _clients(args: tuple) -> dict:
    """Run clients ``first..first+count-1`` in threads of this process until ``until``."""
    port, first, count, opponents, until = args
    clients = [Client(port, f"127.0.0.{k + 2}", opponents, k) for k in range(first,
                                                                              first + count)]
    threads = [threading.Thread(target=c.run, args=(until,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses: Counter[int] = Counter()
    for c in clients:
        statuses.update(c.statuses)
    return {"latencies": [x for c in clients for x in c.latencies],
            "statuses": dict(statuses), "finished": sum(c.finished for c in clients)}


def load(port: int, clients: int, seconds: float, opponents: str, processes: int) -> dict:
    """One level: ``clients`` clients for ``seconds``; requests/s, latency, errors, games."""
    until = time.monotonic() + seconds
    share = [clients // processes + (k < clients % processes) for k in range(processes)]
    jobs = [(port, sum(share[:k]), share[k], opponents, until) for k in range(processes)
            if share[k]]
    t0 = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
        parts = pool.map(_clients, jobs)
    took = time.monotonic() - t0
    lat = np.asarray([x for p in parts for x in p["latencies"]])
    statuses: Counter[int] = Counter()
    for p in parts:
        statuses.update({int(k): v for k, v in p["statuses"].items()})
    ok = sum(v for k, v in statuses.items() if k in (200, 201))
    return {"clients": clients, "seconds": round(took, 1), "requests": int(lat.size),
            "requests_per_s": round(lat.size / took, 1),
            "p50_ms": round(float(np.median(lat)) * 1000, 1) if lat.size else None,
            "p99_ms": round(float(np.quantile(lat, 0.99)) * 1000, 1) if lat.size else None,
            "errors": int(sum(statuses.values()) - ok),
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "games_finished": sum(p["finished"] for p in parts)}


def start_server(port: int) -> subprocess.Popen:
    """``machu serve`` on 127.0.0.1:``port``, once it answers."""
    cli = "import sys; from machu_env.cli import main; sys.exit(main(sys.argv[1:]))"
    server = subprocess.Popen([sys.executable, "-c", cli, "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"machu serve exited: {server.stderr.read().decode()[-500:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("machu serve did not start within 300 s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", default="8,40,150", help="comma-separated client counts "
                   "(at most 250: one loopback address each)")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--opponents", default="gold")
    p.add_argument("--processes", type=int, default=2, help="client processes")
    p.add_argument("--out", default="benchmarks/results")
    args = p.parse_args(argv)
    counts = [int(c) for c in args.clients.split(",")]
    if not all(1 <= c <= 250 for c in counts) or not 1 <= args.processes <= 16 \
            or not 1 <= args.seconds <= 3600:
        p.error("--clients in 1..250 each, --processes in 1..16, --seconds in 1..3600")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = start_server(port)
    rows = []
    try:
        for n in counts:
            rows.append(load(port, n, args.seconds, args.opponents, args.processes))
            r = rows[-1]
            print(f"{r['clients']:4d} clients  {r['requests_per_s']:7.1f} req/s  p50 "
                  f"{r['p50_ms']} ms  p99 {r['p99_ms']} ms  errors {r['errors']}  games "
                  f"{r['games_finished']}  statuses {r['statuses']}", flush=True)
    finally:
        server.terminate()
        server.wait(30)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "web_load.json").write_text(json.dumps(
        {"machine": describe(), "command": "python benchmarks/web_load.py " +
         " ".join(argv if argv is not None else sys.argv[1:]), "opponents": args.opponents,
         "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
