"""``--resume`` reads files a user may have edited: ``recipe.json``, ``history.csv`` and
``config.json``. Each is checked as a whole before any training; a bad one is refused in one
line naming the file and the field, and nothing is trained or written. A history written across
versions (older rows without the newer columns) reads back as it was written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env.cli import main  # noqa: E402
from machu_env.train.recipes import recipes  # noqa: E402
from machu_env.train.run.history import read_history  # noqa: E402
from machu_env.train.run.selfplay import Trainer  # noqa: E402
from tests.train_kit import tiny  # noqa: E402

SMALL = {"n_envs": 16, "n_steps": 64, "batch_size": 256, "eval_games": 4,
         "eval_opponents": "gold", "imitate": "", "net_arch": "32,32", "eval_every": 1024}
TWO_PHASES = {"format": "machu-env-recipe", "version": 1, "name": "tiny", "players": 2,
              "summary": "two phases small enough for a test", "minutes": 30, "timesteps": 4096,
              "phases": [{"name": "one", "until": 0.5, "settings": SMALL},
                         {"name": "two", "until": 1.0, "settings": SMALL}]}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def recipe_run(tmp_path_factory):
    """A two-phase recipe stopped after its first phase (as Ctrl-C would)."""
    root = tmp_path_factory.mktemp("recipe")
    path = root / "recipe.json"
    path.write_text(json.dumps(TWO_PHASES))
    real = Trainer.run

    def run_then_stop(self):
        if self.config.out.endswith("two"):
            raise KeyboardInterrupt
        return real(self)

    Trainer.run = run_then_stop
    try:
        with pytest.raises(KeyboardInterrupt):
            recipes.run(str(path), root / "run", verbose=False)
    finally:
        Trainer.run = real
    return path, root / "run"


@pytest.mark.parametrize("edit,words", [
    (lambda s: s.pop("elapsed_seconds"), "elapsed_seconds must be a number"),
    (lambda s: s.update(elapsed_seconds="10"), "elapsed_seconds must be a number"),
    (lambda s: s.update(steps="2048"), "steps must be an int"),
    (lambda s: s.pop("phases"), "phases must hold"),
    (lambda s: s["phases"]["one"].update(timesteps=None), "phases must hold"),
    (lambda s: s.update(done=["two"]), "done must list the recipe's first phases"),
    (lambda s: s.update(done="one"), "done must list"),
    (lambda s: s.pop("command"), "command must be"),
    (lambda s: s.update(rungs=[1]), "rungs must be"),
])
def test_a_bad_recipe_state_is_refused_before_any_phase_trains(recipe_run, edit, words,
                                                                tmp_path, capsys):
    path, run = recipe_run
    copy_of = tmp_path / "run"
    copy_of.mkdir()
    for p in run.rglob("*"):
        if p.is_file():
            (copy_of / p.relative_to(run)).parent.mkdir(parents=True, exist_ok=True)
            (copy_of / p.relative_to(run)).write_bytes(p.read_bytes())
    state = json.loads((copy_of / "recipe.json").read_text())
    edit(state)
    (copy_of / "recipe.json").write_text(json.dumps(state))
    before = _snapshot(copy_of)
    code = main(["train", "--recipe", str(path), "--out", str(copy_of), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "recipe.json" in err and "Traceback" not in err, err
    assert err.count("\n") == 1
    assert _snapshot(copy_of) == before


def test_a_recipe_resumed_with_other_budgets_says_so_in_its_agent(recipe_run, tmp_path):
    from machu_env.agents import policy_file as F

    path, run = recipe_run
    state = recipes.run(str(path), run, resume=True, verbose=False, minutes=20)
    assert state["resumed_with"] == ["--minutes 20"]
    _, _, info = F.parse(F.read_bytes(run / "agent.safetensors"))
    assert info["resumed_with"] == ["--minutes 20"] and "--minutes" not in info["command"]
    assert "NaN" not in (run / "recipe.json").read_text()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run = tmp_path_factory.mktemp("train") / "run"
    Trainer(tiny(run, timesteps=1024, eval_every=1024), verbose=False).run()
    return run


def _copy(run: Path, to: Path) -> Path:
    for p in run.rglob("*"):
        if p.is_file():
            (to / p.relative_to(run)).parent.mkdir(parents=True, exist_ok=True)
            (to / p.relative_to(run)).write_bytes(p.read_bytes())
    return to


@pytest.mark.parametrize("edit,words", [
    (lambda t: t.replace("timesteps,", "steps,", 1), "no timesteps column"),
    (lambda t: t.replace("win_vs_gold", "win_vs_golden", 1), "no win_vs_gold column"),
    (lambda t: t + "x" * 200_000 + "\n", "not a run's history"),
    (lambda t: t + "2048\n", "line 4: not a row of numbers"),
    (lambda t: "\n", "no timesteps, win_vs_gold column"),
])
def test_a_bad_history_is_refused_before_any_training(finished_run, edit, words, tmp_path,
                                                      capsys):
    run = _copy(finished_run, tmp_path / "run")
    (run / "history.csv").write_text(edit((run / "history.csv").read_text()))
    before = _snapshot(run)
    code = main(["train", "--resume", "--out", str(run), "--timesteps", "4096"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "history.csv" in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert _snapshot(run) == before


def test_a_history_of_an_older_version_resumes_again_and_again(finished_run, tmp_path):
    """Rows without the newer columns (as written before ``elapsed_seconds`` and the habits):
    the first resume writes their cells empty, the second reads them back."""
    run = _copy(finished_run, tmp_path / "run")
    lines = (run / "history.csv").read_text().splitlines()
    header = lines[0].split(",")
    keep = [k for k, name in enumerate(header) if name in ("timesteps", "win_vs_gold")]
    (run / "history.csv").write_text("\n".join(",".join(line.split(",")[k] for k in keep)
                                               for line in lines) + "\n")
    for total in (2048, 3072):
        Trainer(tiny(run, timesteps=total, eval_every=1024), resume=True, verbose=False).run()
        rows = read_history(run / "history.csv")
        assert rows[-1]["timesteps"] == total and "elapsed_seconds" in rows[-1]
        assert "elapsed_seconds" not in rows[0]


def test_resume_with_minutes_0_removes_a_saved_budget(finished_run, tmp_path, capsys):
    run = _copy(finished_run, tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "minutes": 0.001}))
    code = main(["train", "--resume", "--out", str(run), "--timesteps", "2048", "--minutes",
                 "0"])
    capsys.readouterr()
    assert code == 0 and read_history(run / "history.csv")[-1]["timesteps"] == 2048


@pytest.mark.parametrize("field,value,words", [
    ("recipe", "../../etc/x", "recipe must be a recipe's name or a .json recipe file"),
    ("n_epochs", 10**9, "n_epochs must be an int in 1..100"),
    ("max_snapshots", 10**6, "max_snapshots must be an int in 1..64"),
    ("max_exploiters", 10**6, "max_exploiters must be an int in 1..64"),
])
def test_an_edited_config_is_refused_on_resume(finished_run, field, value, words, tmp_path,
                                               capsys):
    run = _copy(finished_run, tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, field: value}))
    before = _snapshot(run)
    code = main(["train", "--resume", "--out", str(run), "--timesteps", "4096"])
    err = capsys.readouterr().err
    assert code == 2 and words in " ".join(err.split()), err
    assert _snapshot(run) == before


def test_json_outputs_are_strict_json(tmp_path):
    from machu_env.core import files

    files.write_json(tmp_path / "x.json", {"a": float("nan"), "b": [float("inf"), 1.5]})
    assert json.loads((tmp_path / "x.json").read_text(), parse_constant=pytest.fail) == \
        {"a": None, "b": [None, 1.5]}



def test_a_run_checkpoints_by_time_between_evaluations_and_a_resume_says_its_step(
        tmp_path, monkeypatch, capsys):
    """A stop loses minutes, not an evaluation interval: with the time bound reached at every
    rollout, each rollout leaves a whole checkpoint though no evaluation falls there."""
    from machu_env.train.run import checkpoints, selfplay

    monkeypatch.setattr(selfplay, "CHECKPOINT_SECONDS", 0.0)
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=3072, eval_every=100_000), verbose=False).run()
    steps = sorted(int(p.stem.split("_")[1]) for p in (run / "checkpoints").glob("step_*"))
    assert steps == [0, 1024, 2048, 3072]  # (evaluations only at 0 and at the end)
    assert len(read_history(run / "history.csv")) == 2
    assert checkpoints.read_state(run)[0] == 3072
    Trainer(tiny(run, timesteps=4096, eval_every=100_000), resume=True, verbose=True).run()
    assert "resuming " + str(run) + " from its last checkpoint: step 3,072" in \
        capsys.readouterr().out
