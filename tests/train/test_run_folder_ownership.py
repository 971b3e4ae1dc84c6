"""A run removes or overwrites only what it wrote: a folder of the user's files given as
``--out`` is refused before any work and left byte for byte as it was; a run reads no input
from its own folder; a probe never removes an earlier probe's outputs."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from machu_env.cli import main  # noqa: E402
from machu_env.core.run_files import RunFolder  # noqa: E402
from machu_env.train.run import run_folder  # noqa: E402
from machu_env.train.run.selfplay import Trainer  # noqa: E402
from tests.train_kit import tiny  # noqa: E402

TINY = ["--players", "2", "--n-envs", "16", "--n-steps", "16", "--batch-size", "256",
        "--net-arch", "32,32", "--eval-games", "2", "--eval-opponents", "gold", "--imitate", "",
        "--threads", "1", "--timesteps", "512"]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _users_folder(folder: Path) -> dict[str, bytes]:
    """The review's folders: an agent and its history, a probe's outputs, a checkpoint folder."""
    folder.mkdir(parents=True)
    (folder / "best.safetensors").write_bytes(b"my best agent")
    (folder / "history.csv").write_text("timesteps,win_vs_gold\n1,0.5\n")
    (folder / "summary.json").write_text('{"probe": "mine"}')
    (folder / "curve.png").write_bytes(b"\x89PNG mine")
    (folder / "snapshots").mkdir()
    (folder / "snapshots" / "step_7.safetensors").write_bytes(b"my snapshot")
    return _snapshot(folder)


def _cli(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err


def test_a_folder_of_the_users_files_is_refused_and_left_untouched(tmp_path, capsys):
    before = _users_folder(tmp_path / "mine")
    code, err = _cli(["train", "--out", str(tmp_path / "mine"), *TINY], capsys)
    assert code == 2 and "not written by a machu train run" in err and "nothing was" in err
    assert err.count("\n") == 1 and "best.safetensors" in err
    assert _snapshot(tmp_path / "mine") == before


def test_a_start_refused_for_another_reason_removes_nothing(tmp_path, capsys):
    before = _users_folder(tmp_path / "mine")
    code, err = _cli(["train", "--out", str(tmp_path / "mine"), *TINY, "--pool", "nobody:1"],
                     capsys)
    assert code == 2
    assert _snapshot(tmp_path / "mine") == before


@pytest.mark.parametrize("name", ["snapshots/step_7.safetensors", "best.safetensors"])
def test_init_from_inside_the_run_folder_is_refused(name, tmp_path, capsys):
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=1024), verbose=False).run()
    shutil.copyfile(run / "latest.safetensors", run / "snapshots" / "step_7.safetensors")
    (run / "latest.json").unlink()  # (a run that never checkpointed: its files are cleared)
    before = _snapshot(run)
    code, err = _cli(["train", "--out", str(run), *TINY, "--net-arch", "",
                      "--init", f"policy:{run / name}"], capsys)
    assert code == 2 and "lies inside the run folder" in err and "--init" in err, err
    assert _snapshot(run) == before


def test_frozen_and_evaluated_files_inside_the_run_folder_are_refused(tmp_path, capsys):
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=1024), verbose=False).run()
    (run / "latest.json").unlink()
    before = _snapshot(run)
    for option in ("--frozen", "--eval-agents"):
        code, err = _cli(["train", "--out", str(run), *TINY, option,
                          f"policy:{run / 'best.safetensors'}"], capsys)
        assert code == 2 and f"{option} " in err and "inside the run folder" in err, err
        assert _snapshot(run) == before


def test_a_run_folder_of_its_own_is_cleared_only_of_its_own_files(tmp_path):
    run = tmp_path / "run"
    Trainer(tiny(run, timesteps=1024), verbose=False).run()
    (run / "latest.json").unlink()
    (run / "notes.txt").write_text("mine")
    Trainer(tiny(run, timesteps=1024), verbose=False).run()  # (a new run takes its own folder)
    assert (run / "notes.txt").read_text() == "mine" and (run / "latest.json").exists()


def test_clearing_a_folder_without_the_mark_removes_nothing(tmp_path):
    before = _users_folder(tmp_path / "mine")
    run_folder.clear_unfinished(RunFolder(tmp_path / "mine", run_folder.COMMAND))
    assert _snapshot(tmp_path / "mine") == before


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_in_the_imitation_leaves_the_users_files(tmp_path):
    """The review's case: a probe's folder given to ``machu train`` (which imitates first),
    then Ctrl-C: the folder is refused before the imitation, its files stay."""
    before = _users_folder(tmp_path / "probe")
    proc = subprocess.Popen([sys.executable, "-c", "import machu_launch; machu_launch.main()",
                             "train", "--out", str(tmp_path / "probe"), "--players", "2",
                             "--imitate-games", "50", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err
    assert _snapshot(tmp_path / "probe") == before


def test_a_probe_never_removes_an_earlier_probes_outputs(tmp_path, capsys):
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "summary.json").write_text('{"earlier": true}')
    (folder / "curve.png").write_bytes(b"earlier")
    before = _snapshot(folder)
    code, err = _cli(["exploit", "--agent", "gold", "--players", "2", "--steps", "64",
                      "--out", str(folder)], capsys)
    assert code == 2 and "earlier probe's curve.png, summary.json" in err, err
    assert _snapshot(folder) == before
