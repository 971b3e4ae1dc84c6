"""``research/sweeps/share_phases.py``: one recipe run's finished phases handed to another run
whose first phases are the same; refused in words, with nothing changed, when the recipes, the
seeds or the runs' progress do not allow it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "research" / "sweeps"))
from share_phases import share  # noqa: E402

PHASES = ["three", "three-polish"]


def _run(folder: Path, recipe: str, seed: int = 1, done=(), own=()) -> Path:
    folder.mkdir()
    phases = {name: {"timesteps": 1000 * (k + 1), "ended_at_seconds": 60.0 * (k + 1)}
              for k, name in enumerate(done)}
    (folder / "recipe.json").write_text(json.dumps(
        {"recipe": recipe, "seed": seed, "done": list(done), "phases": phases,
         "elapsed_seconds": 60.0 * len(done), "steps": 1000 * len(done)}))
    for name in [*done, *own]:
        (folder / name).mkdir()
        (folder / name / "history.csv").write_text(f"{folder.name} {name}\n")
    return folder


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_the_4p_runs_3_player_phases_go_to_the_5p_run(tmp_path):
    source = _run(tmp_path / "best_4p", "best-4p", done=[*PHASES, "four"])
    target = _run(tmp_path / "best_5p", "best-5p", own=["three"])  # (its own unfinished start)
    state = share(source, target, PHASES)
    assert state["done"] == PHASES and state["steps"] == 3000
    assert state["shared_from"]["recipe"] == "best-4p"
    assert json.loads((target / "recipe.json").read_text())["done"] == PHASES
    for name in PHASES:
        assert (target / name / "history.csv").read_text() == f"best_4p {name}\n"
    assert not (target / "four").exists()


@pytest.mark.parametrize("case,words", [
    ("other budgets", "first phases, budgets and seeds differ"),
    ("other seed", "first phases, budgets and seeds differ"),
    ("not a first phase", "first phases, budgets and seeds differ"),
    ("source unfinished", "has not finished"),
    ("target started", "has phases done"),
])
def test_a_hand_over_the_runs_do_not_allow_is_refused_and_changes_nothing(tmp_path, case,
                                                                          words):
    source = _run(tmp_path / "source", "best-3p" if case == "other budgets" else "best-4p",
                  done=["three"] if case == "source unfinished" else PHASES)
    target = _run(tmp_path / "target", "best-5p", seed=2 if case == "other seed" else 1,
                  done=["three"] if case == "target started" else ())
    phases = ["three-polish"] if case == "not a first phase" else PHASES
    before = _snapshot(source), _snapshot(target)
    with pytest.raises(ValueError, match=words):
        share(source, target, phases)
    assert (_snapshot(source), _snapshot(target)) == before
