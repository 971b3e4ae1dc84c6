"""Recipes (``machu train --recipe``, train/recipes/recipes.py): the shipped recipe files, bad
recipes refused in words with nothing written, the time budget, resuming after an interrupt, the
strength ladder, and that no shipped agent's weights enter a recipe run."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env.agents import policy_file as F  # noqa: E402
from machu_env.agents import shipped_policies, shipped_policy  # noqa: E402
from machu_env.cli import main  # noqa: E402
from machu_env.train.probe import ladder  # noqa: E402
from machu_env.train.recipes import recipes  # noqa: E402

SMALL = {"n_envs": 16, "n_steps": 64, "batch_size": 256, "eval_games": 4,
         "eval_opponents": "gold", "imitate": ""}
TINY = {"format": "machu-env-recipe", "version": 1, "name": "tiny", "players": 2,
        "summary": "a recipe small enough for a test", "minutes": 30, "timesteps": 6144,
        "phases": [
            {"name": "fast", "until": 0.3, "timesteps": 2048,
             "settings": {**SMALL, "net_arch": "32,32", "eval_every": 1024}},
            {"name": "league", "until": 1.0,
             "settings": {**SMALL, "eval_every": 2048, "eval_agents": "ladder", "league": True,
                          "exploiter_every": 2048, "exploiter_steps": 1024, "pfsp": 2.0,
                          "league_games": 4, "snapshot_every": 1024, "max_snapshots": 2}}]}


def _file(tmp_path: Path, recipe: dict) -> Path:
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps(recipe))
    return path


def _cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_shipped_recipes_are_well_formed_and_listed(capsys):
    assert {"best-2p", "best-3p"} <= set(recipes.names())
    for name in recipes.names():
        recipe = recipes.load(name)
        assert recipe["name"] == name and recipe["phases"][-1]["until"] == 1
        assert not any("init" in p["settings"] or "frozen" in p["settings"]
                       for p in recipe["phases"])
    code, out, _ = _cli(["train", "--help"], capsys)
    assert code == 0 and "best-2p" in out and "best-3p" in out


@pytest.mark.parametrize("change,words", [
    (lambda r: r.update(format="x"), "format 'machu-env-recipe'"),
    (lambda r: r.update(extra=1), "unknown keys ['extra']"),
    (lambda r: r.update(players=7), "players must be 2, 3, 4 or 5"),
    (lambda r: r.update(minutes=-1), "minutes must be a number"),
    (lambda r: r["phases"][0]["settings"].update(init="best-2p"), "cannot be set by a recipe"),
    (lambda r: r["phases"][0]["settings"].update(frozen="ppo-2p"), "cannot be set by a recipe"),
    (lambda r: r["phases"][0]["settings"].update(n_epochs="2"), "'n_epochs' must be a int"),
    (lambda r: r["phases"][0]["settings"].update(imitate="ppo-2p"), "imitate must be empty"),
    (lambda r: r["phases"][0]["settings"].update(pool="ppo-2p:1"), "pool"),
    (lambda r: r["phases"][0]["settings"].update(nonsense=1), "cannot be set by a recipe"),
    (lambda r: r["phases"][1].update(until=0.2), "until must grow"),
    (lambda r: r["phases"][1].update(name="fast"), "name must be a new folder name"),
    (lambda r: r["phases"][0].update(timesteps=0), "timesteps must be an int"),
    (lambda r: r["phases"][1]["settings"].update(eval_agents="chess"), "eval_agents must be"),
    (lambda r: r.update(keep="best"), "keep must be one of last, ladder"),
    (lambda r: r["phases"][0]["settings"].update(head_start=1.5), "head_start must be"),
    (lambda r: r["phases"][0].update(players=6), "players must be 2, 3, 4 or 5 (the last"),
    (lambda r: r["phases"][1].update(players=3), "the last phase's: the recipe's 2"),
])
def test_a_bad_recipe_is_refused_in_words_and_nothing_is_written(change, words, tmp_path, capsys):
    recipe = copy.deepcopy(TINY)
    change(recipe)
    code, _, err = _cli(["train", "--recipe", str(_file(tmp_path, recipe)), "--out",
                         str(tmp_path / "run")], capsys)
    assert code == 2 and words in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_unknown_recipes_and_options_a_recipe_owns_are_refused(tmp_path, capsys):
    code, _, err = _cli(["train", "--recipe", "best-9p", "--out", str(tmp_path / "r")], capsys)
    assert code == 2 and "neither a shipped recipe (best-2p, best-2p-rounds, best-3p" in err
    code, _, err = _cli(["train", "--recipe", "best-2p", "--n-epochs", "3", "--league", "--out",
                         str(tmp_path / "r")], capsys)
    assert code == 2 and "--n-epochs, --league cannot be given with it" in err
    code, _, err = _cli(["train", "--recipe", "best-2p", "--n-envs", "128", "--out",
                         str(tmp_path / "r")], capsys)  # (its default value: still not applied)
    assert code == 2 and "--n-envs cannot be given with it" in err
    assert not (tmp_path / "r").exists()


def test_a_recipe_run_passes_through_exactly_the_fields_of_recipe_run(tmp_path, capsys):
    """``RecipeRun`` is the one list: the CLI's allowed options, the keywords of
    ``recipes.run``, the settings a recipe file may not set and the flags a resume records all
    follow its fields."""
    from dataclasses import fields

    from machu_env.train.recipes.recipe_run import OWNED, RecipeRun

    passed = RecipeRun.names()
    assert set(passed) <= set(OWNED)
    code, _, err = _cli(["train", "--recipe", "best-2p", "--n-epochs", "3", "--out",
                         str(tmp_path / "r")], capsys)
    allowed = err.split("(allowed: ")[1].split(", --resume)")[0]
    assert code == 2 and allowed.split(", ") == ["--" + n.replace("_", "-") for n in passed]
    code, out, _ = _cli(["train", "--help"], capsys)
    said = " ".join(out.split())
    assert code == 0 and all("--" + n.replace("_", "-") in said for n in passed)
    with pytest.raises(ValueError, match=r"does not take \['n_epochs'\]; it takes out, seed"):
        recipes.run(str(_file(tmp_path, TINY)), tmp_path / "r", n_epochs=3)
    for name in passed:  # (none of them may be set by a recipe file)
        recipe = copy.deepcopy(TINY)
        recipe["phases"][0]["settings"][name] = getattr(RecipeRun("x"), name)
        with pytest.raises(ValueError, match=f"settings \\['{name}'\\] cannot be set"):
            recipes.run(str(_file(tmp_path, recipe)), tmp_path / "r")
    assert not (tmp_path / "r").exists()
    run = RecipeRun("x", seed=3, minutes=12.5, threads=2, overlap=True, device="cpu")
    assert run.flags() == " --minutes 12.5 --threads 2 --overlap"
    assert run.machine() == {f.name: getattr(run, f.name) for f in fields(RecipeRun)
                             if f.name in ("threads", "overlap", "device", "ray",
                                           "rollout_workers")}


def _digests(nets) -> set[str]:
    out = set()
    for net in nets:
        h = hashlib.sha256()
        for t in net.state_dict().values():
            h.update(t.detach().cpu().numpy().tobytes())
        out.add(h.hexdigest())
    return out


def test_a_recipe_runs_every_phase_and_no_shipped_weights_enter_it(tmp_path, monkeypatch):
    """The training pools (every bank the trainers' envs draw opponents from) and the learners
    hold no shipped agent's weights; the ladder's agents play in the evaluations only."""
    from machu_env.train.run.selfplay import Trainer

    shipped = set()
    for name in shipped_policies():
        for tensors, config, *_ in F.parse_members(F.read_bytes(shipped_policy(name)))[0]:
            shipped |= _digests([F.build_net(tensors, config)])
    pools: list = []
    real_install, real_run = Trainer._install_pool, Trainer.run

    def install(self):
        real_set = self.env.set_snapshots

        def record(bank, weights=None):
            pools.append(list(bank.nets))
            return real_set(bank, weights=weights)

        self.env.set_snapshots = record
        try:
            real_install(self)
        finally:
            del self.env.set_snapshots

    def run(self):
        pools.append([self.model.net])  # the learner as the phase starts
        return real_run(self)

    monkeypatch.setattr(Trainer, "_install_pool", install)
    monkeypatch.setattr(Trainer, "run", run)
    state = recipes.run(str(_file(tmp_path, TINY)), tmp_path / "run", seed=3, verbose=False,
                        threads=1)
    assert state["done"] == ["fast", "league"] and state["steps"] >= 6144
    trained = [net for pool in pools for net in pool]
    assert trained and not _digests(trained) & shipped  # only the run's own policies
    info = F.parse(F.read_bytes(tmp_path / "run" / "agent.safetensors"))[2]
    assert info["recipe"] == "tiny" and info["seed"] == 3
    league = state["phases"]["league"]["timesteps"]  # the file counts every phase's steps
    assert info["num_timesteps"] == state["steps"] > info["last_phase_timesteps"] == league
    assert info["command"] == \
        f"machu train --recipe {tmp_path / 'recipe.json'} --seed 3 --threads 1"
    rows = (tmp_path / "run" / "league" / "history.csv").read_text().splitlines()
    assert "win_vs_ppo-2p-v1" in rows[0] and "elapsed_seconds" in rows[0]
    league = json.loads((tmp_path / "run" / "league" / "league.json").read_text())
    assert any(m["member"].startswith("exploiter:") for m in league["table"])


def test_keep_ladder_picks_the_evaluation_highest_on_the_ladder(tmp_path):
    """The highest rung evaluated wins over a higher share on a lower rung; then the share;
    steps count the phases before; an evaluation without its checkpoint is skipped."""
    head = "timesteps,win_vs_gold,win_vs_ppo-2p-v1,win_vs_ppo-2p,win_vs_ppo-2p-race,win_vs_best-2p"
    histories = {"scratch": ["0,0.0,0.1,nan,nan,nan", "100,1.0,0.9,0.8,0.6,0.55",
                             "200,1.0,0.95,0.9,0.7,0.6", "300,1.0,0.99,0.2,nan,nan"],
                 "polish": ["50,1.0,0.9,0.8,0.6,0.58", "90,1.0,0.9,0.8,0.6,0.7"]}
    for phase, rows in histories.items():
        (tmp_path / phase / "checkpoints").mkdir(parents=True)
        (tmp_path / phase / "history.csv").write_text("\n".join([head, *rows]) + "\n")
        for row in rows:
            step = row.split(",")[0]
            if (phase, step) != ("polish", "90"):  # its checkpoint is gone
                (tmp_path / phase / "checkpoints" / f"step_{step}.safetensors").write_bytes(b"")
    kept = ladder.best_on_ladder(tmp_path, {"scratch": 320, "polish": 95}, 2)
    assert kept == {"phase": "scratch", "timesteps": 200, "reached": "best-2p",
                    "evaluated_against": "best-2p", "win_share": 0.6,
                    "file": "scratch/checkpoints/step_200.safetensors"}
    (tmp_path / "gold" / "checkpoints").mkdir(parents=True)  # a phase that played gold only
    (tmp_path / "gold" / "history.csv").write_text("timesteps,win_vs_gold\n0,0.1\n")
    (tmp_path / "gold" / "checkpoints" / "step_0.safetensors").write_bytes(b"")
    kept = ladder.best_on_ladder(tmp_path, {"gold": 10}, 2)
    assert (kept["evaluated_against"], kept["reached"]) == ("gold", None)  # (10 %: not reached)
    (tmp_path / "polish" / "checkpoints" / "step_90.safetensors").write_bytes(b"")
    kept = ladder.best_on_ladder(tmp_path, {"scratch": 320, "polish": 95}, 2)
    assert (kept["phase"], kept["timesteps"], kept["win_share"]) == ("polish", 410, 0.7)


def test_a_recipe_that_keeps_the_best_on_the_ladder_writes_that_checkpoint(tmp_path):
    recipe = copy.deepcopy(TINY)
    recipe["keep"] = "ladder"
    recipe["phases"][0]["settings"]["eval_agents"] = "ladder"
    state = recipes.run(str(_file(tmp_path, recipe)), tmp_path / "run", seed=4, verbose=False)
    kept = state["kept"]
    tensors, _, info = F.parse(F.read_bytes(tmp_path / "run" / "agent.safetensors"))
    source = F.parse(F.read_bytes(tmp_path / "run" / kept["file"]))[0]
    assert sorted(tensors) == sorted(source)
    assert all((tensors[k] == source[k]).all() for k in tensors)
    assert info["kept"] == kept and info["num_timesteps"] == kept["timesteps"]
    assert kept == ladder.best_on_ladder(tmp_path / "run", {
        p: state["phases"][p]["timesteps"] for p in state["done"]}, 2)


def test_the_time_budget_ends_a_recipe_with_a_checkpoint(tmp_path):
    recipe = copy.deepcopy(TINY)
    recipe["phases"][0].pop("timesteps")
    recipe["timesteps"] = 10**8
    state = recipes.run(str(_file(tmp_path, recipe)), tmp_path / "run", minutes=0.4,
                        verbose=False)
    # phase 1 ends at 30 % of 24 s; the league phase runs up to 24 s (and its last evaluation)
    assert state["done"] == ["fast", "league"]
    assert 24 <= state["elapsed_seconds"] < 150
    assert (tmp_path / "run" / "agent.safetensors").is_file()
    assert json.loads((tmp_path / "run" / "league" / "latest.json").read_text())[
        "elapsed_seconds"] >= 24


def test_the_step_budget_ends_each_phase_at_its_share_of_it(tmp_path, capsys):
    """``--timesteps``: each phase ends at its ``until`` of the steps (a schedule that a slower
    machine follows step for step), whatever the time budget left; each phase says both ends."""
    recipe = copy.deepcopy(TINY)
    recipe["phases"][0].pop("timesteps")
    recipe["phases"][0]["until"] = 0.5
    recipe["phases"][1]["settings"].update(league=False, eval_agents="")
    state = recipes.run(str(_file(tmp_path, recipe)), tmp_path / "run", minutes=30,
                        timesteps=8192)
    said = capsys.readouterr().out
    assert "phase fast, 2 players (until 15 min of 30 or 4,096 steps of 8,192, whichever comes " \
        "first)" in said
    assert "phase league, 2 players (until 30 min of 30 or 8,192 steps of 8,192, whichever" \
        in said
    assert state["done"] == ["fast", "league"]  # rollouts of 16 games x 64 steps: 1,024
    assert state["phases"]["fast"]["timesteps"] == 4096
    assert state["phases"]["league"]["timesteps"] == 4096 and state["steps"] == 8192
    assert state["command"].endswith("--seed 0 --minutes 30 --timesteps 8192")
    phase = {"until": 0.5}  # an earlier phase ran past this one's share: one rollout still
    assert recipes.phase_steps(8192, 5000, phase) == 1
    assert recipes.phase_steps(8192, 1000, {**phase, "timesteps": 2000}) == 2000
    assert recipes.phase_steps(8192, 1000, {"until": 1.0}) == 7192


def test_a_recipe_stopped_in_a_phase_resumes_where_it_stopped(tmp_path, monkeypatch, capsys):
    from machu_env.train.run.selfplay import Trainer

    path = _file(tmp_path, TINY)
    real = Trainer.add_exploiter

    def stop(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(Trainer, "add_exploiter", stop)
    with pytest.raises(KeyboardInterrupt):
        recipes.run(str(path), tmp_path / "run", verbose=False)
    state = json.loads((tmp_path / "run" / "recipe.json").read_text())
    assert state["done"] == ["fast"] and (tmp_path / "run" / "league" / "latest.json").exists()
    code, _, err = _cli(["train", "--recipe", str(path), "--out", str(tmp_path / "run")], capsys)
    assert code == 2 and "already holds a recipe run; use --resume" in err
    monkeypatch.setattr(Trainer, "add_exploiter", real)
    state = recipes.run(str(path), tmp_path / "run", resume=True, verbose=False)
    assert state["done"] == ["fast", "league"] and state["steps"] >= 6144
    with pytest.raises(ValueError, match="not a run of recipe tiny with seed 4"):
        recipes.run(str(path), tmp_path / "run", seed=4, resume=True, verbose=False)


def test_the_ladder_names_each_rung_and_what_reaches_it():
    assert ladder.ladder(2) == [("gold", 0.95), ("ppo-2p-v1", 0.5), ("ppo-2p", 0.5),
                                ("ppo-2p-race", 0.5), ("ppo-2p-reg", 0.5), ("ppo-2p-avg", 0.5),
                                ("best-2p", 0.5)]
    assert [n for n, _ in ladder.ladder(3)] == ["gold", "ppo-3p-v1", "ppo-3p", "best-3p"]
    row = {"win_vs_gold": 0.96, "win_vs_ppo-2p-v1": 0.51, "win_vs_ppo-2p": 0.49,
           "win_vs_ppo-2p-race": float("nan")}
    assert ladder.reached(row, 2) == ["gold", "ppo-2p-v1"]
    with pytest.raises(ValueError, match="eval_agents must be 'ladder'"):
        ladder.eval_agents("ladder,gold", 2)
    assert ladder.eval_agents("best-2p, ppo-2p", 2) == ["best-2p", "ppo-2p"]
    state = {"rungs": ["ppo-2p-race"]}  # the run's rungs: weakest first, whatever the order
    recipes._add_rungs(state, [row, {"win_vs_best-2p": 0.6, "win_vs_ppo-2p-reg": 0.7,
                                     "win_vs_ppo-2p-avg": 0.55}], 2)
    assert state["rungs"] == ["gold", "ppo-2p-v1", "ppo-2p-race", "ppo-2p-reg", "ppo-2p-avg",
                              "best-2p"]


def test_pfsp_draws_the_members_that_beat_the_learner_most():
    from machu_env.train.probe.league import PFSP_FLOOR, pfsp_weights

    w = pfsp_weights([0.9, 0.5, 0.1, None], 2.0)
    assert abs(sum(w) - 1) < 1e-9 and w[2] > w[1] == w[3] > w[0]
    assert pfsp_weights([0.9, 0.1], 0.0) == [0.5, 0.5]
    w = pfsp_weights([1.0, 0.0], 2.0)  # a member always beaten keeps a floor share
    assert w[0] == pytest.approx(PFSP_FLOOR / (1 + PFSP_FLOOR))


def test_a_recipes_defaults_are_every_phases_start_and_a_phase_overrides_them(tmp_path):
    recipe = copy.deepcopy(TINY)
    recipe["defaults"] = {"eval_games": 6, "eval_opponents": "gold"}
    recipe["phases"][1]["settings"]["eval_games"] = 8
    loaded = recipes.load(str(_file(tmp_path, recipe)))
    assert [p["settings"]["eval_games"] for p in loaded["phases"]] == [4, 8]  # (own wins)
    del recipe["phases"][0]["settings"]["eval_games"]
    loaded = recipes.load(str(_file(tmp_path, recipe)))
    assert loaded["phases"][0]["settings"]["eval_games"] == 6
    recipe["defaults"] = ["eval_games"]
    with pytest.raises(ValueError, match="defaults must be a JSON object"):
        recipes.load(str(_file(tmp_path, recipe)))
    recipe["defaults"] = {"eval_games": "6"}
    with pytest.raises(ValueError, match="setting 'eval_games' must be a int"):
        recipes.load(str(_file(tmp_path, recipe)))


def test_a_phase_may_train_another_player_count_and_only_the_recipes_own_count_is_kept(
        tmp_path, capsys, monkeypatch):
    """A curriculum by player count (the 4- and 5-player recipes start with 3 players): the
    3-player phase trains and evaluates the 3-player game, the next phase starts from its
    policy in the recipe's game, and the kept agent and the rungs come from the recipe's own
    count only."""
    for players in (2, 3):  # (every evaluation reaches the gold rung: its line is said or not)
        monkeypatch.setitem(ladder.GOLD_MARK, players, 0.0)
    recipe = copy.deepcopy(TINY)
    recipe.update(players=3, keep="ladder")
    recipe["phases"][0].update(players=2)
    recipe["phases"][0]["settings"]["eval_agents"] = "ladder"
    recipe["phases"][1]["settings"].update(league=False, eval_agents="ladder")
    state = recipes.run(str(_file(tmp_path, recipe)), tmp_path / "run", seed=5, threads=1)
    out = capsys.readouterr().out
    assert "phase fast, 2 players" in out and "phase league, 3 players" in out
    two = out[out.index("phase fast, 2 players"):out.index("phase league, 3 players")]
    three = out[out.index("phase league, 3 players"):]
    assert "rung reached" not in two and "rung reached" in three  # (the recipe's own game's)
    assert "gold" in state["rungs"]
    run = tmp_path / "run"
    heads = [(run / p / "history.csv").read_text().splitlines()[0] for p in ("fast", "league")]
    assert "win_vs_ppo-2p-v1" in heads[0] and "win_vs_ppo-3p-v1" in heads[1]
    assert json.loads((run / "fast" / "config.json").read_text())["players"] == 2
    assert json.loads((run / "league" / "config.json").read_text())["players"] == 3
    assert state["kept"]["phase"] == "league" and state["kept"]["timesteps"] >= \
        state["phases"]["fast"]["timesteps"]  # (the steps count the 2-player phase too)
    assert not set(state["rungs"]) & {"ppo-2p-v1", "ppo-2p", "best-2p"}
    assert F.parse(F.read_bytes(run / "agent.safetensors"))[2]["players"] == 3


def test_a_step_budget_spent_in_another_player_count_still_ends_with_the_recipes_own_game(
        tmp_path, capsys):
    """A budget smaller than a rollout (as ``--timesteps 2000`` gives a 4-player recipe that
    starts at 3 players): the budget is spent in the first phase, the later phases are skipped,
    but the last one still trains a rollout of the recipe's own game, so the run keeps an agent
    of that game instead of failing."""
    recipe = copy.deepcopy(TINY)
    recipe.update(players=3, keep="ladder")
    recipe["phases"][0].update(players=2)
    recipe["phases"][0]["settings"]["eval_agents"] = "ladder"
    recipe["phases"][1]["settings"].update(league=False, eval_agents="ladder")
    middle = copy.deepcopy(recipe["phases"][0])
    middle.update(name="middle", until=0.6)
    recipe["phases"].insert(1, middle)  # (skipped: the budget is spent, and it is not the last)
    state = recipes.run(str(_file(tmp_path, recipe)), tmp_path / "run", seed=5, threads=1,
                        timesteps=100, verbose=False)
    assert state["done"] == ["fast", "league"] and state["kept"]["phase"] == "league"
    assert not (tmp_path / "run" / "middle").exists()
    assert F.parse(F.read_bytes(tmp_path / "run" / "agent.safetensors"))[2]["players"] == 3
