"""A recipe run's own folder (``OUT``): what the recipe writes there itself (its state, its
agent, the rounds' files; each phase's folder is its run's, ``train.run_folder``), claimed so that
a file of the user's is never overwritten (``core.run_files``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from machu_env.agents import policy_file
from machu_env.core.run_files import RunFolder

COMMAND = "machu train --recipe"
TOP_FILES = ("agent.safetensors", "recipe.json", "rounds")  # what a recipe writes in OUT


def claim(out: Path, recipe: dict[str, Any], resume: bool) -> RunFolder:
    """``out`` as the recipe run's folder (its phases' folders are claimed by their runs):
    refused, before anything is written, where it holds a file the run did not write."""
    if "rounds" in recipe and "," in str(out):
        raise ValueError(f"--out {out}: a folder name with a comma cannot name the frozen "
                         "exploiters of the rounds (a comma separates them): choose another "
                         "--out")
    folder = RunFolder(out, COMMAND)
    if resume and out.is_dir():  # (--resume: the run's state is the user's run to go on with)
        folder.adopt(lambda rel: rel == "recipe.json" or rel.startswith("rounds" + os.sep)
                     or (rel == "agent.safetensors" and _recipes_agent(out / rel, recipe)))
    theirs = folder.foreign(TOP_FILES) if out.is_dir() else []
    if theirs:
        raise ValueError(f"{out} holds {', '.join(theirs)}, not written by this recipe run: "
                         "move it away or choose another --out (nothing was changed)")
    return RunFolder.claim(out, COMMAND)


def _recipes_agent(path: Path, recipe: dict[str, Any]) -> bool:
    """Whether ``path`` is an agent file this recipe wrote (its metadata names it)."""
    try:
        _, _, info = policy_file.parse(policy_file.read_bytes(path), str(path))
    except ValueError:
        return False
    return info.get("recipe") == recipe["name"]
