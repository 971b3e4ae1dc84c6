"""What a recipe run reads back from its folder is checked before any work or write (``--resume``
on a tampered ``recipe.json``, a probe's or a fine-tune's summary), and a recipe file is data that
names shipped agents only: one line naming the file and the field, nothing changed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

pytest.importorskip("torch")

from machu_env.cli import main  # noqa: E402
from machu_env.core import files  # noqa: E402
from machu_env.train.recipes import recipes, rounds  # noqa: E402
from machu_env.train.recipes.recipe_state import start_state  # noqa: E402
from machu_env.train.run import run_schemas  # noqa: E402

SMALL = {"n_envs": 16, "n_steps": 64, "batch_size": 256, "eval_games": 4,
         "eval_opponents": "gold", "imitate": ""}
TINY = {"format": "machu-env-recipe", "version": 1, "name": "tiny-checked", "players": 2,
        "summary": "one short phase", "minutes": 30, "timesteps": 1024, "defaults": SMALL,
        "phases": [{"name": "fast", "until": 1.0, "settings": {"net_arch": "32,32"}}]}


def _recipe(tmp_path: Path, **over) -> Path:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({**TINY, **over}))
    return path


def _state(recipe: dict, **over) -> dict:
    return {**start_state(Path("/nonexistent/recipe.json"), recipe, 3, False, "tiny"), **over}


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("kept, words", [
    (5, "kept must be an object"), ("x", "kept must be an object"),
    ({}, "kept.phase is missing"),
    ({"phase": "fast", "timesteps": "a", "reached": None, "evaluated_against": "gold",
      "win_share": 0.5, "file": "fast/checkpoints/step_8.safetensors"},
     "kept.timesteps must be an integer"),
    ({"phase": "fast", "timesteps": 8, "reached": None, "evaluated_against": "gold",
      "win_share": 0.5, "file": "../../etc/passwd"}, "kept.file must name a phase's checkpoint"),
])
def test_resume_refuses_a_tampered_kept_before_any_write(tmp_path, kept, words):
    path = _recipe(tmp_path)
    recipe = recipes.load(str(path))
    out = tmp_path / "run"
    out.mkdir()
    files.write_json(out / "recipe.json", _state(recipe, kept=kept))
    before = _digests(out)
    with pytest.raises(ValueError) as e:
        recipes.run(str(path), out, seed=3, resume=True, verbose=False, threads=1)
    assert str(out / "recipe.json") in str(e.value) and words in str(e.value)
    assert "\n" not in str(e.value) and _digests(out) == before


def test_resume_refuses_an_evaluation_that_is_not_numbers(tmp_path):
    path = _recipe(tmp_path)
    recipe = recipes.load(str(path))
    out = tmp_path / "run"
    out.mkdir()
    state = _state(recipe, done=["fast"], steps=1024, phases={
        "fast": {"timesteps": 1024, "final_eval": {"win_vs_gold": "high"}}})
    files.write_json(out / "recipe.json", state)
    with pytest.raises(ValueError, match=r"phases\.fast\.final_eval\.win_vs_gold must be a "
                                         "number"):
        recipes.run(str(path), out, seed=3, resume=True, verbose=False, threads=1)


@pytest.mark.parametrize("summary, words", [
    ({"ci95": [0.1, 0.2], "exploiter_margin": 1.0}, "exploiter_win_share is missing"),
    ([], "the file must be an object"),
    ({"exploiter_win_share": "high", "ci95": [0.1, 0.2], "exploiter_margin": 1.0},
     "exploiter_win_share must be a number"),
])
def test_a_probes_summary_is_checked_when_read_back(tmp_path, summary, words):
    path = files.write_json(tmp_path / "summary.json", summary)
    with pytest.raises(ValueError) as e:
        files.read_json(path, run_schemas.PROBE_SUMMARY)
    assert str(e.value).startswith(f"{path}: {words}")


def test_a_rounds_record_with_an_evaluation_not_of_numbers_is_refused():
    spec = {"count": 2}
    probes = [{"seed": s, "exploiter_win_share": 0.5,
               "exploiter": f"{rounds.probe_folder(1, s)}/exploiter.safetensors"} for s in (4, 5)]
    done = {"round": 1, "agent": rounds.agent_file(1), "probes": probes,
            "exploiters": [p["exploiter"] for p in probes], "timesteps": 8, "seconds": 1.0,
            "final_eval": {"win_vs_gold": 0.5}}
    record = {"start": rounds.agent_file(0), "done": [done], "seconds": 1.0}
    assert rounds.check_record(record, spec) is None
    done["final_eval"] = {"win_vs_gold": "high"}
    assert "rounds.done[0]" in rounds.check_record(record, spec)


def test_a_recipe_names_shipped_agents_never_a_file(tmp_path):
    path = _recipe(tmp_path, defaults={**SMALL, "eval_agents": "policy:/etc/passwd"})
    with pytest.raises(ValueError, match="eval_agents in a recipe names shipped agents"):
        recipes.load(str(path))


def test_a_recipe_with_rounds_refuses_an_out_with_a_comma(tmp_path):
    rounds_spec = {"count": 1, "minutes": 5, "timesteps": 1024, "probe_steps": 1024,
                   "probe_games": 10, "max_frozen": 2}
    path = _recipe(tmp_path, rounds=rounds_spec)
    out = tmp_path / "a,b"
    with pytest.raises(ValueError, match="comma"):
        recipes.run(str(path), out, seed=0, verbose=False, threads=1)
    assert not out.exists()


def test_the_recipe_refusal_spells_options_as_typed(tmp_path, capsys):
    code = main(["train", "--recipe", "best-2p", "--n-envs", "8", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "--rollout-workers" in err and "--machine-class" in err
    assert "_" not in err.split("allowed:")[1].split(")")[0]


def test_the_recipe_file_is_read_once(tmp_path, monkeypatch, capsys):
    """Edited or deleted during the run, the recipe file changes nothing: the run and its
    summary use what was read at the start."""
    path = _recipe(tmp_path)
    seen = []

    def run(name, out, **kw):
        seen.append(kw["recipe"]["name"])
        os.unlink(path)  # (the user deletes the file while the run goes on)
        return {"recipe": "tiny-checked", "agent": str(Path(out) / "agent.safetensors"),
                "done": ["fast"], "steps": 1024, "elapsed_seconds": 1.0, "rungs": [],
                "phases": {"fast": {"timesteps": 1024, "final_eval": {"win_vs_gold": 0.5}}},
                "command": "machu train --recipe tiny.json"}

    monkeypatch.setattr(recipes, "run", run)
    code = main(["train", "--recipe", str(path), "--out", str(tmp_path / "r")])
    capsys.readouterr()
    assert code == 0 and seen == ["tiny-checked"]
