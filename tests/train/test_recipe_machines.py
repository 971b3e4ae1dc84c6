"""A recipe's machine classes (train/recipes/machines.py): the first class a machine meets
runs its batch settings over every phase, ``--machine-class`` picks one by name, the run says
which and why, the agent's command names it, and bad classes are refused in words."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env.agents import policy_file as F  # noqa: E402
from machu_env.cli import main  # noqa: E402
from machu_env.train.recipes import machines, recipes  # noqa: E402

SMALL = {"n_envs": 16, "n_steps": 64, "batch_size": 256, "eval_games": 4,
         "eval_opponents": "gold", "imitate": "", "net_arch": "32,32", "eval_every": 1024}
CLASSES = [{"name": "gpu", "when": {"gpu": True},
            "settings": {"n_envs": 64, "n_steps": 16, "batch_size": 512}},
           {"name": "many-cores", "when": {"min_cores": 8}, "settings": {"n_envs": 32}},
           {"name": "two-cores", "when": {"gpu": False, "min_cores": 2},
            "settings": {"n_envs": 8, "n_steps": 128}}]
MINI = {"format": "machu-env-recipe", "version": 1, "name": "mini", "players": 2,
        "summary": "one phase with machine classes", "minutes": 30, "timesteps": 1024,
        "phases": [{"name": "only", "until": 1.0, "settings": SMALL}], "machines": CLASSES}


def _file(tmp_path: Path, recipe: dict) -> Path:
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps(recipe))
    return path


def test_the_first_class_the_machine_meets_is_chosen_and_said_why():
    recipe = recipes.check(copy.deepcopy(MINI), "mini")
    assert machines.choose(recipe, "", 16, True)[0] == "gpu"
    assert machines.choose(recipe, "", 16, False) == (
        "many-cores", "the first class this machine meets (16 cores, no GPU: 8 cores or more)")
    assert machines.choose(recipe, "", 2, False)[0] == "two-cores"
    assert machines.choose(recipe, "", 1, False) == (
        "base", "the phases as written (this machine, 1 core, no GPU, meets no other class)")
    assert machines.choose(recipe, "two-cores", 64, True)[0] == "two-cores"  # (by name)
    assert machines.choose(recipe, "base", 64, True)[0] == "base"
    with pytest.raises(ValueError, match="has the machine classes gpu, many-cores, "
                                         "two-cores, base"):
        machines.choose(recipe, "h100", 2, False)
    assert machines.settings_of(recipe, "gpu") == {"n_envs": 64, "n_steps": 16,
                                                   "batch_size": 512}
    assert machines.settings_of(recipe, "base") == {}


def test_a_recipe_without_classes_runs_its_phases_as_written_everywhere():
    recipe = {k: v for k, v in copy.deepcopy(MINI).items() if k != "machines"}
    assert machines.choose(recipe, "", 64, True)[0] == "base"
    with pytest.raises(ValueError, match="has the machine classes base"):
        machines.choose(recipe, "gpu", 64, True)


def _with(change):
    recipe = copy.deepcopy(MINI)
    change(recipe)
    return recipe


@pytest.mark.parametrize("change,words", [
    (lambda r: r.update(machines={}), "machines must list 1..8 machine classes"),
    (lambda r: r["machines"][0].update(extra=1), "a machine class is {\"name\", \"when\""),
    (lambda r: r["machines"][0].update(name="base"), "name must be a new name"),
    (lambda r: r["machines"][1].update(name="gpu"), "name must be a new name"),
    (lambda r: r["machines"][0]["when"].update(gpu="yes"), "when.gpu must be true or false"),
    (lambda r: r["machines"][0]["when"].update(ram=64), "when must be a JSON object of the "
                                                        "conditions gpu, min_cores"),
    (lambda r: r["machines"][1]["when"].update(min_cores=0), "when.min_cores must be an int"),
    (lambda r: r["machines"][0].update(settings={}), "settings must be a non-empty"),
    (lambda r: r["machines"][0]["settings"].update(pool="gold:1"),
     "settings ['pool'] cannot be set by a machine class (allowed: n_envs, n_steps"),
    (lambda r: r["machines"][0]["settings"].update(n_envs="64"), "'n_envs' must be a int"),
    (lambda r: r["machines"][0]["settings"].update(batch_size=0),
     "machine class gpu, phase only: batch_size must be"),
])
def test_a_bad_machine_class_is_refused_in_words_and_nothing_is_written(change, words, tmp_path,
                                                                        capsys):
    path = _file(tmp_path, _with(change))
    code = main(["train", "--recipe", str(path), "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_machine_class_needs_a_recipe_and_one_of_its_classes(tmp_path, capsys):
    code = main(["train", "--machine-class", "gpu", "--out", str(tmp_path / "run")])
    assert code == 2 and "--machine-class must name one of a recipe's machine classes" in \
        capsys.readouterr().err
    code = main(["train", "--recipe", str(_file(tmp_path, MINI)), "--machine-class", "h200",
                 "--out", str(tmp_path / "run")])
    assert code == 2 and "recipe mini has the machine classes gpu, many-cores, two-cores, " \
        "base" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def _n_envs(run: Path) -> int:
    return json.loads((run / "only" / "config.json").read_text())["n_envs"]


def test_the_class_runs_its_settings_and_the_agent_names_it(tmp_path, capsys):
    path = _file(tmp_path, MINI)
    state = recipes.run(str(path), tmp_path / "two", threads=2, device="cpu")
    said = capsys.readouterr().out
    assert said.startswith("recipe mini: machine class two-cores, the first class this machine "
                           "meets (2 cores, no GPU: no GPU and 2 cores or more): n_envs 8, "
                           "n_steps 128; --machine-class picks another (gpu, many-cores, "
                           "two-cores, base)")
    assert _n_envs(tmp_path / "two") == 8 and state["machine_class"] == "two-cores"
    assert state["command"] == (f"machu train --recipe {path} --seed 0 --machine-class "
                                "two-cores --threads 2")
    info = F.parse(F.read_bytes(tmp_path / "two" / "agent.safetensors"), "agent")[2]
    assert info["machine_class"] == "two-cores" and "--machine-class two-cores" in \
        info["command"]
    state = recipes.run(str(path), tmp_path / "base", threads=2, device="cpu",
                        machine_class="base", verbose=False)
    assert _n_envs(tmp_path / "base") == 16 and state["machine_class"] == "base"
    assert "--machine-class base" in state["command"]  # (a GPU machine would pick gpu)
    recipes.run(str(path), tmp_path / "cuda", threads=2, device="cpu", machine_class="gpu",
                verbose=False)
    config = json.loads((tmp_path / "cuda" / "only" / "config.json").read_text())
    assert (config["n_envs"], config["n_steps"], config["batch_size"]) == (64, 16, 512)
    assert config["eval_every"] == 1024  # (the phase's own: a class sets the batch only)


def test_a_run_resumes_with_its_own_class_and_refuses_another(tmp_path, monkeypatch):
    from machu_env.train.run.selfplay import Trainer

    path = _file(tmp_path, MINI)
    real = Trainer.run

    def stop(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(Trainer, "run", stop)
    with pytest.raises(KeyboardInterrupt):
        recipes.run(str(path), tmp_path / "run", threads=2, device="cpu",
                    machine_class="many-cores", verbose=False)
    monkeypatch.setattr(Trainer, "run", real)
    with pytest.raises(ValueError, match="trains with the machine class 'many-cores'; resume "
                                         "it with that class"):
        recipes.run(str(path), tmp_path / "run", threads=2, device="cpu", resume=True,
                    machine_class="two-cores", verbose=False)
    state = recipes.run(str(path), tmp_path / "run", threads=2, device="cpu", resume=True,
                        verbose=False)  # (this machine meets two-cores: the run keeps its own)
    assert state["machine_class"] == "many-cores" and _n_envs(tmp_path / "run") == 32


@pytest.mark.parametrize("name", ["best-2p", "best-3p"])
def test_the_shipped_recipes_run_as_written_on_two_cores_and_wider_on_many(name):
    """Two cores (and the one thread that rebuilds ppo-3p-recipe) run the phases as written,
    128 games x 128 steps, the schedule the recipes' figures were measured with; four cores or
    more keep 1,024 games in flight."""
    recipe = recipes.load(name)
    assert all((p["settings"]["n_envs"], p["settings"]["n_steps"]) == (128, 128)
               for p in recipe["phases"])
    for cores, gpu in ((1, False), (2, False), (2, True)):
        assert machines.choose(recipe, "", cores, gpu)[0] == "base"
    for cores, gpu in ((4, False), (16, True)):
        klass = machines.choose(recipe, "", cores, gpu)[0]
        assert machines.settings_of(recipe, klass) == {"n_envs": 1024, "n_steps": 16}


def test_the_command_line_runs_the_class_named_and_says_how_to_run_it_again(tmp_path, capsys):
    path = _file(tmp_path, MINI)
    code = main(["train", "--recipe", str(path), "--machine-class", "many-cores", "--threads",
                 "2", "--device", "cpu", "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 0 and _n_envs(tmp_path / "run") == 32
    assert "recipe mini: machine class many-cores, as given (this machine: 2 cores" in out
    assert out.rstrip().splitlines()[-2] == (
        f"the same run again: machu train --recipe {path} --seed 0 --machine-class many-cores "
        "--threads 2 --out OUT")
