"""Option checks every ``machu`` command shares: output paths checked before the work, no
input overwritten, agent lists and search budgets."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from machu_env.core.files import resolved


def output_folder(path: Path, option: str) -> Path:
    """Create an output folder before the work starts; BadParameter if it cannot be one."""
    if path.exists() and not path.is_dir():
        raise typer.BadParameter(f"{path} is a file: give a folder", param_hint=option)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise typer.BadParameter(f"cannot create {path}: {e.strerror}", param_hint=option) from None
    if not os.access(path, os.W_OK):
        raise typer.BadParameter(f"{path} is not writable", param_hint=option)
    return path


def check_output_folder(path: Path, option: str) -> bool:
    """Check, creating nothing, that ``path`` is or can become a writable folder; whether it
    exists already. BadParameter otherwise (a file, a dangling link, an unwritable parent)."""
    if path.exists():
        if not path.is_dir():
            raise typer.BadParameter(f"{path} is a file: give a folder", param_hint=option)
        if not os.access(path, os.W_OK):
            raise typer.BadParameter(f"{path} is not writable", param_hint=option)
        return True
    parent = path
    while not parent.exists():
        if parent.is_symlink():
            raise typer.BadParameter(f"cannot create {path}: {parent} is a dangling link",
                                     param_hint=option)
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise typer.BadParameter(f"cannot create {path}: {parent} is not a writable folder",
                                 param_hint=option)
    return False


def output_file(path: Path, option: str) -> Path:
    """Check (before the work) that a file can be written at ``path``."""
    if path.is_dir():
        raise typer.BadParameter(f"{path} is a folder: give a file name", param_hint=option)
    output_folder(path.parent, option)
    return path


def refuse_overwrite(output: Path, inputs: list[Path], option: str) -> None:
    """No command writes over one of its own inputs (``machu replay game.json --html
    game.json`` would replace the record with the page)."""
    for source in inputs:
        if source.exists() and output.exists() and os.path.samefile(source, output) or \
                resolved(output) == resolved(source):
            raise typer.BadParameter(f"{output} is also an input of this command ({source}): "
                                     "give another file", param_hint=option)


def refuse_inputs_inside(folder: Path, inputs: list[Path], option: str) -> None:
    """An output folder must not hold an input file (its files could be written over)."""
    root = resolved(folder)
    for source in inputs:
        if root in resolved(source).parents:
            raise typer.BadParameter(f"{folder} holds {source}, an input of this command: "
                                     "give another folder", param_hint=option)


def agent_files(names: list[str]) -> list[Path]:
    """The files that agent names refer to (``policy:<path>``, ``search:policy:<path>``...)."""
    files = []
    for name in names:
        inner = name.split(":", 1)[1] if name.startswith(("search:", "rollout:")) else name
        if inner.startswith(("policy:", "rllib:")):
            files.append(Path(inner.split(":", 1)[1]))
    return files


def check_seconds(seconds: float | None) -> None:
    from machu_env.agents.base import check_seconds

    if seconds is not None:
        try:
            check_seconds(seconds)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--mcts-seconds") from None


def agent_list(text: str) -> list[str]:
    names = [a.strip() for a in text.split(",") if a.strip()]
    if not names:
        raise typer.BadParameter("give at least one agent name, e.g. random,builder,gold")
    return names


def mcts_options(seconds: float | None, iterations: int | None) -> dict:
    opts: dict = {}
    if iterations is not None:
        opts["iterations"] = iterations
    if seconds is not None:
        opts["seconds"] = seconds
    return opts
