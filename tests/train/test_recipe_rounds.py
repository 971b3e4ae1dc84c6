"""A recipe's rounds (train/recipes/rounds.py): each round probes the agent with two fresh
exploiters, freezes them into the pool and fine-tunes the agent; the stage keeps the least
exploitable agent that stays on the ladder, goes on after an interrupt, keeps to its time
budget, and refuses a bad ``rounds`` object or a tampered record in words."""

from __future__ import annotations

import copy
import csv
import json
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env.agents import policy_file as F  # noqa: E402
from machu_env.cli import main  # noqa: E402
from machu_env.train.recipes import recipes, rounds  # noqa: E402

SMALL = {"n_envs": 16, "n_steps": 64, "batch_size": 256, "eval_games": 4,
         "eval_opponents": "gold", "imitate": ""}
ROUNDS = {"count": 2, "minutes": 60, "timesteps": 1024, "probe_steps": 1024, "probe_games": 10,
          "max_frozen": 2, "keep": "least-exploitable",
          "settings": {"eval_every": 1024, "snapshot_every": 1024, "exploiter_share": 0.5}}
TINY = {"format": "machu-env-recipe", "version": 1, "name": "tiny-rounds", "players": 2,
        "summary": "one short phase, then two short rounds", "minutes": 30, "timesteps": 1024,
        "defaults": SMALL,
        "phases": [{"name": "fast", "until": 1.0,
                    "settings": {"net_arch": "32,32", "eval_every": 1024}}],
        "rounds": ROUNDS}


def _file(tmp_path: Path, recipe: dict) -> Path:
    path = tmp_path / "recipe.json"
    path.write_text(json.dumps(recipe))
    return path


def _tensors(path: Path) -> dict:
    return F.parse(F.read_bytes(path))[0]


def test_each_round_probes_freezes_its_exploiters_and_fine_tunes(tmp_path):
    out = tmp_path / "run"
    state = recipes.run(str(_file(tmp_path, TINY)), out, seed=2, verbose=False, threads=1)
    record = state["rounds"]
    assert [d["round"] for d in record["done"]] == [1, 2]
    seeds = [p["seed"] for d in record["done"] for p in d["probes"]] \
        + [p["seed"] for p in record["last_probes"]["probes"]]
    assert len(set(seeds)) == 6  # every probe on a seed of its own
    for d in record["done"]:  # the round's two exploiters, frozen in its fine-tune's pool
        config = json.loads((out / d["agent"]).parent.joinpath("config.json").read_text())
        assert config["frozen"].split(",") == [str(out / f) for f in d["exploiters"]]
        assert config["init"] == str(out / rounds.agent_file(d["round"] - 1))
        assert all((out / f).is_file() for f in d["exploiters"])
        with open((out / d["agent"]).parent / "history.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert [int(row["timesteps"]) for row in rows] == [1024]  # (its start: not again)
        assert float(rows[0]["elapsed_seconds"]) > state["elapsed_seconds"]  # the run's time
    kept = record["kept"]
    found = rounds.candidates(record)
    assert [c["agent"] for c in found] == [rounds.agent_file(r) for r in (0, 1, 2)]
    means = [round(sum(p["exploiter_win_share"] for p in c["probes"]) / 2, 4) for c in found]
    assert kept["probe"] == min(means)  # (no rung reached: every agent is a candidate)
    tensors, _, info = F.parse(F.read_bytes(out / "agent.safetensors"))
    source = _tensors(out / kept["agent"])
    assert all((tensors[k] == source[k]).all() for k in source)
    assert info["rounds"] == {"kept": kept, "rounds": 2}
    # a resumed run with every round done retrains nothing and keeps the same agent
    again = recipes.run(str(_file(tmp_path, TINY)), out, seed=2, verbose=False, threads=1,
                        resume=True)
    assert again["rounds"]["kept"] == kept and again["rounds"]["done"] == record["done"]


def test_rounds_stopped_in_a_probe_go_on_from_it(tmp_path, monkeypatch, capsys):
    from machu_env.train.probe import exploit

    out, path = tmp_path / "run", _file(tmp_path, TINY)
    real, calls = exploit.exploit, []

    def stop_in_round_two(agent, *args, **kw):
        calls.append(kw["seed"])
        if "round2" in str(kw["out"]):
            raise KeyboardInterrupt
        return real(agent, *args, **kw)

    monkeypatch.setattr(exploit, "exploit", stop_in_round_two)
    with pytest.raises(KeyboardInterrupt):
        recipes.run(str(path), out, seed=5, verbose=False, threads=1)
    state = json.loads((out / "recipe.json").read_text())
    assert [d["round"] for d in state["rounds"]["done"]] == [1]
    first = list(calls)
    monkeypatch.setattr(exploit, "exploit", lambda *a, **kw: calls.append(kw["seed"])
                        or real(*a, **kw))
    code = main(["train", "--recipe", str(path), "--out", str(out), "--seed", "5", "--threads",
                 "1", "--resume"])
    said = capsys.readouterr().out.splitlines()
    state = json.loads((out / "recipe.json").read_text())
    assert code == 0 and [d["round"] for d in state["rounds"]["done"]] == [1, 2]
    assert any(line.startswith("rounds: 1 of 2 done in ") and line.endswith(
        "the stage's budget: 60 min") for line in said)
    assert "rounds: round 2 of 2: fine-tune 1,024 steps against the pool and 2 frozen " \
           "exploiters" in said
    assert any(line.startswith("rounds: 2 in ") and "(its two exploiters won" in line
               for line in said[-6:])
    redone = calls[len(first):]
    assert not set(redone) & set(first[:2])  # round 1's probes are read, not run again
    assert len(redone) == 4  # round 2's two, then the last two


def _record(shares: list[tuple[float, float]], gold: list[float]) -> dict:
    """A finished stage's record: agent k probed at ``shares[k]``; round k's final evaluation
    ``gold[k - 1]`` against gold (0.95 reaches the ladder's first rung)."""
    def probes(where, pair, k):
        return [{"seed": 10 * k + j, "exploiter_win_share": s, "exploiter":
                 f"{rounds.probe_folder(where, 10 * k + j)}/exploiter.safetensors"}
                for j, s in enumerate(pair)]
    done = []
    for r in range(1, len(shares)):
        done.append({"round": r, "agent": rounds.agent_file(r), "timesteps": 1024,
                     "probes": probes(r, shares[r - 1], r),
                     "final_eval": {"win_vs_gold": gold[r - 1]}})
        done[-1]["exploiters"] = [p["exploiter"] for p in done[-1]["probes"]]
    return {"start": rounds.agent_file(0), "done": done, "seconds": 1.0, "last_probes": {
        "agent": rounds.agent_file(len(done)), "probes": probes("last", shares[-1], 99)}}


def test_the_stage_keeps_the_least_exploitable_agent_that_stays_on_the_rung():
    record = _record([(0.9, 0.9), (0.6, 0.7), (0.5, 0.5), (0.8, 0.8)], [0.96, 0.5, 0.97])
    start = {"reached": "gold"}  # the phases' agent reached gold: round 2 fell below it
    kept = rounds.keep(record, start, "least-exploitable", 2)
    assert (kept["round"], kept["probe"]) == (1, 0.65)
    assert rounds.keep(record, None, "least-exploitable", 2)["round"] == 2  # no rung to keep
    assert rounds.keep(record, start, "last", 2)["round"] == 3
    assert rounds.check_record(record, {"count": 3}) is None
    tie = _record([(0.6, 0.6), (0.6, 0.6)], [0.96])
    assert rounds.keep(tie, start, "least-exploitable", 2)["round"] == 1  # ties: the later


def test_the_rounds_stop_at_their_time_budget_and_still_probe_the_last_agent(tmp_path,
                                                                             monkeypatch):
    (tmp_path / "agent.safetensors").write_bytes(b"start")
    said = []
    monkeypatch.setattr(rounds, "_probes", lambda agent, out, r, seeds, *a: [said.append(
        (str(agent), r)) or {"seed": seed, "exploiter_win_share": 0.7, "exploiter":
                             f"{rounds.probe_folder(r, seed)}/exploiter.safetensors"}
        for seed in seeds])
    state = {"seed": 0}
    recipe = {"players": 2, "rounds": ROUNDS}

    def train(settings, init, frozen, seed, folder, steps, elapsed):  # a round of 0.2 s
        time.sleep(0.2)
        return {"timesteps": steps, "final_eval": {"win_vs_gold": 1.0}}
    budget = 0.3 / 60 / ROUNDS["minutes"]  # 0.3 s: room for one round of 0.2 s, not two
    kept = rounds.run({**recipe, "rounds": {**ROUNDS, "count": 5}}, tmp_path, state, train,
                      scale=budget, threads=1, verbose=False, save_state=lambda: None)
    assert [d["round"] for d in state["rounds"]["done"]] == [1]  # the first always runs
    assert said == [(str(tmp_path / rounds.agent_file(0)), 1)] * 2 \
        + [(str(tmp_path / rounds.agent_file(1)), "last")] * 2  # the last agent, probed
    assert kept == tmp_path / rounds.agent_file(1)  # (the same probes: ties keep the later)
    assert (tmp_path / rounds.agent_file(0)).read_bytes() == b"start"


def _start_without_probes(tmp_path: Path, monkeypatch) -> None:
    """A stage's start file, and probes that only say 70 % (no exploiter trains)."""
    (tmp_path / "agent.safetensors").write_bytes(b"start")
    monkeypatch.setattr(rounds, "_probes", lambda agent, out, r, seeds, *a: [
        {"seed": seed, "exploiter_win_share": 0.7,
         "exploiter": f"{rounds.probe_folder(r, seed)}/exploiter.safetensors"} for seed in seeds])


def test_round_one_probes_and_freezes_first_probes_exploiters(tmp_path, monkeypatch):
    _start_without_probes(tmp_path, monkeypatch)
    frozen = []

    def train(settings, init, pool, seed, folder, steps, elapsed):
        frozen.append(pool.split(","))
        return {"timesteps": steps, "final_eval": {"win_vs_gold": 1.0}}
    spec = {**ROUNDS, "count": 3, "first_probes": 4, "max_frozen": 6}
    state = {"seed": 3}
    rounds.run({"players": 2, "rounds": spec}, tmp_path, state, train, scale=1.0, threads=1,
               verbose=False, save_state=lambda: None)
    record = state["rounds"]
    assert [len(d["probes"]) for d in record["done"]] == [4, 2, 2]
    assert [len(f) for f in frozen] == [4, 6, 6]  # round 3: the newest six
    assert frozen[2] == [str(tmp_path / f) for f in
                         record["done"][0]["exploiters"][2:] + record["done"][1]["exploiters"]
                         + record["done"][2]["exploiters"]]
    seeds = [p["seed"] for d in record["done"] for p in d["probes"]] \
        + [p["seed"] for p in record["last_probes"]["probes"]]
    assert len(set(seeds)) == 10  # every probe on a seed of its own
    assert rounds.check_record(record, spec) is None
    assert "rounds.done[0]" in rounds.check_record(record, {**spec, "first_probes": 2})


def test_the_late_rounds_fine_tune_with_their_own_steps_and_settings(tmp_path, monkeypatch,
                                                                     capsys):
    _start_without_probes(tmp_path, monkeypatch)
    tunes = []

    def train(settings, init, pool, seed, folder, steps, elapsed):
        tunes.append((steps, settings))
        return {"timesteps": steps, "final_eval": {"win_vs_gold": 1.0}}
    late = {"from": 3, "timesteps": 512, "settings": {"learning_rate": 0.0001}}
    spec = {**ROUNDS, "count": 4, "late": late}
    rounds.run({"players": 2, "rounds": spec}, tmp_path, {"seed": 1}, train, scale=1.0,
               threads=1, verbose=True, save_state=lambda: None)
    assert tunes[:2] == [(1024, ROUNDS["settings"])] * 2
    assert tunes[2:] == [(512, {**ROUNDS["settings"], "learning_rate": 0.0001})] * 2
    said = [line for line in capsys.readouterr().out.splitlines() if "fine-tune" in line]
    assert said[1].endswith("2 frozen exploiters")
    assert said[2].endswith("fine-tune 512 steps against the pool and 2 frozen exploiters "
                            "(a late round's settings)")


@pytest.mark.parametrize("change,words", [
    (lambda r: r["rounds"].update(count=0), "rounds: count must be an int in 1..64"),
    (lambda r: r["rounds"].update(max_frozen=1), "max_frozen must be an int in 2..16"),
    (lambda r: r["rounds"].update(keep="best"), "keep must be one of least-exploitable, last"),
    (lambda r: r["rounds"].update(first_probes=1), "first_probes must be an int in 2..16"),
    (lambda r: r["rounds"].update(extra=1), "rounds: unknown keys ['extra']"),
    (lambda r: r["rounds"]["settings"].update(pool="ppo-2p:1"), "rounds: bad pool entry"),
    (lambda r: r["rounds"]["settings"].update(imitate="ppo-2p"), "imitate must be empty"),
    (lambda r: r["rounds"]["settings"].update(frozen="ppo-2p"), "cannot be set by a recipe"),
    (lambda r: r.update(rounds=[1]), "rounds: must be a JSON object"),
    (lambda r: r["rounds"].update(late={"from": 1}), "late: from must be an int in 2..2"),
    (lambda r: r["rounds"].update(late={"from": 2, "steps": 9}), "late: must be a JSON object"),
    (lambda r: r["rounds"].update(late={"from": 2, "timesteps": 0}),
     "late: timesteps must be an int in 1..10000000000"),
    (lambda r: r["rounds"].update(late={"from": 2, "settings": {"learning_rate": "slow"}}),
     "late: setting 'learning_rate' must be a float"),
    (lambda r: r.update(base="best-9p"), "base must name another shipped recipe"),
])
def test_a_bad_rounds_object_is_refused_in_words(change, words, tmp_path, capsys):
    recipe = copy.deepcopy(TINY)
    change(recipe)
    code = main(["train", "--recipe", str(_file(tmp_path, recipe)), "--out",
                 str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_a_recipe_with_a_base_takes_its_phases_and_adds_its_own_keys():
    base, derived = recipes.load("best-2p"), recipes.load("best-2p-rounds")
    assert derived["phases"] == base["phases"] and derived["machines"] == base["machines"]
    assert "rounds" in derived and "rounds" not in base and derived["name"] == "best-2p-rounds"
    assert derived["rounds"]["settings"]["pool"] == base["defaults"]["pool"]


def test_a_tampered_rounds_record_is_refused_before_anything_trains(tmp_path):
    record = _record([(0.9, 0.9), (0.6, 0.7)], [0.96])
    assert rounds.check_record(record, {"count": 2}) is None
    record["done"][0]["agent"] = "../elsewhere.safetensors"
    assert "rounds.done[0] must be round 1's record" in rounds.check_record(record, {"count": 2})
    record = _record([(0.9, 0.9), (0.6, 0.7)], [0.96])
    record["done"][0]["seconds"] = "ten"  # (a later round's start reads it)
    assert "rounds.done[0] must be round 1's record" in rounds.check_record(record, {"count": 2})
    record = _record([(0.9, 0.9), (0.6, 0.7)], [0.96])
    record["last_probes"]["probes"][0]["exploiter"] = "/etc/exploiter.safetensors"
    assert "last_probes" in rounds.check_record(record, {"count": 2})
    assert "up to 0 rounds" in rounds.check_record(_record([(0.9, 0.9), (0.6, 0.7)], [0.9]),
                                                   {"count": 0})


def test_with_two_cores_a_rounds_two_probes_run_at_once_and_are_read_after(tmp_path):
    from machu_env.agents import shipped_policy

    agent = tmp_path / "agent.safetensors"
    agent.write_bytes(Path(shipped_policy("ppo-2p-v1")).read_bytes())
    spec = {**ROUNDS, "probe_steps": 512, "probe_games": 10}
    rows = rounds._probes(agent, tmp_path, 1, [7, 8], spec, 2, threads=2, verbose=False)
    assert [r["seed"] for r in rows] == [7, 8]
    files = [tmp_path / r["exploiter"] for r in rows]
    summaries = [json.loads((f.parent / "summary.json").read_text()) for f in files]
    assert [s["seed"] for s in summaries] == [7, 8] and all(f.is_file() for f in files)
    assert [s["eval_games"] for s in summaries] == [10, 10]
    stamps = [f.stat().st_mtime_ns for f in files]
    assert rounds._probes(agent, tmp_path, 1, [7, 8], spec, 2, threads=2, verbose=False) == rows
    assert [f.stat().st_mtime_ns for f in files] == stamps  # finished probes are read


def test_a_run_resumed_with_more_time_reads_the_last_probes_as_the_next_rounds(tmp_path,
                                                                               monkeypatch):
    from machu_env.train.probe import exploit

    (tmp_path / "agent.safetensors").write_bytes(b"start")
    ran = []

    def fake_exploit(agent, players, steps, seed, out, eval_games, verbose):
        ran.append((seed, Path(out).relative_to(tmp_path).as_posix()))
        Path(out).mkdir(parents=True)
        (Path(out) / "exploiter.safetensors").write_bytes(b"exploiter %d" % seed)
        (Path(out) / "summary.json").write_text(json.dumps(
            {"exploiter_win_share": 0.5 + seed % 7 / 100, "ci95": [0.4, 0.6],
             "exploiter_margin": 1.0}))
    monkeypatch.setattr(exploit, "exploit", fake_exploit)

    def train(settings, init, frozen, seed, folder, steps, elapsed):  # a round of 0.2 s
        time.sleep(0.2)
        Path(folder).mkdir(parents=True, exist_ok=True)
        return {"timesteps": steps, "final_eval": {"win_vs_gold": 1.0}}
    state, spec = {"seed": 4}, {**ROUNDS, "count": 3}
    recipe = {"players": 2, "rounds": spec}
    short = 0.3 / 60 / ROUNDS["minutes"]  # room for round 1 only
    rounds.run(recipe, tmp_path, state, train, scale=short, threads=1, verbose=False,
               save_state=lambda: None)
    last = copy.deepcopy(state["rounds"]["last_probes"])
    assert [r[1] for r in ran[-2:]] == [rounds.probe_folder("last", p["seed"])
                                        for p in last["probes"]]
    ran.clear()
    seeds = [p["seed"] for p in last["probes"]]
    real_write = rounds.files.write_bytes

    def cut_at_the_summary(path, data):
        if Path(path).name == "summary.json":
            raise KeyboardInterrupt
        return real_write(path, data)
    monkeypatch.setattr(rounds.files, "write_bytes", cut_at_the_summary)
    with pytest.raises(KeyboardInterrupt):  # a copy cut short reads as unfinished
        rounds._reuse_last_probes(tmp_path, state["rounds"], 2, seeds, verbose=False)
    assert not rounds._finished(tmp_path / rounds.probe_folder(2, seeds[0]))
    monkeypatch.setattr(rounds.files, "write_bytes", real_write)
    rounds.run(recipe, tmp_path, state, train, scale=1.0, threads=1, verbose=False,
               save_state=lambda: None)
    record = state["rounds"]
    assert [d["round"] for d in record["done"]] == [1, 2, 3]
    second = record["done"][1]["probes"]  # round 2's probes: the last probes, read again
    assert [{k: p[k] for k in ("seed", "exploiter_win_share")} for p in second] \
        == [{k: p[k] for k in ("seed", "exploiter_win_share")} for p in last["probes"]]
    assert all((tmp_path / p["exploiter"]).read_bytes() == b"exploiter %d" % p["seed"]
               for p in second)
    assert all("round2" not in folder for _, folder in ran)  # not run again
    assert len(ran) == 4  # round 3's two, then the new last two
    assert rounds.check_record(record, spec) is None
