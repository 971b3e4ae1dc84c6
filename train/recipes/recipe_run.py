"""What a recipe run takes from its command line: ``RecipeRun``, declared once.

A recipe sets every training setting itself but these: where the run is written, its seed,
its budgets and where it runs. ``machu train --recipe`` passes exactly these fields through
(its other options are refused), the runner hands the machine's share of them to every phase
and round, a recipe file may set none of them (``OWNED``), and a resume records the budget and
machine flags it was given (``flags``). Adding an option a recipe passes through is adding a
field here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# a field's metadata: "flag" — said in the run's command and in a resume's ``resumed_with``;
# "machine" — handed to each phase's and round's ``TrainConfig`` (where the training runs)
_FLAG = {"flag": True}
_MACHINE = {"machine": True}
_BOTH = {"flag": True, "machine": True}


@dataclass(frozen=True)
class RecipeRun:
    """The settings of one ``machu train --recipe`` run that are the user's, not the recipe's
    (0 and '' mean: the recipe's own budget, this machine's sizing, the first machine class the
    machine meets)."""

    out: str
    seed: int = 0
    minutes: float = field(default=0.0, metadata=_FLAG)
    timesteps: int = field(default=0, metadata=_FLAG)
    threads: int = field(default=0, metadata=_BOTH)
    overlap: bool = field(default=False, metadata=_BOTH)
    device: str = field(default="auto", metadata=_MACHINE)
    ray: str = field(default="", metadata=_BOTH)
    rollout_workers: int = field(default=0, metadata=_BOTH)
    machine_class: str = ""

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options a recipe run passes through, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, out: Any, given: dict[str, Any]) -> RecipeRun:
        """The run of ``given`` keywords (a ``ValueError`` naming the ones a recipe run does
        not take, and those it does)."""
        unknown = sorted(set(given) - set(cls.names()))
        if unknown:
            raise ValueError(f"a recipe run does not take {unknown}; it takes "
                             f"{', '.join(cls.names())}")
        return cls(out=str(out), **given)

    def machine(self) -> dict[str, Any]:
        """The settings every phase and round of the run trains with (where it runs)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("machine")}

    def flags(self) -> str:
        """The budget and machine flags given (not their defaults), as the command line
        spells them: `` --minutes 10 --threads 2``."""
        said = []
        for f in fields(self):
            value = getattr(self, f.name)
            if not f.metadata.get("flag") or value == f.default:
                continue
            name = "--" + f.name.replace("_", "-")
            said.append(name if value is True else f"{name} {value:g}"
                        if isinstance(value, float) else f"{name} {value}")
        return "".join(" " + s for s in said)

    def as_dict(self) -> dict[str, Any]:
        """The fields, by name."""
        return asdict(self)


# the training settings a recipe file may not set: the runner's (the user's run, the phase's
# start and frozen opponents, the recipe's name)
OWNED = ("players", "init", "frozen", "recipe", *RecipeRun.names())
