"""What a training run shows and how it ends early: progress lines, the busy-machine word,
``--eval-opponents`` and ``--stop-at`` (the time-to-strength benchmark's settings)."""

from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from machu_env.train.run import progress as P  # noqa: E402
from machu_env.train.run.selfplay import TrainConfig, train  # noqa: E402


def tiny(out, **kw) -> TrainConfig:
    options = dict(players=2, timesteps=4096, seed=0, out=str(out), n_envs=16, n_steps=64,
                   batch_size=256, n_epochs=1, net_arch="16", eval_every=1024,
                   snapshot_every=1024, max_snapshots=2, eval_games=8, device="cpu",
                   imitate="gold", imitate_games=30)
    return TrainConfig(**{**options, **kw})


def test_gold_alone_is_evaluated_and_stop_at_ends_the_run(tmp_path):
    out = tmp_path / "run"
    summary = train(tiny(out, eval_opponents="gold", stop_at=0.01, eval_games=40,
                         learning_rate=1e-3), verbose=False)
    with (out / "history.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert all("win_vs_random" not in r and "win_vs_builder" not in r for r in rows)
    assert all(float(r["wall_seconds"]) >= float(r["train_seconds"]) for r in rows)
    reached = [int(r["timesteps"]) for r in rows if float(r["win_vs_gold"]) >= 0.01]
    if reached and reached[0] > 0:  # the first evaluation past 1 % ends it, not --timesteps
        assert summary["timesteps"] == reached[0] < 4096
    assert summary["wall_seconds"] >= summary["train_seconds"] + summary["eval_seconds"] * 0.5


def test_stop_at_sacrifices_ends_the_run_once_the_temples_are_found(tmp_path, monkeypatch):
    """A recipe's phase ends when the learner sacrifices often enough against gold: here the
    evaluation's count is made to pass 5 a game at its third evaluation (steps 2048)."""
    from machu_env.train.run import selfplay

    calls = []

    def counted(predict, opponent, games, *args, **kw):
        calls.append(games)
        return 0.5, {"sacrifices_per_game": 3.0 * (len(calls) - 1), "offers_per_game": 0.0,
                     "sunclocks_per_game": 0.0}

    monkeypatch.setattr(selfplay, "win_share_and_habits", counted)
    config = tiny(tmp_path / "run", eval_opponents="gold", stop_at_sacrifices=5, imitate="")
    assert config.goal_words() == "5 sacrifices a game against gold"
    summary = train(config, verbose=False)
    with (tmp_path / "run" / "history.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [float(r["sacrifices_per_game_vs_gold"]) for r in rows] == [0.0, 3.0, 6.0]
    assert summary["timesteps"] == int(rows[-1]["timesteps"]) < 4096
    assert not config.goal_reached({"win_vs_gold": 0.99, "sacrifices_per_game_vs_gold": 4.9})
    assert not tiny(tmp_path).goal_reached({"win_vs_gold": 1.0, "sacrifices_per_game_vs_gold": 9})
    for bad in (-1, 51, "5", True):
        with pytest.raises(ValueError, match=r"stop_at_sacrifices must be a number in \[0, 50\], "
                           r"got"):
            tiny(tmp_path, stop_at_sacrifices=bad).check()


@pytest.mark.parametrize("bad", ["random", "gold,chess", "", 3])
def test_eval_opponents_must_name_gold_and_known_heuristics(tmp_path, bad):
    with pytest.raises(ValueError, match="eval_opponents must name gold"
                       if isinstance(bad, str) else "eval_opponents must be a string"):
        tiny(tmp_path, eval_opponents=bad).check()
    with pytest.raises(ValueError, match=r"stop_at must be a number in \[0, 1\]"):
        tiny(tmp_path, stop_at=1.5).check()


def test_progress_prints_plain_lines_where_there_is_no_terminal(capsys):
    progress = P.Progress(1000, enabled=True, stream=io.StringIO(), every=0.0)
    assert progress.bar is None
    progress.last_eval = "gold 42.0%"
    progress.update(500)
    progress.say("an evaluation")
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["500", "/", "1,000", "steps"]
    assert "s left  last eval: gold 42.0%" in out[0] and out[1] == "an evaluation"
    P.Progress(1000, enabled=False).update(10)
    assert capsys.readouterr().out == ""


def test_the_time_left_never_goes_negative_and_names_the_goal():
    progress = P.Progress(100_000, enabled=True, stream=io.StringIO(), every=0.0)
    assert progress.time_left(114_688, 5000.0) == "about 0 s left"  # (a rollout overshoots)
    assert progress.time_left(50_000, 100.0) == "about 8 min left"
    goal = P.Progress(20_000_000, enabled=True, stream=io.StringIO(), every=0.0,
                      goal="95% against gold")
    assert goal.time_left(1_000_000, 20_000.0) == \
        "at most 16 min left (or at 95% against gold)"
    assert goal.time_left(0, 0.0) == "time left unknown"
    budget = P.Progress(500_000_000, enabled=True, stream=io.StringIO(), every=0.0,
                        seconds=600.0)  # (a --minutes budget ends the run first)
    assert budget.time_left(1_000_000, 10_000.0) == "about 10 min left"


def test_a_run_that_stops_at_a_goal_is_evaluated_often_enough_to_stop_near_it(tmp_path):
    from machu_env.train.run.config import EVAL_EVERY, STOP_EVAL_EVERY

    assert tiny(tmp_path, eval_every=0, stop_at=0.95).eval_interval() == STOP_EVAL_EVERY == 65_536
    assert tiny(tmp_path, eval_every=0).eval_interval() == EVAL_EVERY
    assert tiny(tmp_path, eval_every=1000, stop_at=0.95).eval_interval() == 1000


def test_a_busy_machine_is_named(monkeypatch):
    monkeypatch.setattr(P, "machine_load", lambda: (1.9, 2))
    assert "the machine is busy (other work takes 1.9 of 2 CPUs)" in P.busy_warning(0)
    assert P.busy_warning(1) is None  # one thread asked for already
    monkeypatch.setattr(P, "machine_load", lambda: (0.2, 2))
    assert P.busy_warning(0) is None


@pytest.mark.skipif(not Path("/proc/loadavg").is_file(), reason="reads Linux's /proc/loadavg")
def test_the_load_counts_the_work_running_now():
    """Two processes spinning now count as (at least) two CPUs of other work, whatever the
    1-minute load average says (it lags: work that just ended still counts there)."""
    import subprocess
    import sys

    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.3)
        load, cpus = P.machine_load()
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    assert load >= 2 and cpus == (os.cpu_count() or 1)


def test_imitation_moves_a_fresh_policy_toward_its_teacher():
    """``--imitate gold``: after fitting, the policy agrees with gold's decisions on games it
    did not see far more often than a fresh network does."""
    import torch

    from machu_env.agents.masking import masked_argmax
    from machu_env.agents.policy_file import net_config, new_net
    from machu_env.train.data.imitate import imitate, teacher_data

    net = new_net(net_config([64]), 0)
    obs, masks, actions, results = teacher_data("gold", 2, 30, seed=99, obs_size=377)
    assert len(obs) == len(masks) == len(actions) == len(results) > 1000
    assert masks[np.arange(len(actions)), actions].all() and set(np.unique(results)) <= {-1, 1}

    def agreement() -> float:
        with torch.no_grad():
            chosen = masked_argmax(net(torch.from_numpy(obs))[0], torch.from_numpy(masks))
        return float((chosen.numpy() == actions).mean())

    before = agreement()
    info = imitate(net, "gold", 2, 60, epochs=3, seed=1, batch_size=512)
    assert info["decisions"] > 2000 and info["agreement"] > before
    assert agreement() > before + 0.15


def test_imitate_is_checked(tmp_path):
    with pytest.raises(ValueError, match="imitate must be empty or a compiled heuristic"):
        tiny(tmp_path, imitate="ppo-2p").check()
    with pytest.raises(ValueError, match="imitate_games must be"):
        tiny(tmp_path, imitate="gold", imitate_games=0).check()


def test_a_run_from_init_does_not_imitate(tmp_path):
    """``--imitate`` is a head start for fresh weights: ``--init`` starts from its policy."""
    from machu_env.train.run.selfplay import Trainer

    t = Trainer(tiny(tmp_path / "r", net_arch="256,256", init="ppo-2p", imitate="gold"),
                verbose=False)
    assert t.imitation is None
    t = Trainer(tiny(tmp_path / "f"), verbose=False)
    assert t.imitation["teacher"] == "gold" and t.imitation["games"] == 30


def test_a_resumed_run_counts_its_time_budget_from_where_it_stopped(capsys):
    """A run of a 216-minute budget resumed after 86 minutes: the line says 86 of 216 min and
    about 130 minutes (2.2 h) left, as it would have had the run not stopped (not 0 of 130)."""
    resumed = P.Progress(10**12, 14_778_368, enabled=True, stream=io.StringIO(),
                         every=0.0, seconds=216 * 60.0, spent=86.0 * 60)
    resumed.t0 -= 12  # (12 s into this session)
    resumed.update(14_800_000)
    line = capsys.readouterr().out
    assert " steps, 86.2 of 216 min" in line and "about 2.2 h left" in line, line
    assert resumed.bound(14_800_000, 1000.0) == pytest.approx(14_800_000 + 130 * 60_000,
                                                              rel=0.01)


def test_the_progress_total_is_fixed_for_the_run(capsys):
    """A time budget: the progress counts its minutes, a total that does not move with the
    rate (the step it ends at does: ``bound``); steps alone: the steps; a goal: no total to
    count to, the bound named."""
    budget = P.Progress(375_000_000, enabled=True, stream=io.StringIO(), every=0.0,
                        seconds=300.0)
    assert budget.bound(100_000, 20_000.0) == pytest.approx(100_000 + 20_000 * 300, rel=0.01)
    assert budget.bound(100_000, 0.0) == 375_000_000  # (no rate yet: the steps bound it)
    budget.update(100_000)
    budget.t0 -= 60  # (a minute later, at another rate)
    budget.update(900_000)
    lines = capsys.readouterr().out.splitlines()
    assert all(" of 5 min" in line for line in lines) and len(lines) == 2, lines
    assert "375,000,000" not in "".join(lines)
    steps = P.Progress(1_000_000, enabled=True, stream=io.StringIO(), every=0.0)
    steps.update(1000)
    steps.update(500_000)
    lines = capsys.readouterr().out.splitlines()
    assert all(" / 1,000,000 steps" in line for line in lines), lines
    assert P.Progress(1000, enabled=True, stream=io.StringIO(),
                      seconds=3600.0).bound(500, 10_000.0) == 1000
    goal = P.Progress(20_000_000, enabled=True, stream=io.StringIO(), every=0.0,
                      goal="95% against gold")
    goal.update(65_536)
    line = capsys.readouterr().out
    assert "65,536 (until 95% against gold, at most 20,000,000) steps" in line, line
