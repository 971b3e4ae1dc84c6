"""A recipe's machine classes: the schedule it runs on a machine of each class.

A recipe's phases are written for two cores. A bigger machine steps more games at once, and a
GPU updates a large minibatch for the price of a small one, so a recipe may name classes of
machine with the batch settings that turn their speed into strength (``machines``, a list;
the first class whose conditions the machine meets is used)::

    "machines": [
      {"name": "gpu", "when": {"gpu": true},
       "settings": {"n_envs": 1024, "n_steps": 64, "batch_size": 16384}},
      {"name": "many-cores", "when": {"min_cores": 8}, "settings": {"n_envs": 1024}}
    ]

* ``when``: ``gpu`` (the run's device is a CUDA GPU, or is not) and ``min_cores`` (the cores
  the run may use: ``--threads`` where given, the Ray cluster's CPUs with ``--ray``, else the
  process's); every condition given must hold; ``{}`` always holds.
* ``settings``: over every phase's own settings, and only the batch and its schedule
  (``SETTINGS``): what the agent plays against, its reward and its evaluations stay the
  recipe's on every machine.
* A machine that meets no class runs the phases as written: the class ``base``.

``machu train --recipe NAME --machine-class CLASS`` picks a class by name (``base``: the phases
as written); the run's first line says which class it runs and why, and the command recorded
in the agent names it, so that the agent is rebuilt with the same schedule on any machine.
"""

from __future__ import annotations

import re
from typing import Any

BASE = "base"
SETTINGS = ("n_envs", "n_steps", "batch_size", "n_epochs", "learning_rate",
            "learning_rate_final", "precision")
CONDITIONS = ("gpu", "min_cores")
MAX_CLASSES = 8
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}", re.ASCII)


def check(machines: Any, where: str) -> list[dict[str, Any]]:
    """A recipe's ``machines`` list, checked for its shape (ValueError in words); the settings'
    values are checked with every phase by the recipe's own check."""
    if not isinstance(machines, list) or not 1 <= len(machines) <= MAX_CLASSES:
        raise ValueError(f"{where}: machines must list 1..{MAX_CLASSES} machine classes")
    seen = {BASE}
    for k, machine in enumerate(machines):
        here = f"{where}, machine class {k}"
        if not isinstance(machine, dict) or set(machine) != {"name", "when", "settings"}:
            raise ValueError(f"{here}: a machine class is {{\"name\", \"when\", \"settings\"}}")
        if not isinstance(machine["name"], str) or not NAME.fullmatch(machine["name"]) \
                or machine["name"] in seen:
            raise ValueError(f"{here}: name must be a new name of lowercase letters, digits and "
                             f"dashes (not {BASE!r}, the phases as written)")
        seen.add(machine["name"])
        when = machine["when"]
        if not isinstance(when, dict) or not set(when) <= set(CONDITIONS):
            raise ValueError(f"{here}: when must be a JSON object of the conditions "
                             f"{', '.join(CONDITIONS)}")
        if "gpu" in when and not isinstance(when["gpu"], bool):
            raise ValueError(f"{here}: when.gpu must be true or false, got {when['gpu']!r}")
        cores = when.get("min_cores", 1)
        if not isinstance(cores, int) or isinstance(cores, bool) or not 1 <= cores <= 4096:
            raise ValueError(f"{here}: when.min_cores must be an int in 1..4096, got {cores!r}")
        settings = machine["settings"]
        if not isinstance(settings, dict) or not settings:
            raise ValueError(f"{here}: settings must be a non-empty JSON object")
        bad = sorted(set(settings) - set(SETTINGS))
        if bad:
            raise ValueError(f"{here}: settings {bad} cannot be set by a machine class (allowed: "
                             f"{', '.join(SETTINGS)}: the batch and its schedule)")
    return machines


def names(recipe: dict[str, Any]) -> list[str]:
    """The recipe's classes, ``base`` last."""
    return [m["name"] for m in recipe.get("machines", [])] + [BASE]


def meets(when: dict[str, Any], cores: int, gpu: bool) -> bool:
    """Whether a machine of ``cores`` cores, with a GPU as the run's device or not, meets
    ``when``."""
    return when.get("gpu", gpu) == gpu and cores >= when.get("min_cores", 1)


def choose(recipe: dict[str, Any], given: str, cores: int, gpu: bool) -> tuple[str, str]:
    """The class the run uses and why, in words: ``given`` by name (``''``: the first class the
    machine meets, else ``base``)."""
    machine = f"{cores} core{'s' if cores != 1 else ''}, " + ("a GPU" if gpu else "no GPU")
    if given:
        if given not in names(recipe):
            raise ValueError(f"machine_class {given!r}: recipe {recipe['name']} has the machine "
                             f"classes {', '.join(names(recipe))}")
        return given, f"as given (this machine: {machine})"
    for m in recipe.get("machines", []):
        if meets(m["when"], cores, gpu):
            return m["name"], f"the first class this machine meets ({machine}: {words(m)})"
    return BASE, f"the phases as written (this machine, {machine}, meets no other class)"


def words(machine: dict[str, Any]) -> str:
    """A class's conditions, in words."""
    when = machine["when"]
    parts = ([("a GPU" if when["gpu"] else "no GPU")] if "gpu" in when else []) \
        + ([f"{when['min_cores']} cores or more"] if "min_cores" in when else [])
    return " and ".join(parts) or "any machine"


def settings_of(recipe: dict[str, Any], name: str) -> dict[str, Any]:
    """The settings class ``name`` puts over every phase's (``{}`` for ``base``)."""
    return next((dict(m["settings"]) for m in recipe.get("machines", []) if m["name"] == name),
                {})
