"""A training run's folder is the run's own: ``check_new`` refuses, before anything is
written, a folder that holds a run to resume or files a run did not write (a user's agent, a
probe's outputs); ``claim`` registers the folder, whose mark (``core.run_files``) then names
every file the run writes, so that a new start clears only what an earlier start of its own
left before its first checkpoint (``clear_unfinished``). A run reads no input from its own
folder (``refuse_inputs_inside``). A command removes only what it wrote."""

from __future__ import annotations

from pathlib import Path

from machu_env.core import files
from machu_env.core.run_files import RunFolder
from machu_env.train.run.checkpoints import BEST, LATEST, OPTIMIZER, STATE

# what a run writes besides its config: removed when a new run starts in a folder whose earlier
# run (recorded as such by OWNER) never reached a checkpoint (no latest.json)
RUN_FILES = (LATEST, OPTIMIZER, BEST, "history.csv", "league.json", "summary.json", "curve.png")
RUN_FOLDERS = ("checkpoints", "snapshots", "exploiters")


RUN_NAMES = (*RUN_FILES, "config.json", STATE, "tb", *RUN_FOLDERS)
COMMAND = "machu train"


def claim(out: Path) -> RunFolder:
    """``out`` (created if need be) as this run's folder: every file the run writes there is
    recorded in its mark (``core.run_files``)."""
    return RunFolder.claim(out, COMMAND)


def is_run_file(rel: str) -> bool:
    """A file a run of an earlier version wrote (its mark named no files)."""
    top = rel.split("/", 1)[0]
    return rel in (*RUN_FILES, "config.json", STATE) or top in (*RUN_FOLDERS, "tb")


def check_new(out: Path) -> None:
    """Before a new run writes anything in ``out``: refuse a folder holding a run to resume or
    files this command did not write (a user's, another command's, one copied over a run's).
    ValueError in words; nothing is changed."""
    if (out / STATE).exists():
        raise ValueError(f"{out} already holds a run; use --resume to continue it or choose "
                         "another --out")
    theirs = RunFolder(out, COMMAND).foreign(RUN_NAMES) if out.is_dir() else []
    if theirs:
        raise ValueError(f"{out} holds {', '.join(theirs)}, not written by a machu train run: "
                         "choose another --out (nothing was changed)")


def refuse_inputs_inside(out: Path, c, resume: bool) -> None:
    """The run reads no file from its own folder (``--init``, ``--frozen``, evaluated
    agents): a new run there would remove or overwrite it. ValueError naming the option."""
    from machu_env.train.run.init_files import init_path

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


def clear_unfinished(folder: RunFolder) -> None:
    """Remove what an earlier start in the folder wrote before its first checkpoint (the
    folder holds no ``latest.json``; ``check_new`` has checked that every run file there is
    the run's own) and the temporary files of an interrupted write."""
    folder.remove_written()
    clear_partial(folder.root)


def clear_partial(out: Path) -> None:
    """The temporary files a killed write left in the run folder and its subfolders."""
    for folder in (out, *(out / f for f in RUN_FOLDERS)):
        files.clear_partial(folder)
