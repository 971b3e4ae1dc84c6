"""Checkpoints, sizes and interrupts under hostile use, one test per defect — a
policy whose value overflows asked for a hint, checkpoints stopped half-written, networks and
imitation too large for the machine, a resumed run whose config was edited, ``export`` to a
folder or dropping the play mode, ``--eval-games`` checked late, Ctrl-C while ``machu`` starts,
folders an interrupted command left, lenient names. Interrupts drive real processes."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env.agents import policy_file as F  # noqa: E402
from machu_env.cli import main  # noqa: E402
from machu_env.train.run import checkpoints  # noqa: E402
from machu_env.train.run.selfplay import Trainer  # noqa: E402
from tests.train_kit import tiny  # noqa: E402

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
# a run whose every 256 steps end with an evaluation and a checkpoint: most of its time is
# spent checkpointing, where the review's interrupts landed
TINY_RUN = ["--players", "2", "--n-envs", "16", "--n-steps", "16", "--batch-size", "256",
            "--net-arch", "32,32", "--eval-every", "256", "--eval-games", "2",
            "--eval-opponents", "gold", "--snapshot-every", "256", "--imitate", "",
            "--threads", "1"]


def _cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _machu(*argv: str) -> subprocess.Popen:
    """``machu`` as the console script starts it, Ctrl-C at its default (as in a terminal)."""
    return subprocess.Popen([sys.executable, "-c", "import machu_launch; machu_launch.main()",
                             *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# --- item 1: a hint whose value is not a number ---------------------------------------------------
def overflowing_policy(path: Path) -> Path:
    """The review's file, within the weight limits: relu, 8 layers of 64, every weight 1e4."""
    config = F.net_config([64] * 8, "relu", 1)
    state = {k: torch.full_like(v, 1e4) for k, v in F.new_net(config, 0).state_dict().items()}
    return F.save(path, state, config)


def test_a_hint_from_a_network_that_overflows_answers_a_null_value(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from machu_env.web import Limits, create_app

    overflowing_policy(tmp_path / "agents" / "huge.safetensors")
    app = create_app(agents_dir=tmp_path / "agents", limits=Limits(agent_seconds=600))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        game = client.post("/api/games", json={"num_players": 2, "seat": 0,
                                               "opponents": ["random"], "seed": 1}).json()
        r = client.get(f"/api/games/{game['id']}/hint",
                       params={"agent": "policy:huge.safetensors"})
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["value"] is None and hint["actions"]  # (the probabilities are still given)
    assert hint["legal_probability"] == pytest.approx(1.0, abs=1e-4)


# --- item 2: checkpoints that survive an interrupt ------------------------------------------------
def _check_whole(run: Path) -> int:
    """The run's checkpoint is whole: its step, agreed by every file."""
    steps, _, _ = checkpoints.read_state(run)
    _, _, info = F.parse(F.read_bytes(run / checkpoints.LATEST))
    assert info["num_timesteps"] == steps
    state = torch.load(run / checkpoints.OPTIMIZER, weights_only=True)
    _, updates, _ = checkpoints.read_state(run)
    # the step-0 checkpoint (the starting policy, written before the first update) has no
    # moments yet; every later one has them (a busy machine can stop a run at step 0)
    assert bool(state["state"]) == (updates > 0), f"moments after {updates} updates"
    assert not list(run.rglob(".*.partial-*")), "a temporary file was left behind"
    return steps


@POSIX
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_run_stopped_at_random_points_keeps_a_whole_checkpoint(tmp_path, signum):
    rng = random.Random(int(signum) * 54)
    for trial in range(3):
        run = tmp_path / f"run{trial}"
        proc = _machu("train", "--out", str(run), "--timesteps", "100000000", *TINY_RUN)
        try:
            deadline = time.monotonic() + 300
            while not (run / checkpoints.STATE).exists():
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "no checkpoint in 300 s"
                time.sleep(0.05)
            time.sleep(rng.uniform(0.2, 2.5))  # somewhere among the 256-step checkpoints
            proc.send_signal(signum)
        finally:
            _, err = _finish(proc)
        assert proc.returncode == (130 if signum == signal.SIGINT else 143), err
        lines = err.strip().splitlines()
        assert "Traceback" not in err and len(lines) == 2, err
        steps = _check_whole(run)
        # what was kept and how to go on, before the line that says what stopped it
        assert f"kept the checkpoint at {steps:,} steps in {run}" in lines[0], err
        assert f"go on with: machu train --out {run} --resume" in lines[0], err
        rows = [int(line.split(",")[0]) for line in
                (run / "history.csv").read_text().splitlines()[1:]]
        assert rows[-1] >= steps and len(set(rows)) == len(rows)
        config = tiny(run, timesteps=steps + 256, eval_every=256, eval_games=2,
                      eval_opponents="gold", n_steps=16, threads=1)
        Trainer(config, resume=True, verbose=False).run()  # and it resumes
        rows = [int(line.split(",")[0]) for line in
                (run / "history.csv").read_text().splitlines()[1:]]
        assert len(set(rows)) == len(rows) and _check_whole(run) == steps + 256


def test_an_interrupt_inside_a_checkpoint_waits_for_the_whole_checkpoint(tmp_path, monkeypatch):
    """Ctrl-C arriving while the optimizer's state is written: the checkpoint is finished (all
    its files of one step), then the interrupt is raised."""
    import os

    run = tmp_path / "run"
    trainer = Trainer(tiny(run, timesteps=512), verbose=False)
    trainer.run()
    real_save = torch.save

    def save_then_interrupt(obj, f, *a, **k):
        os.kill(os.getpid(), signal.SIGINT)  # (held until the checkpoint is written)
        return real_save(obj, f, *a, **k)

    monkeypatch.setattr(torch, "save", save_then_interrupt)
    trainer.model.num_timesteps = 768
    # Python's own Ctrl-C (an earlier test in this process may have left another handler)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            trainer.save(best=False)
    finally:
        signal.signal(signal.SIGINT, before)
    assert _check_whole(run) == 768


def test_a_killed_write_is_refused_in_words_not_resumed(tmp_path, capsys):
    """Files of two steps (what SIGKILL between two writes would leave): refused, nothing
    written; a file left under its temporary name is not taken for the real one."""
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=1024), verbose=False).run()
    (run / checkpoints.LATEST).write_bytes((run / "checkpoints" /
                                            "step_0.safetensors").read_bytes())
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    code, _, err = _cli(["train", "--resume", "--out", str(run), "--timesteps", "4096"], capsys)
    assert code == 2 and "is not the file of the checkpoint" in err and "1,024" in err
    assert err.count("\n") == 1
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_run_stopped_before_its_first_checkpoint_can_be_started_again(tmp_path, capsys):
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=3072), verbose=False).run()  # (1,024 steps a rollout)
    (run / checkpoints.STATE).unlink()  # as if stopped before latest.json was first written
    code, _, err = _cli(["train", "--resume", "--out", str(run)], capsys)
    assert code == 2 and "stopped before its first checkpoint" in err and "without --resume" in err
    Trainer(tiny(run, timesteps=1024), verbose=False).run()  # a new run takes the folder
    assert _check_whole(run) == 1024
    assert not (run / "checkpoints" / "step_3072.safetensors").exists()
    assert max(int(r.split(",")[0]) for r in (run / "history.csv").read_text().split()[1:]) \
        == 1024


# --- items 3, 4, 8: sized and checked before any work ---------------------------------------------
@pytest.mark.parametrize("argv,words", [
    (["--net-arch", "4096,4096,4096"], ["--net-arch '4096,4096,4096'", "MiB; agent files are "
                                        "at most 64 MiB"]),
    (["--imitate-games", "100000"], ["--imitate-games 100,000 needs about", "at most"]),
    (["--eval-games", "2000000"], ["--eval-games must be an int in 1..100000, got 2000000"]),
    (["--net-arch", " 256"], ["--net-arch must be"]),
    (["--net-arch", "+256"], ["--net-arch must be"]),
    (["--net-arch", "\u0663"], ["--net-arch must be"]),  # an Arabic-Indic 3
    (["--net-arch", "shared: 16"], ["--net-arch must be"]),
    (["--net-arch", "0256"], ["--net-arch must be"]),
])
def test_sizes_and_counts_are_refused_before_any_work(argv, words, tmp_path, capsys):
    t0 = time.perf_counter()
    code, _, err = _cli(["train", "--out", str(tmp_path / "run"), *argv], capsys)
    text = " ".join(err.split())
    assert code == 2 and all(w in text for w in words) and err.count("\n") == 1, err
    assert "num_envs" not in err and not (tmp_path / "run").exists()
    assert time.perf_counter() - t0 < 60  # (no imitation, no training started)


def test_no_agent_file_is_written_beyond_the_size_every_reader_accepts(tmp_path):
    config = F.net_config([4096] * 3)
    with pytest.raises(ValueError, match="at most 64 MiB"):
        F.check_size(config, "x")
    assert F.file_bytes(F.net_config([256, 256])) < 2 * 2**20  # (the shipped networks fit)


def test_the_imitation_memory_bound_follows_the_machine(monkeypatch):
    from machu_env.train.data import imitate

    monkeypatch.setattr(imitate, "available_memory", lambda: 2**30)
    with pytest.raises(ValueError, match=r"imitate_games 2,000 needs about 1\.4 GiB.*at most "
                                         r"1,0\d\d games"):
        imitate.check_memory(2000, 377)
    imitate.check_memory(1000, 377)  # fits


# --- item 5: a resumed run whose config.json was edited -------------------------------------------
@pytest.mark.parametrize("edit", [{"observation": 2}, {"observation": 3},
                                  {"net_arch": "64,64"}])
def test_resume_refuses_a_network_that_is_not_the_runs(edit, tmp_path, capsys):
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=512), verbose=False).run()
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, **edit}))
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    code, _, err = _cli(["train", "--resume", "--out", str(run), "--timesteps", "2048"], capsys)
    assert code == 2 and "is not this run's network" in err and err.count("\n") == 1, err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_resume_refuses_an_optimizer_state_of_another_network(tmp_path, capsys):
    run, other = tmp_path / "run", tmp_path / "other"
    Trainer(tiny(run, timesteps=512), verbose=False).run()
    Trainer(tiny(other, timesteps=512, net_arch="16,16"), verbose=False).run()
    (run / checkpoints.OPTIMIZER).write_bytes((other / checkpoints.OPTIMIZER).read_bytes())
    state = json.loads((run / checkpoints.STATE).read_text())
    del state["sha256"]  # (a run written before the digests: the shapes are still checked)
    (run / checkpoints.STATE).write_text(json.dumps(state))
    code, _, err = _cli(["train", "--resume", "--out", str(run), "--timesteps", "2048"], capsys)
    assert code == 2 and "not this run's optimizer state" in err, err


# --- items 6 and 7: export ------------------------------------------------------------------------
def _export(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "machu_env.train.run.export", *argv],
                          capture_output=True, text=True, timeout=120)


def test_export_to_a_folder_or_under_a_file_is_one_line(tmp_path):
    source = F.save(tmp_path / "a.safetensors", F.new_net(F.net_config([8]), 0).state_dict(),
                    F.net_config([8]))
    (tmp_path / "folder.safetensors").mkdir()
    (tmp_path / "file").write_text("x")
    for target, words in [(tmp_path / "folder.safetensors", "is a folder"),
                          (tmp_path / "file" / "b.safetensors", "is a file, not a folder")]:
        r = _export(str(source), str(target))
        assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.startswith("export: error:") and words in r.stderr
        assert r.stderr.count("\n") == 1
    assert (tmp_path / "file").read_text() == "x"


def test_export_keeps_the_play_mode_and_says_it(tmp_path):
    config = F.net_config([8])
    source = F.save(tmp_path / "hot.safetensors", F.new_net(config, 0).state_dict(), config,
                    play={"temperature": 100})
    r = _export(str(source), str(tmp_path / "out.safetensors"))
    assert r.returncode == 0 and "temperature 100" in r.stdout, r.stderr
    assert F.play_of(F.read_bytes(tmp_path / "out.safetensors")) == {"temperature": 100.0}
    r = _export(str(source), str(tmp_path / "cold.safetensors"), "--play-temperature", "0")
    assert r.returncode == 0 and "most probable" in r.stdout
    assert F.play_of(F.read_bytes(tmp_path / "cold.safetensors")) == {"temperature": 0.0}


# --- low: Ctrl-C while machu starts ---------------------------------------------------------------
@POSIX
def test_ctrl_c_in_the_first_second_is_one_line(tmp_path):
    """While Python imports the engine, while typer parses, when the command starts: one line
    (SIGINT and SIGTERM alike)."""
    rng = random.Random(5)
    for trial in range(10):
        signum, word, code = [(signal.SIGINT, "interrupted", 130),
                              (signal.SIGTERM, "terminated (SIGTERM)", 143)][trial % 2]
        proc = _machu("tournament", "--agents", "random,gold", "--players", "2", "--games",
                      "4", "--workers", "1", "--no-progress", "--out", str(tmp_path / f"t{trial}"))
        time.sleep(rng.uniform(0.1, 0.8))
        proc.send_signal(signum)
        _, err = _finish(proc)
        if proc.returncode == 0:  # (it finished first: nothing to interrupt)
            continue
        assert proc.returncode == code and "Traceback" not in err, err
        assert err.strip() in (f"machu: {word}", f"machu tournament: {word}"), err



@pytest.mark.parametrize("signum,word,code", [(signal.SIGINT, "interrupted", 130),
                                              (signal.SIGTERM, "terminated (SIGTERM)", 143),
                                              (signal.SIGHUP, "terminated (SIGHUP)", 129)])
def test_a_signal_while_typer_parses_exits_with_its_own_status(signum, word, code, capsys,
                                                               monkeypatch):
    """A stop signal raised while typer parses, before any command runs: its line and its exit
    status (128 + the signal), not Ctrl-C's for every signal."""
    import machu_env.cli as cli
    from machu_env.cli.interrupts import stopping

    def parsing(*args, **kwargs):
        raise stopping(signum)

    monkeypatch.setattr(cli, "app_commands", lambda: {"tournament"})
    monkeypatch.setattr(cli, "app", parsing)
    assert cli.main(["tournament", "--games", "2"]) == code
    assert capsys.readouterr().err.strip() == f"machu tournament: {word}"


_SIGNAL_IN_AN_IMPORT = """
import builtins, os, signal, sys, time
import machu_launch
real = builtins.__import__
def imported(name, *args, **kwargs):
    if name == "machu_env.cli":
        os.kill(os.getpid(), signal.{signal})
        time.sleep(0.2)
        {then}
    return real(name, *args, **kwargs)
builtins.__import__ = imported
machu_launch.main()
"""


@POSIX
@pytest.mark.parametrize("signum,line,code", [("SIGINT", "machu: interrupted", 130),
                                              ("SIGTERM", "machu: terminated (SIGTERM)", 143)])
@pytest.mark.parametrize("then", ["raise TypeError('expected a message argument')", "pass"])
def test_a_signal_during_the_imports_is_one_line_once_they_end(signum, line, code, then):
    """A signal while machu-env is imported is noted, not raised (raised, it can abort the
    process inside torch's C++ modules or come out as CPython's TypeError in ssl.py): the import
    ends, or fails, then one line, its exit status, no traceback, and the command does not run."""
    script = _SIGNAL_IN_AN_IMPORT.format(signal=signum, then=then)
    r = subprocess.run([sys.executable, "-c", script, "tournament", "--agents", "random,gold",
                        "--games", "2"], capture_output=True, text=True, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (r.returncode, r.stderr.strip()) == (code, line), r.stderr
    assert r.stdout == ""


# --- low: what an interrupted command leaves ------------------------------------------------------
def test_an_interrupted_probe_leaves_no_output_folder(tmp_path, capsys, monkeypatch):
    import machu_env.train.probe.exploit as exploit

    def stopped(*args, **kwargs):  # the probe's first write, then Ctrl-C
        from machu_env.core import files

        files.make_folder(Path(args[4]))
        files.write_text(Path(args[4]) / "curve.csv", "timesteps\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(exploit, "_exploit", stopped)
    code, _, err = _cli(["exploit", "--agent", "random", "--steps", "512", "--out",
                         str(tmp_path / "probe")], capsys)
    assert code == 130 and err.strip() == "machu exploit: interrupted"
    assert not (tmp_path / "probe").exists()
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("mine")
    code, _, _ = _cli(["exploit", "--agent", "random", "--steps", "512", "--out",
                       str(tmp_path / "kept")], capsys)
    assert code == 130 and [p.name for p in (tmp_path / "kept").iterdir()] == ["notes.txt"]


def test_a_tournament_stopped_while_writing_its_outputs_leaves_nothing(tmp_path, capsys,
                                                                       monkeypatch):
    import machu_env.agents.tournament_files as T

    def stopped(summary, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(T, "_chart", stopped)
    out = tmp_path / "t"
    code, _, err = _cli(["tournament", "--agents", "random,gold", "--players", "2", "--games",
                         "2", "--workers", "1", "--no-progress", "--records", "--out", str(out)],
                        capsys)
    assert code == 130 and not out.exists()  # no records, no summary without its chart


# --- low: --init takes the init file's observation ------------------------------------------------
def test_init_takes_the_observation_of_the_init_file(tmp_path):
    from machu_env.agents import shipped_policy

    version = F.observation_version(F.parse(F.read_bytes(shipped_policy("best-2p")))[1])
    assert version > 1  # (the case the review hit: the default was version 1)
    trainer = Trainer(tiny(tmp_path / "run", init="best-2p", net_arch="", observation=0),
                      verbose=False)
    assert trainer.config.observation == version
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert saved["observation"] == version and saved["net_arch"]


# --- low: lenient names ---------------------------------------------------------------------------
def test_a_search_of_a_search_is_refused(capsys):
    from machu_env.agents import make_agent

    with pytest.raises(ValueError, match="wraps a trained policy"):
        make_agent("search:search:best-2p")
    code, _, err = _cli(["tournament", "--agents", "search:search:best-2p,gold", "--players",
                         "2", "--games", "2", "--no-progress"], capsys)
    assert code == 2 and "wraps a trained policy" in err


def test_a_population_names_each_policy_once(tmp_path, capsys):
    from machu_env.agents.catalogue import resolve

    code, _, err = _cli(["population", "--members", f"best-2p,{resolve('best-2p')}", "--out",
                         str(tmp_path / "pop.safetensors"), "--games", "2"], capsys)
    assert code == 2 and "are the same policy" in err, err
    assert not (tmp_path / "pop.safetensors").exists()
