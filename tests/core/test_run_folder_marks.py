"""A folder a command writes into knows exactly which files it wrote (``core.run_files``): a
user's file there is never overwritten or removed, byte for byte, whatever the command does."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from machu_env.core import files
from machu_env.core.run_files import MARK, RunFolder


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (but the marks) by its bytes' digest."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MARK}


def test_a_claimed_folder_records_its_files_and_refuses_a_users(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "mine.txt").write_bytes(b"the user's")
    folder = RunFolder.claim(out, "machu test")
    try:
        assert not (out / MARK).exists()  # nothing written yet: no mark
        files.write_json(out / "summary.json", {"a": 1})
        files.write_json(out / "summary.json", {"a": 2})  # its own file: written again
        with pytest.raises(ValueError, match="mine.txt was not written by this machu test"):
            files.write_text(out / "mine.txt", "over")
        assert (out / "mine.txt").read_bytes() == b"the user's"
        mark = json.loads((out / MARK).read_text())
        assert list(mark["files"]) == ["summary.json"]
        # the user replaces the run's file with a copy of their own: no longer the run's
        (out / "summary.json").unlink()
        (out / "summary.json").write_text('{"user": true}')
        assert not folder.wrote(out / "summary.json")
        assert not files.remove(out / "summary.json")
        folder.remove_written()
        assert _snapshot(out) == {"mine.txt": hashlib.sha256(b"the user's").hexdigest(),
                                  "summary.json": hashlib.sha256(b'{"user": true}').hexdigest()}
    finally:
        folder.release()


def test_remove_written_removes_only_its_files_and_the_folders_it_made(tmp_path):
    out = tmp_path / "newp" / "q" / "r"
    folder = RunFolder.claim(out, "machu test")
    try:
        files.make_folder(out / "member_0")
        files.write_bytes(out / "member_0" / "exploiter.safetensors", b"x")
        files.write_bytes(out / "curve.csv", b"c")
    finally:
        folder.release()
    folder.remove_written()
    assert not (tmp_path / "newp").exists()  # every folder it created, none left


def test_a_train_start_stopped_before_writing_leaves_no_mark_and_a_later_start_removes_nothing(
        tmp_path, monkeypatch):
    """Ctrl-C in the imitation (nothing written yet): no mark stays; the user then copies files
    with the run's names into the folder; a new start refuses it and changes nothing."""
    from machu_env.train.data import imitate
    from machu_env.train.run.config import TrainConfig
    from machu_env.train.run.selfplay import Trainer

    out = tmp_path / "d"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(imitate, "head_start", stop)
    config = TrainConfig(players=2, timesteps=1024, n_envs=8, n_steps=128,
                         batch_size=512, out=str(out),
                         imitate="gold", imitate_games=8, threads=1)
    with pytest.raises(KeyboardInterrupt):
        Trainer(config, verbose=False)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    (out / "best.safetensors").write_bytes(b"the user's agent")
    (out / "history.csv").write_text("timesteps,win_vs_gold\n1,0.5\n")
    before = _snapshot(out)
    with pytest.raises(ValueError, match="not written by a machu train run"):
        Trainer(TrainConfig(players=2, timesteps=1024, n_envs=8, n_steps=128, batch_size=512,
                            out=str(out), imitate="", threads=1), verbose=False)
    assert _snapshot(out) == before and not (out / MARK).exists()


def test_a_recipe_run_refuses_a_folder_holding_the_users_agent_file(tmp_path):
    from machu_env.train.recipes import recipes

    out = tmp_path / "d"
    out.mkdir()
    mine = out / "agent.safetensors"
    mine.write_bytes(b"the user's agent, with its metadata")
    before = _snapshot(out)
    with pytest.raises(ValueError, match="agent.safetensors, not written by this recipe run"):
        recipes.run("best-2p", out, minutes=1, verbose=False, threads=1)
    assert _snapshot(out) == before and sorted(os.listdir(out)) == ["agent.safetensors"]


def test_an_earlier_versions_mark_is_taken_over_for_its_run_files_only(tmp_path):
    from machu_env.train.run import run_folder

    out = tmp_path / "old"
    (out / "checkpoints").mkdir(parents=True)
    (out / MARK).write_text(json.dumps({"kind": "machu train run folder"}))
    for name in ("latest.safetensors", "checkpoints/step_8.safetensors", "notes.txt"):
        (out / name).write_bytes(b"x")
    folder = run_folder.claim(out)
    try:
        folder.adopt(run_folder.is_run_file)
        assert folder.wrote(out / "latest.safetensors")
        assert folder.wrote(out / "checkpoints" / "step_8.safetensors")
        assert not folder.wrote(out / "notes.txt")
    finally:
        folder.release()
