"""The schemas of the JSON files a recipe run reads back from its folder (``core.schema``): a
probe's ``summary.json``, a fine-tune's ``summary.json``, the evaluations and the kept agent
that ``recipe.json`` records. Each is checked before any work or write, and refused in one line
naming the file and the field."""

from __future__ import annotations

import re
from typing import Any

from machu_env.core import schema

MEASURE = schema.nullable(schema.number(-1e12, 1e12))  # (NaN is written as null)
# an evaluation: the history's row (numbers by name, null where not measured)
FINAL_EVAL = schema.nullable(schema.map_of(MEASURE, 500))

CI95 = schema.list_of(schema.nullable(schema.number(-1e12, 1e12)), length=2)
PROBE_SUMMARY = schema.check(schema.record({
    "exploiter_win_share": schema.number(0, 1), "ci95": CI95,
    "exploiter_margin": MEASURE}), "a finished probe's summary")
TUNE_SUMMARY = schema.check(schema.record({
    "timesteps": schema.integer(0, 2**40), "final_eval": FINAL_EVAL}),
    "a finished fine-tune's summary")

_CHECKPOINT = re.compile(r"[a-z0-9][a-z0-9-]{0,39}/checkpoints/step_[0-9]{1,14}\.safetensors")


def _checkpoint_file(value: Any, field: str) -> str:
    """A phase's checkpoint, relative to the run folder (never a path out of it)."""
    if not isinstance(value, str) or not _CHECKPOINT.fullmatch(value):
        raise schema.Invalid(f"{field} must name a phase's checkpoint, "
                             f"<phase>/checkpoints/step_<N>.safetensors, got {value!r:.60}")
    return value


# ``kept`` of a recipe with ``"keep": "ladder"`` (``ladder.best_on_ladder``)
KEPT = schema.record({
    "phase": schema.text(40), "timesteps": schema.integer(0, 2**40),
    "reached": schema.nullable(schema.text(80)), "evaluated_against": schema.text(80),
    "win_share": schema.number(0, 1), "file": _checkpoint_file})
