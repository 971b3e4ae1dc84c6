"""The ``machu`` command's first module: it sets Ctrl-C and SIGTERM up before Python imports the
engine, the frameworks and the command line (the first second of every command), so that a
signal then ends the command with one line, as it does later, never an import traceback. It
imports nothing of machu-env itself until the handlers are in place."""

from __future__ import annotations

import signal
import sys


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt(signum)


def main() -> None:
    """``machu``: the handlers, then ``machu_env.cli.entry_point`` (which sets its own)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) is not signal.SIG_IGN:  # (a shell's `cmd &` ignores SIGINT)
            signal.signal(signum, _stop)
    try:
        from machu_env.cli import entry_point

        entry_point()  # (it exits; a signal before its own handlers are set lands below)
    except KeyboardInterrupt as e:
        term = e.args == (signal.SIGTERM,) or type(e).__name__ == "Terminated"
        print("machu: " + ("terminated (SIGTERM)" if term else "interrupted"), file=sys.stderr)
        sys.exit(143 if term else 130)


if __name__ == "__main__":
    main()
