"""The benchmark suite's measuring functions run (tiny budgets; the figures are not checked);
the scripts of ``benchmarks/`` (outside the wheel) are imported from the checkout."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def test_benchmark_functions_measure_something():
    import machu_env
    from machu_env.bench import suite as run

    assert run.compiled_playout(8, 0.01) > 0
    assert run.python_batch_loop(8, 0.01) > 0
    assert run.aec_loop(lambda: machu_env.env(num_players=3), 0.01) > 0
    assert run.gym_loop(0.01) > 0
    pytest.importorskip("stable_baselines3")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    assert run.vecenv_loop(MachuPicchuVecEnv(8, 3), 0.01, lambda v: v.action_masks()) > 0


def test_the_machine_record_names_the_cpu_generation_not_only_its_brand():
    from machu_env.bench import machine

    zen3 = ("processor\t: 0\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\n"
            "cpu MHz\t\t: 2449.998\n")
    zen5 = "processor\t: 0\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\n"
    assert machine.cpu_id(zen3) == "family 25 model 1, 2450 MHz"
    assert machine.cpu_id(zen5 + "\n" + zen3) == "family 26 model 2"  # the first processor's
    assert machine.cpu_id("model name\t: Apple M2\n") == ""
    unknown_clock = "cpu family\t: 6\nmodel\t: 143\ncpu MHz\t: unknown\n"
    assert machine.cpu_id(unknown_clock) == "family 6 model 143"
    assert set(machine.describe()) >= {"cpu", "cpu_id", "date", "cpu_cores"}
    import time_to_strength

    old = {"cpu": "AMD EPYC", "date": "2026-11-28"}  # (results written before cpu_id)
    assert time_to_strength.machine_label(old) == "AMD EPYC, 2026-11-28"
    assert (time_to_strength.machine_label({**old, "cpu_id": "family 26 model 2"})
            == "AMD EPYC, family 26 model 2, 2026-11-28")


def test_train_speed_runs_both_learners_for_the_same_steps():
    pytest.importorskip("sb3_contrib")
    import train_speed

    small = {"n_envs": 8, "n_steps": 16, "batch_size": 64, "n_epochs": 1}
    old = train_speed.maskable_ppo(256, 2, **small)
    new = train_speed.machu_train(256, 2, threads=1, precision="fp32", **small)
    assert old["steps"] == new["steps"] == 256
    assert old["steps_per_second"] > 0 and new["steps_per_second"] > 0
    parts = new["update_seconds"] + new["rollout_policy_seconds"] + new["simulator_seconds"]
    assert 0 <= parts <= new["seconds"] + 0.2  # the parts (rounded to 0.1 s) within the whole


def test_train_speed_times_the_env_alone_against_its_opponents():
    import train_speed

    row = train_speed.env_rate("gold:1", 2, num_envs=4, seconds=0.05)
    assert row["steps"] >= 4 and row["steps_per_second"] > 0 and row["opponents"] == "gold:1"


@pytest.mark.parametrize("argv", [["--steps", "0"], ["--threads", "-1"], ["--players", "7"]])
def test_train_speed_refuses_bad_arguments(argv, tmp_path, capsys):
    import train_speed

    with pytest.raises(SystemExit) as e:
        train_speed.main([*argv, "--out", str(tmp_path / "out")])
    assert e.value.code == 2 and "error:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing measured, nothing written


@pytest.mark.parametrize("argv", [["--steps", "100"], ["--rounds", "0"], ["--players", "6"],
                                  ["--chunksize", "-1"]])
def test_thread_scaling_refuses_bad_arguments(argv, tmp_path, capsys):
    import thread_scaling

    with pytest.raises(SystemExit) as e:
        thread_scaling.main([*argv, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "error:" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # nothing measured, nothing written


def test_decision_time_times_every_decision_of_the_measured_agent(tmp_path):
    import decision_time

    run = decision_time.time_decisions("random", "builder", 2, 2, max_decisions=40)
    assert sum(run["ends"].values()) == 2
    # 2 games of at most 40 decisions (all seats'): the measured seat takes some, not all
    assert 10 <= len(run["seconds"]) < 80 and min(run["seconds"]) > 0
    report = decision_time.main(["--agent", "random", "--games", "1", "--max-decisions", "30",
                                 "--budget", "1e-9", "--out", str(tmp_path)])
    stats = report["decision_time"]
    assert stats["decisions"] >= 5 and stats["over_budget"] == 1.0  # every decision > 1 ns
    assert stats["mean"] <= stats["max"] and stats["median"] <= stats["p99"] <= stats["max"]
    assert (tmp_path / "decision_time_random.json").exists()


@pytest.mark.parametrize("argv", [["--agent", "nope"], ["--agent", "random", "--games", "0"],
                                  ["--agent", "random", "--budget", "0"],
                                  ["--agent", "random", "--seconds", "nan"],
                                  ["--agent", "random", "--opponent", "search:nope"]])
def test_decision_time_refuses_bad_arguments(argv, tmp_path, capsys):
    import decision_time

    with pytest.raises(SystemExit) as e:
        decision_time.main([*argv, "--out", str(tmp_path / "out")])
    assert e.value.code == 2 and "error:" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_time_to_strength_times_a_real_run_and_summarises_its_marks(tmp_path):
    """One tiny ``machu train`` process (imitation of 20 gold games, 2,048 steps), stopped at
    its first evaluation that wins 1 % against gold: its marks, split and confirmation."""
    pytest.importorskip("torch")
    import time_to_strength as T

    flags = ("--n-envs 16 --n-steps 64 --batch-size 256 --net-arch 32 --imitate-games 20 "
             "--threads 1")
    r = T.run_once(flags, 1, 2, 2048, 1024, 40, tmp_path / "run", stop_at=0.01)
    assert r["timesteps"] <= 2048 and r["steps_per_second"] > 0
    for mark, got in r["marks"].items():
        assert got["seconds"] <= r["wall_seconds"] and got["timesteps"] <= r["timesteps"]
        assert any(h["win_vs_gold"] >= float(mark) for h in r["history"])
    r["confirmed_win_vs_gold"] = T.confirm(tmp_path / "run" / "latest.safetensors", 2, 20)
    assert 0 <= r["confirmed_win_vs_gold"] <= 1
    s = T.summarise([r, {**r, "marks": {}}])
    assert s["seconds_to_95"]["median"] is None  # a seed that never got there: no median
    assert s["seconds_to_95"]["reached"].endswith("/2")


def test_time_to_strength_confirms_the_recipes_agent_not_its_last_policy(tmp_path):
    """A recipe's ``"keep": "ladder"`` may hand the user an earlier checkpoint than the last
    policy: the ladder's confirmation plays that agent file; a plain run its latest policy."""
    import time_to_strength as T

    last = tmp_path / "polish"
    last.mkdir()
    assert T.agent_file(tmp_path, last) == last / "latest.safetensors"
    (tmp_path / "agent.safetensors").write_bytes(b"")
    assert T.agent_file(tmp_path, last) == tmp_path / "agent.safetensors"


def test_machu_bench_writes_under_runs_and_compares_with_the_docs(tmp_path):
    import json

    from machu_env.bench import suite as run

    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps({"machine": "x86_64, 2 cores", "date": "2026-11-24", "rows": {
        "(a) compiled random playout, N=4096": {"decisions_per_s": 10_000_000}}}))
    mine = {"rows": {"(a) compiled random playout, N=4096": {"decisions_per_s": 15_000_000}}}
    lines = run.beside_the_docs(mine, ref)
    assert lines[0] == "beside the docs' figures (x86_64, 2 cores, 2026-11-24):"
    assert lines[1].endswith("15,000,000 here, 10,000,000 there (1.50x)")
    assert run.beside_the_docs(mine, tmp_path / "absent.json") == []
    from typer.main import get_command

    from machu_env.cli import app

    bench = get_command(app).commands["bench"]
    assert next(p.default for p in bench.params if p.name == "out").as_posix() == "runs/bench"
