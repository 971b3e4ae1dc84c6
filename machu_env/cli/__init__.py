"""The ``machu`` command: play, agents, tournament, analyze, dataset, replay, serve, train,
exploit, population, average, export, bench, warmup, rules, cache — one module per group of commands
(``playing``, ``roster``, ``evaluating``, ``datasets``, ``serving``, ``training``, ``tools``)
over shared option checks (``options``) and one Typer app (``commands``).

Bad input never shows a traceback: every command prints one line, ``machu <command>: error:
...``, to stderr and exits with status 2 (``MACHU_DEBUG=1`` shows the traceback). Text that is
not ours (paths, agent names, records, what a player types) is printed without rich markup.
"""

from __future__ import annotations

import os
import signal
import sys

import typer

from machu_env.cli import (
    datasets,
    evaluating,
    playing,
    probing,
    roster,
    serving,
    tools,
    training,
)
from machu_env.cli.commands import app, err_console
from machu_env.cli.interrupts import (
    RECEIVED,
    STOPS,
    Interrupted,
    interruptible,
    on_signal,
    quiet_unraisable,
    stopping,
)

for command in (playing.play, roster.agents, evaluating.tournament, evaluating.analyze,
                datasets.dataset, playing.replay, serving.serve, training.train,
                probing.exploit, training.population, training.average, tools.export,
                tools.bench,
                tools.warmup, tools.rules, tools.cache):  # (the order of `machu --help`)
    app.command()(interruptible(command))


def expand_args(args: list[str]) -> list[str]:
    """``--ray`` without an address means the local instance (``--ray local``)."""
    args = list(args)
    for k, a in enumerate(args):
        if a == "--ray" and (k + 1 == len(args) or args[k + 1].startswith("-")):
            args.insert(k + 1, "local")
            break
    return args


def main(argv: list[str] | None = None) -> int:
    """Run ``machu``; bad input prints one line to stderr and exits with status 2."""
    args = expand_args((sys.argv[1:] if argv is None else list(argv)) or ["--help"])
    name = next((a for a in args if not a.startswith("-")), "")
    prefix = f"machu {name}" if name in app_commands() else "machu"
    try:
        result = app(args=args, prog_name="machu", standalone_mode=False)
        if result == 130 and RECEIVED:  # typer's silent answer to a signal while it parses
            stopped = Interrupted.of(stopping(RECEIVED[0]))
            err_console.print(f"{prefix}: {stopped}")
            return stopped.code
        if isinstance(result, int):  # (click returns the exit code of typer.Exit)
            return result
    except typer.Exit as e:
        return e.exit_code
    except Interrupted as e:
        err_console.print(f"{prefix}: {e}")
        return e.code
    except typer.Abort:
        err_console.print(f"{prefix}: aborted")
        return 130
    except RuntimeError as e:
        if "Symlink loop" not in str(e) or os.environ.get("MACHU_DEBUG"):  # (pathlib's words)
            raise
        err_console.print(f"{prefix}: error: {' '.join(str(e).split())}: a symbolic link "
                          "that leads back to itself")
        return 2
    except (ValueError, OSError, RecursionError) as e:  # bad files, records, settings
        if os.environ.get("MACHU_DEBUG"):
            raise
        text = str(e) if not isinstance(e, OSError) else f"{e.strerror}: {e.filename}"
        err_console.print(f"{prefix}: error: {' '.join(text.split())}")
        return 2
    except KeyboardInterrupt as e:  # (outside a command: while parsing)
        stopped = Interrupted.of(e)
        err_console.print(f"{prefix}: {stopped}")
        return stopped.code
    except Exception as e:
        if not hasattr(e, "format_message"):  # not a usage error: a bug, show it
            raise
        err_console.print(f"{prefix}: error: {' '.join(e.format_message().split())}")
        return 2
    return 0


def app_commands() -> set[str]:
    return {c.name or c.callback.__name__ for c in app.registered_commands}


def entry_point(pending: list[int] | None = None, compile_worker=None) -> None:
    """The console script. ``pending``: where the launcher notes the signals that arrive
    before these handlers are set (checked once they are: none is lost). ``compile_worker``:
    the launcher's entry for compile worker processes (it ignores the stop signals before
    anything is imported; ``warmup``)."""
    if compile_worker is not None:
        from machu_env.cli import warmup

        warmup.WORKER_ENTRY[:] = [compile_worker]
    for signum in STOPS:  # the command line only (not an embedding)
        if signal.getsignal(signum) is not signal.SIG_IGN:  # (a shell's `cmd &` ignores SIGINT)
            signal.signal(signum, on_signal)
    sys.unraisablehook = quiet_unraisable
    if pending:
        RECEIVED.append(pending[0])
        stopped = Interrupted.of(stopping(pending[0]))
        err_console.print(f"machu: {stopped}")
        sys.exit(stopped.code)
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
