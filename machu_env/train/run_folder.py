"""A training run's folder is the run's own: ``check_new`` refuses, before anything is
written, a folder that holds a run to resume or files a run did not write (a user's agent, a
probe's outputs); ``mark`` records, as the run's first file, that the folder's run files are
machu train's; only then does a new start clear what an earlier start of its own left before its
first checkpoint (``clear_unfinished``). A run reads no input from its own folder
(``refuse_inputs_inside``). A command removes only what it wrote."""

from __future__ import annotations

import json
from pathlib import Path

from machu_env.agents import policy_file
from machu_env.core import files
from machu_env.train.checkpoints import BEST, LATEST, OPTIMIZER, STATE

# what a run writes besides its config: removed when a new run starts in a folder whose earlier
# run (recorded as such by OWNER) never reached a checkpoint (no latest.json)
RUN_FILES = (LATEST, OPTIMIZER, BEST, "history.csv", "league.json", "summary.json", "curve.png")
RUN_FOLDERS = ("checkpoints", "snapshots", "exploiters")
# written first by every run: the folder's run files are machu train's own (and only then removed)
OWNER = ".machu-train.json"
OWNER_KIND = "machu train run folder"


def _present(out: Path) -> list[str]:
    """The files and folders in ``out`` that a run writes (and ``clear_unfinished`` removes)."""
    names = [n for n in (*RUN_FILES, "config.json", STATE, "tb") if (out / n).exists()
             or (out / n).is_symlink()]
    names += [n for n in RUN_FOLDERS if (out / n).is_dir() and any((out / n).iterdir())]
    return names


def owned(out: Path) -> bool:
    """Whether ``out`` holds the mark a run writes first (its run files are machu train's)."""
    try:
        mark = json.loads((out / OWNER).read_text()[:10_000])
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(mark, dict) and mark.get("kind") == OWNER_KIND


def check_new(out: Path) -> None:
    """Before a new run writes anything in ``out``: refuse a folder holding a run to resume or
    files this command did not write (a user's, another command's, a run of a version that did
    not mark its folder). ValueError in words; nothing is changed."""
    if (out / STATE).exists():
        raise ValueError(f"{out} already holds a run; use --resume to continue it or choose "
                         "another --out")
    theirs = _present(out) if out.is_dir() and not owned(out) else []
    if theirs:
        raise ValueError(f"{out} holds {', '.join(theirs)}, not written by a machu train run: "
                         "choose another --out (nothing was changed)")


def mark(out: Path) -> None:
    """The run's first file: ``out``'s run files are from now on this command's own."""
    files.write_json(out / OWNER, {"kind": OWNER_KIND})


def unmark_if_alone(out: Path) -> None:
    """A start that stopped before writing anything else leaves no mark behind."""
    if (out / OWNER).is_file() and [p.name for p in out.iterdir()] == [OWNER]:
        (out / OWNER).unlink()


def refuse_inputs_inside(out: Path, c, resume: bool) -> None:
    """The run reads no file from its own folder (``--init``, ``--frozen``, evaluated
    agents): a new run there would remove or overwrite it. ValueError naming the option."""
    from machu_env.train.init_files import init_path

    root = files.resolved(out)
    named = [("--init", init_path(c.init))] if c.init and not resume else []
    named += [("--frozen", p) for p in c.frozen_paths()]
    named += [("--eval-agents", Path(n.split(":", 1)[1]))
              for n in (c.eval_agents.split(",") if c.eval_agents != "ladder" else [])
              if n.strip().startswith("policy:")]
    for option, path in named:
        if root == files.resolved(path) or root in files.resolved(path).parents:
            raise ValueError(f"{option} {path} lies inside the run folder {out}, where the run "
                             "writes: copy it elsewhere or choose another --out")


def clear_unfinished(out: Path) -> None:
    """Remove what an earlier start in ``out`` left before its first checkpoint (the folder
    holds no ``latest.json``; ``claim`` has checked that the run files are a run's own), and
    the temporary files of an interrupted write."""
    if not owned(out):
        raise ValueError(f"{out} is not a machu train run folder: nothing is removed")
    for name in RUN_FILES:
        (out / name).unlink(missing_ok=True)
    for folder in RUN_FOLDERS:
        for stale in (out / folder).glob(f"step_*{policy_file.SUFFIX}"):
            stale.unlink()
    clear_partial(out)


def clear_partial(out: Path) -> None:
    """The temporary files a killed write left in the run folder and its subfolders."""
    for folder in (out, *(out / f for f in RUN_FOLDERS)):
        for stale in folder.glob(f".*{files.TEMP_MARK}*"):
            stale.unlink(missing_ok=True)
