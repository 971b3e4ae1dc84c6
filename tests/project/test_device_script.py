"""The device script (``benchmarks/cores_ladder.sh``) and its wheels
(``benchmarks/device_wheels.sh``): each refuses a folder it did not make, and, from a bare
virtual environment with no package registry, the script installs the project from the built
wheels and writes its figures (marked ``slow``: it builds a venv and trains for a few minutes).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LADDER = ROOT / "benchmarks" / "cores_ladder.sh"
WHEELS = ROOT / "benchmarks" / "device_wheels.sh"
# what a lent GPU machine's image holds of the project's needs (the device tool's KINDS.md)
IMAGE = ["numpy", "numba", "matplotlib", "scipy", "tensorboard", "typer", "rich", "tqdm",
         "safetensors", "pillow", "cloudpickle", "pandas"]

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def test_the_device_script_refuses_a_work_folder_that_exists(tmp_path):
    work = tmp_path / "mine"
    work.mkdir()
    (work / "keep.txt").write_text("a user's file")
    r = subprocess.run(["bash", str(LADDER), str(tmp_path / "out")], capture_output=True,
                       text=True, env=dict(os.environ, WORK=str(work)), timeout=60)
    assert r.returncode == 2 and f"WORK={work} exists; name a new folder" in r.stderr
    assert [p.name for p in work.iterdir()] == ["keep.txt"]
    assert not (tmp_path / "out").exists()


def test_the_wheel_builder_refuses_a_folder_it_did_not_make(tmp_path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    (folder / "mine.whl").write_text("a user's wheel")
    r = subprocess.run(["bash", str(WHEELS), str(folder)], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 2 and "is not a folder this script made; name a new folder" in r.stderr
    assert [p.name for p in folder.iterdir()] == ["mine.whl"]


@pytest.mark.slow
def test_from_a_bare_venv_with_no_registry_the_script_installs_the_wheels_and_writes_figures(
        tmp_path):
    """A venv with the image's packages only (torch, numba, numpy...), the wheels built for this
    Python, then the script with pip's index off and the network's proxies dead: it installs
    the project from ``.whl``, trains, and writes ``cores_ladder.json`` with a steps/s figure
    for this machine's cores and the ladder run's rungs."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "torch==2.13.0", "--extra-index-url",
                    "https://download.pytorch.org/whl/cpu", *IMAGE], check=True, timeout=1200)
    env = dict(os.environ, PATH=f"{venv / 'bin'}:{os.environ['PATH']}",
               PYTHON_VERSION=f"{sys.version_info.major}.{sys.version_info.minor}")
    for name in ("PYTHONPATH", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env.pop(name, None)  # (a lent machine sets none of them)
    wheels = tmp_path / "wheels"
    subprocess.run(["bash", str(WHEELS), str(wheels)], cwd=ROOT, env=env, check=True,
                   timeout=600)
    checkout = tmp_path / "checkout"  # the tree a lent machine gets: the repo, .whl beside it
    shutil.copytree(ROOT / "benchmarks", checkout / "benchmarks")
    shutil.copytree(wheels, checkout / ".whl")
    env.update(PIP_NO_INDEX="1", http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9",
               SPEED_MINUTES="0.2", LADDER_MINUTES="0.5", SITE=str(tmp_path / "site"))
    out = tmp_path / "out"
    r = subprocess.run(["bash", str(checkout / "benchmarks" / "cores_ladder.sh"), str(out)],
                       env=env, capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    figures = json.loads((out / "cores_ladder.json").read_text())
    cores = len(os.sched_getaffinity(0))
    run = figures["speed"][f"cpu{cores}"]
    assert run["train_steps_per_second"] > 0 and run["wall_steps_per_second"] > 0
    assert figures["gpu"] is None and "steps_per_second" in figures["ladder"]
    assert (out / "cores_ladder_logs.tar.gz").stat().st_size > 0
    assert "wrote" in r.stdout.splitlines()[-1]
