"""Ctrl-C, SIGTERM and SIGHUP (a closed terminal or SSH session) in a ``machu`` command: the
command's ``finally`` blocks run (partial outputs are removed), then one line says what stopped
it (typer alone would exit 130 in silence). SIGHUP is handled as SIGTERM."""

from __future__ import annotations

import _thread
import functools
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from machu_env.core.signals import STOPS  # Ctrl-C, SIGTERM, SIGHUP (re-exported)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so that every ``finally`` cleans up (a
    partial output folder is removed) as for Ctrl-C."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


def stopping(signum: int) -> KeyboardInterrupt:
    """The exception a stop signal raises: KeyboardInterrupt for Ctrl-C, else Terminated."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


class Interrupted(Exception):
    """Ctrl-C or SIGTERM inside a command, carried past typer (which would turn it into a
    silent ``Exit(130)``) to ``main``, which says so."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code

    @classmethod
    def of(cls, e: KeyboardInterrupt) -> Interrupted:
        if isinstance(e, Terminated):
            signum = getattr(e, "signum", signal.SIGTERM)
            return cls(f"terminated ({signal.Signals(signum).name})", 128 + int(signum))
        return cls("interrupted", 130)


RECEIVED: list[int] = []  # the signals this command line got (``on_signal``, ``Deferral``)


def interruptible(command):
    """``command`` with Ctrl-C and SIGTERM raised as ``Interrupted`` (its ``finally`` blocks
    have run by then). An exception of another kind after such a signal is its consequence (a
    KeyboardInterrupt inside numba's compiler surfaces as a RuntimeError): ``Interrupted``
    too."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt as e:
            raise Interrupted.of(e) from None
        except Exception:
            if RECEIVED:
                raise Interrupted.of(stopping(RECEIVED[0])) from None
            raise
    return run


def quiet_unraisable(unraisable) -> None:
    """``sys.unraisablehook`` of the command line: the KeyboardInterrupt of a signal that
    landed in a destructor or a C callback, where Python drops it and the command would play
    on, is not printed but delivered again (the main thread's handler runs at its next
    bytecode, so the stop lands where it can end the command); anything else is printed, as
    Python would."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and RECEIVED:
        _deliver_again(getattr(unraisable.exc_value, "signum", signal.SIGINT))
        return
    sys.__unraisablehook__(unraisable)


def _deliver_again(signum: int) -> None:
    """The stop signal ``signum`` once more, from a thread, a moment after the hook returns (so
    that its handler runs in the command's code; dropped again, it is delivered again). The
    moment is drawn, 1 to 50 ms, so that a loop of destructors cannot catch every delivery."""
    def later() -> None:
        time.sleep(random.uniform(0.001, 0.05))
        _thread.interrupt_main(signum)

    threading.Thread(target=later, name="machu-stop-again", daemon=True).start()


def on_signal(signum, frame) -> None:
    """The command line's handler of the stop signals: noted, then raised."""
    RECEIVED.append(signum)
    _raise(signum)


def _raise(signum: int) -> None:
    raise stopping(signum)


class Deferral:
    """Ctrl-C and SIGTERM noted, not raised, once ``arm()`` is called, until the work calls
    ``check()`` (between chunks): raised at an arbitrary point, a KeyboardInterrupt can land in
    a library's destructor (h5py's, while Minari writes), where Python only prints "Exception
    ignored" and the run goes on. Before ``arm()`` (compiling, playing the first chunk) and at a
    second signal, they raise at once."""

    def __init__(self) -> None:
        self.armed = False
        self.noted: list[int] = []

    def arm(self) -> None:
        self.armed = True

    def note(self, signum, frame) -> None:
        RECEIVED.append(signum)
        if not self.armed or self.noted:
            _raise(signum)
        self.noted.append(signum)

    def check(self) -> None:
        if self.noted:
            _raise(self.noted[0])


@contextmanager
def deferred() -> Iterator[Deferral]:
    """A ``Deferral`` holding the stop signals in the main thread while the block runs."""
    deferral = Deferral()
    if threading.current_thread() is not threading.main_thread():
        yield deferral  # (signal handlers belong to the main thread)
        return
    old = {s: signal.signal(s, deferral.note) for s in STOPS}
    try:
        yield deferral
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
