"""Every signal that stops a command is honoured, with real processes and real signals: SIGHUP
(a closed terminal or SSH session) as SIGTERM, Ctrl-C sent to the whole process group while the
engine compiles in worker processes (the workers end with the command, none prints a
traceback), a compile worker killed as the out-of-memory killer would (its part is compiled in
the command's own process), and a signal that arrives while the command line starts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
LAUNCH = [sys.executable, "-c", "import machu_launch; machu_launch.main()"]


def _as_at_a_terminal() -> None:
    """(In the child, before it starts.) The stop signals as a terminal's command has them: a
    suite started under ``nohup`` or as a background job (``cmd &``) hands SIGHUP or SIGINT
    down ignored, and a command rightly keeps an ignored signal ignored."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def _children(pid: int) -> list[int]:
    """The compile workers of ``pid`` (not multiprocessing's resource tracker)."""
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("no ps here")
    kids = []
    for kid in map(int, out.split()):
        try:
            if b"spawn_main" in Path(f"/proc/{kid}/cmdline").read_bytes():
                kids.append(kid)
        except OSError:
            pass
    return kids


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped by whoever adopted it is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _all_ended(pids: list[int], seconds: float = 10) -> bool:
    """(multiprocessing's resource tracker ends when it sees its parent's pipe close)"""
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _ended(proc: subprocess.Popen, seconds: float) -> tuple[str, str]:
    """``proc``'s output once it ends; killed (with its group, when it leads one) and failed
    after ``seconds``: a run left playing would slow every test after it."""
    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            if os.getpgid(proc.pid) == proc.pid:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"still running {seconds:g} s after the signal: {(out + err)[-2000:]}")


def test_a_stop_that_lands_in_a_destructor_still_stops_the_command():
    """A signal raised inside ``__del__`` is dropped by Python ("Exception ignored"); the command
    line delivers it again, so the command ends instead of playing on."""
    script = ("import signal, sys, time\n"
              "from machu_env.cli.interrupts import on_signal, quiet_unraisable\n"
              "signal.signal(signal.SIGTERM, on_signal)\n"
              "sys.unraisablehook = quiet_unraisable\n"
              "class Slow:\n"
              "    def __del__(self):\n"
              "        t = time.monotonic()\n"
              "        while time.monotonic() - t < 0.02: pass\n"
              "print('ready', flush=True)\n"
              "try:\n"
              "    while True:\n"
              "        Slow(); t = time.monotonic()\n"
              "        while time.monotonic() - t < 0.002: pass\n"
              "except KeyboardInterrupt as e:\n"
              "    print('stopped', type(e).__name__)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_at_a_terminal)
    assert proc.stdout.readline() == "ready\n"
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = _ended(proc, 30)
    assert out.strip() == "stopped Terminated" and err == "", err


def test_sighup_stops_a_recording_tournament_and_leaves_nothing(tmp_path):
    out = tmp_path / "t"
    proc = subprocess.Popen([*LAUNCH, "tournament", "--agents", "random,gold", "--players", "2",
                             "--games", "100000", "--workers", "1", "--no-progress",
                             "--records", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "MACHU_ENV_WARMUP": "off"},
                            preexec_fn=_as_at_a_terminal)
    deadline = time.monotonic() + 300
    while not (out / "records").is_dir() or len(list((out / "records").iterdir())) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGHUP)
    _, err = _ended(proc, 120)
    assert proc.returncode == 129 and "terminated (SIGHUP)" in err, err
    assert "Traceback" not in err and not out.exists()


def _compiling(tmp_path: Path, script: str) -> subprocess.Popen:
    """A process compiling parts of the engine into a fresh cache, in a session of its own (so
    that a signal to its group reaches it and its workers, as Ctrl-C at a terminal does)."""
    env = {**os.environ, "MACHU_ENV_CACHE_DIR": str(tmp_path / "cache"),
           "MACHU_ENV_WARMUP": "on"}
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
                            preexec_fn=_as_at_a_terminal)


def _wait_for_workers(proc: subprocess.Popen, count: int) -> list[int]:
    deadline = time.monotonic() + 120
    while len(kids := _children(proc.pid)) < count:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    return kids


def test_ctrl_c_to_the_group_ends_the_compile_workers_at_once(tmp_path):
    proc = subprocess.Popen([*LAUNCH, "warmup"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "MACHU_ENV_CACHE_DIR": str(tmp_path / "cache"),
                                 "MACHU_ENV_WARMUP": "on"},
                            preexec_fn=_as_at_a_terminal)
    workers = _wait_for_workers(proc, 2)
    time.sleep(2)  # (the workers are importing machu-env)
    os.killpg(proc.pid, signal.SIGINT)
    t0 = time.monotonic()
    out, err = _ended(proc, 120)
    assert time.monotonic() - t0 < 30, "the workers kept compiling after Ctrl-C"
    assert proc.returncode == 130 and "Traceback" not in out + err, out + err
    assert (out + err).strip().splitlines()[-1].endswith("interrupted")
    assert _all_ended(workers), [w for w in workers if _alive(w)]
    assert not list((tmp_path / "cache").rglob("warm-*"))  # (nothing marked after the stop)


def test_a_killed_compile_worker_has_its_part_compiled_here(tmp_path):
    script = ("from machu_env.cli.warmup import compile_parts\n"
              "compile_parts(['heuristics', 'pictures'], print, workers=2)\n")
    proc = _compiling(tmp_path, script)
    victim = _wait_for_workers(proc, 2)[0]
    time.sleep(1)
    os.kill(victim, signal.SIGKILL)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "ended (exit status -9); compiling it in this process" in out, out
    assert out.strip().splitlines()[-1].startswith("the engine is compiled")


def test_a_signal_while_the_command_line_starts_is_not_lost():
    import machu_launch

    env = {**os.environ, "MACHU_ENV_WARMUP": "off"}
    script = ("import machu_launch, os, signal\n"
              "machu_launch.main.__globals__['_received'].append(signal.SIGTERM)\n"
              "from machu_env.cli import entry_point\n"
              "entry_point(machu_launch._received)\n")
    proc = subprocess.run([sys.executable, "-c", script, "rules"], capture_output=True,
                          text=True, env=env, timeout=120, preexec_fn=_as_at_a_terminal)
    assert proc.returncode == 143 and proc.stderr.strip() == "machu: terminated (SIGTERM)"
    assert "tile" not in proc.stdout  # (the command did not run)
    assert machu_launch.STOPS[-1] == signal.SIGHUP
