"""Paths a command is given are checked before anything is created: a symbolic link that leads
back to itself is one line in every command that reads agent files, and ``machu average`` /
``machu population`` refused for a bad member leave no folder behind."""

from __future__ import annotations

import os
import sys

import pytest

from machu_env.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")


@pytest.fixture
def loop(tmp_path):
    os.symlink(tmp_path / "b.safetensors", tmp_path / "a.safetensors")
    os.symlink(tmp_path / "a.safetensors", tmp_path / "b.safetensors")
    return f"policy:{tmp_path / 'a.safetensors'}"


@pytest.mark.parametrize("argv", [
    ["tournament", "--agents", "LOOP,gold", "--players", "2", "--games", "2", "--workers", "1",
     "--no-progress", "--out", "OUT/t"],
    ["average", "--members", "LOOP,ppo-2p", "--out", "OUT/avg.safetensors"],
    ["exploit", "--agent", "LOOP", "--players", "2", "--steps", "64", "--out", "OUT/e"],
    ["average", "--members", "ppo-2p,ppo-2p-v1", "--out", "LOOPFILE"],
])
def test_a_symlink_loop_is_one_line(argv, loop, tmp_path, capsys):
    pytest.importorskip("torch")
    argv = [a.replace("LOOPFILE", loop.split(":", 1)[1]).replace("LOOP", loop)
            .replace("OUT", str(tmp_path / "out")) for a in argv]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and "symbolic link loop" in err and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["average", "population"])
def test_a_refused_member_leaves_no_folder(command, tmp_path, capsys):
    pytest.importorskip("torch")
    out = tmp_path / "new" / "deeper" / "x.safetensors"
    code = main([command, "--members", f"ppo-2p,policy:{tmp_path / 'missing.safetensors'}",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "missing.safetensors" in err and err.count("\n") == 1, err
    assert not (tmp_path / "new").exists()


def test_weights_that_would_overflow_are_named_as_such(tmp_path, capsys):
    pytest.importorskip("torch")
    code = main(["average", "--members", "ppo-2p,ppo-2p-v1", "--weights", "1e308,1e308",
                 "--out", str(tmp_path / "x.safetensors")])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "each weight must be at most 1e+06" in err and "ratios" in err, err
