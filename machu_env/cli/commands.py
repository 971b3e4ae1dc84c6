"""The ``machu`` Typer app and its consoles (the command modules register on it)."""

from __future__ import annotations

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  help="The Princes of Machu Picchu: play, run tournaments, replay, benchmark.")
console = Console(markup=False, highlight=False, soft_wrap=True)  # no markup in text that is
# not ours; no wrapping: a log file or CI gets whole lines (a table never wraps at 80 columns)
err_console = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)


def compile_first(command: str, parts: tuple[str, ...] | None = None) -> None:
    """The engine parts ``command`` uses (``parts``: this run's own, when its options decide
    them), compiled (and said, on stderr) before its work when this machine has not compiled
    them yet (``warmup``)."""
    from machu_env.cli import warmup

    warmup.before(command, lambda text: err_console.print(f"machu {command}: {text}"), parts)
