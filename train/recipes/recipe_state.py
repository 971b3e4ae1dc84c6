"""A recipe run's progress, ``OUT/recipe.json``: a new run's, or the one ``--resume`` goes on
with, every field it reads checked first (``machu_env.train.recipes.recipes`` runs the phases)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from machu_env.core import files, schema
from machu_env.train.recipes import machines, rounds
from machu_env.train.run import run_schemas


def start_state(path: Path, recipe: dict[str, Any], seed: int, resume: bool,
                ref: str, flags: str = "", klass: str = "") -> dict[str, Any]:
    """The recipe's progress in ``OUT/recipe.json`` (new, or the one to resume: same recipe
    and seed); ``ref``: the recipe as the command named it (a shipped name or a file);
    ``klass``: a new run's machine class, named in its command (a recipe with classes)."""
    if not resume:
        if path.exists():
            raise ValueError(f"{path.parent} already holds a recipe run; use --resume to "
                             "continue it or choose another --out")
        for phase in recipe["phases"]:  # (an earlier start that never wrote recipe.json)
            if (path.parent / phase["name"] / "latest.json").exists():
                raise ValueError(f"{path.parent / phase['name']} already holds a run; use "
                                 "--resume or choose another --out")
        return _fresh(recipe, seed, ref, flags, klass)
    if not path.exists():  # stopped in its first phase: that phase resumes
        if not any((path.parent / p["name"]).is_dir() for p in recipe["phases"]):
            raise ValueError(f"nothing to resume: {path} does not exist")
        return _fresh(recipe, seed, ref, flags, klass)
    state = files.read_json(path, limit=4_000_000, links=False)
    if not (isinstance(state, dict) and state.get("recipe") == recipe["name"]
            and state.get("seed") == seed):
        raise ValueError(f"{path}: not a run of recipe {recipe['name']} with seed {seed}")
    check_state(path, state, recipe)
    if flags and not state["command"].endswith(flags):  # (budgets or threads changed)
        state["resumed_with"] = [*state.get("resumed_with", []), flags.strip()]
    return state


def _number(value: Any, high: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and 0 <= value < high


def check_state(path: Path, state: dict[str, Any], recipe: dict[str, Any]) -> None:
    """Every field a resumed recipe reads, checked before any phase trains (ValueError naming
    the field): the phases done (the recipe's, in its order), their steps, the seconds."""
    names = [p["name"] for p in recipe["phases"]]
    done, phases = state.get("done"), state.get("phases")
    problem = None
    if not isinstance(done, list) or done != names[:len(done)]:
        problem = f"done must list the recipe's first phases in order ({', '.join(names)})"
    elif not _number(state.get("elapsed_seconds"), 1e9):
        problem = "elapsed_seconds must be a number of seconds >= 0"
    elif not isinstance(state.get("steps"), int) or not _number(state["steps"], 2**40):
        problem = "steps must be an int >= 0"
    elif not isinstance(state.get("command"), str) or len(state["command"]) > 2000:
        problem = "command must be the text of the command that started the run"
    elif not isinstance(phases, dict) or any(
            not isinstance(phases.get(n), dict) or not isinstance(phases[n].get("timesteps"), int)
            or not _number(phases[n]["timesteps"], 2**40) for n in done):
        problem = "phases must hold {\"timesteps\": int} for every phase done"
    elif (problem := _invalid(PHASES, phases, "phases")) or (
            "kept" in state and (problem := _invalid(run_schemas.KEPT, state["kept"], "kept"))):
        pass
    elif not isinstance(state.get("rungs", []), list) or not all(
            isinstance(r, str) for r in state.get("rungs", [])):
        problem = "rungs must be a list of agent names"
    elif not isinstance(state.get("resumed_with", []), list):
        problem = "resumed_with must be a list of flags"
    elif state.get("machine_class", machines.BASE) not in machines.names(recipe):
        problem = f"machine_class must be one of {', '.join(machines.names(recipe))}"
    elif "rounds" in state:
        problem = rounds.check_record(state["rounds"], recipe.get("rounds", {}))
    if problem:
        raise ValueError(f"{path}: not a recipe run's state to resume ({problem}); nothing was "
                         "trained")


PHASES = schema.map_of(schema.record({"timesteps": schema.integer(0, 2**40),
                                     "ended_at_seconds?": schema.number(0, 1e9),
                                     "final_eval?": run_schemas.FINAL_EVAL}), 64)


def _invalid(rule: schema.Rule, value: Any, field: str) -> str | None:
    """What is wrong with ``value`` as ``field`` (None: nothing)."""
    try:
        rule(value, field)
    except schema.Invalid as e:
        return str(e)
    return None


def _fresh(recipe: dict[str, Any], seed: int, ref: str, flags: str,
           klass: str = "") -> dict[str, Any]:
    """A new run's state; ``flags``: the budget and thread flags given, ``klass``: its machine
    class (they change the trajectory, so the command that rebuilds the agent names them)."""
    named = f" --machine-class {klass}" if klass else ""
    return {"recipe": recipe["name"], "seed": seed, "done": [], "elapsed_seconds": 0.0,
            "steps": 0, "phases": {}, **({"machine_class": klass} if klass else {}),
            "command": f"machu train --recipe {ref} --seed {seed}" + named + flags}
