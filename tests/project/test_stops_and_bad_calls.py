"""A stop signal sent to the command's process alone ends its job processes at once; ``--ray`` at
something that is not Ray is refused within the connect timeout; ``LearnerBatch``'s public
methods refuse bad input in words instead of crashing the interpreter (run in a subprocess, so
that a crash fails the test instead of the test run)."""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

JOBS = textwrap.dedent("""
    import signal, sys, time
    from machu_env.cli.interrupts import on_signal
    from machu_env.core.processes import run_jobs

    if __name__ == "__main__":
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGHUP, on_signal)
        try:
            run_jobs(time.sleep, [120] * 4, 2)  # two running, two queued
        except KeyboardInterrupt:
            print("stopped", flush=True)
            sys.exit(143)
""")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_to_the_process_alone_ends_its_jobs_at_once(tmp_path, signum):
    script = tmp_path / "jobs.py"
    script.write_text(JOBS)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)  # (the signal reaches this PID only)
    try:
        deadline = time.monotonic() + 120
        while len(_children(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)  # (the pool's two workers and its resource tracker)
        workers = _children(proc.pid)
        assert len(workers) >= 2, "the jobs did not start"
        time.sleep(1.0)
        t0 = time.monotonic()
        os.kill(proc.pid, signum)
        out, _ = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143 and "stopped" in out
    assert took < 10, f"the command took {took:.1f} s to stop"
    time.sleep(0.5)
    assert not [p for p in workers if _alive(p)], "a job process outlived the command"


def test_ray_at_a_listener_that_is_not_ray_is_refused_within_the_timeout():
    pytest.importorskip("ray")
    from machu_env.ray_backend import CONNECT_TIMEOUT, connect

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        t0 = time.monotonic()
        with pytest.raises(ValueError, match="is not a Ray cluster"):
            connect(f"127.0.0.1:{server.server_address[1]}")
        assert time.monotonic() - t0 < CONNECT_TIMEOUT + 5
    finally:
        server.shutdown()


BAD_CALLS = textwrap.dedent("""
    import numpy as np
    from machu_env.core.learner_batch import LearnerBatch
    from machu_env.engine.batch import seed_streams
    from machu_env.rules.actions import NUM_ACTIONS

    env = LearnerBatch(4, 2, seed=1)
    env.reset()
    legal = env.action_masks()
    ok = np.array([np.flatnonzero(m)[0] for m in legal], dtype=np.int32)
    illegal = np.array([np.flatnonzero(~m)[0] for m in legal], dtype=np.int32)
    before = env.states.copy()
    calls = {
        "advance 10**6": lambda: env.advance(np.full(4, 10**6)),
        "advance -1": lambda: env.advance(np.full(4, -1)),
        "advance 2**40": lambda: env.advance(np.full(4, 2**40, dtype=np.int64)),
        "advance illegal": lambda: env.advance(illegal),
        "advance games 10**6": lambda: env.advance(ok, np.array([10**6])),
        "advance games -1": lambda: env.advance(ok, np.array([-1])),
        "observe small": lambda: env.observe(np.zeros((1, 2), np.float32),
                                             np.zeros((1, 2), np.bool_)),
        "observe dtype": lambda: env.observe(np.zeros((4, env.obs_size), np.float64),
                                             np.zeros((4, NUM_ACTIONS), np.bool_)),
        "advance_compiled small": lambda: env.advance_compiled(
            ok, np.zeros((1, 1), np.float32), np.zeros((1, 1), np.bool_)),
        "terminal 10**6": lambda: env.terminal(np.array([10**6])),
        "first_legal -5": lambda: env.first_legal(np.array([-5])),
        "random_legal small": lambda: env.random_legal(seed_streams(0, 1),
                                                       np.zeros(1, np.int32)),
    }
    for name, call in calls.items():
        try:
            call()
        except ValueError as e:
            assert "\\n" not in str(e), name
            print("refused", name)
        else:
            print("ACCEPTED", name)
    assert (env.states == before).all(), "a refused call changed a game"
    env.advance(ok)  # the checked path still plays legal moves
    print("done")
""")


def test_learner_batch_refuses_bad_input_instead_of_crashing(tmp_path):
    script = tmp_path / "bad_calls.py"
    script.write_text(BAD_CALLS)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"rc {done.returncode}: {done.stderr[-2000:]}"
    lines = done.stdout.splitlines()
    assert lines[-1] == "done" and not [x for x in lines if x.startswith("ACCEPTED")], lines
    assert len([x for x in lines if x.startswith("refused")]) == 12
