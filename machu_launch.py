"""The ``machu`` command's first module: it sets Ctrl-C, SIGTERM and SIGHUP up before Python
imports the engine, the frameworks and the command line (the first second of every command), so
that a signal then ends the command with one line, as it does later, never an import traceback.
It imports nothing of machu-env itself until the handlers are in place."""

from __future__ import annotations

import signal
import sys

_received: list[int] = []  # the signals that arrived while machu-env was being imported


def _stop(signum, frame) -> None:
    """Noted, not raised: raised inside an import, a KeyboardInterrupt can land in C++ code
    (torch's pybind11 modules: ``terminate called after throwing ...``, the process aborts) or
    come out as another error (CPython 3.11's "TypeError: expected a message argument" in
    ssl.py). The import finishes (a second or two), then ``main`` ends the command."""
    _received.append(signum)


# Ctrl-C, SIGTERM, and SIGHUP (a closed terminal or SSH session) where the system has it
STOPS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


def _leave(signum: int) -> None:
    """The one line for an interrupted start, and its exit status (128 + the signal: 130
    Ctrl-C, 143 SIGTERM, 129 SIGHUP)."""
    words = "interrupted" if signum == signal.SIGINT else \
        f"terminated ({signal.Signals(signum).name})"
    print(f"machu: {words}", file=sys.stderr)
    sys.exit(128 + int(signum))


def main() -> None:
    """``machu``: the handlers, then ``machu_env.cli.entry_point`` (which sets its own)."""
    for signum in STOPS:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # (a shell's `cmd &` ignores SIGINT)
            signal.signal(signum, _stop)
    try:
        from machu_env.cli import entry_point
    except BaseException:
        if _received:  # (an import that failed after the signal: the signal decides)
            _leave(_received[0])
        raise
    if _received:
        _leave(_received[0])
    try:
        # (it exits; a signal noted until its handlers are set: said)
        entry_point(_received, compile_worker)
    except KeyboardInterrupt as e:
        _leave(getattr(e, "signum", signal.SIGINT))


def compile_worker(part: str, conn) -> None:
    """A compile worker's entry (``machu_env.cli.warmup``): the stop signals are ignored before
    machu-env and its frameworks are imported (they arrive blocked already; a library that
    unblocks them while it loads must not turn a Ctrl-C at the terminal into a traceback here:
    the command ends its workers itself)."""
    for signum in STOPS:
        signal.signal(signum, signal.SIG_IGN)
    from machu_env.cli.warmup import _worker

    _worker(part, conn)


if __name__ == "__main__":
    main()
