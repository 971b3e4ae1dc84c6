"""Packaging: the compiled engine's cache lives outside the package and follows every source it
depends on; the project installs under its own namespace.

The two Quickstart commands in one fresh virtual environment, ``pip uninstall`` leaving nothing
behind, and ``machu`` from another folder are checked by ``.ci/run``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import machu_env
from machu_env import Game, _cache

PACKAGE = Path(machu_env.__file__).resolve().parent

SCORES = """
import json, random
import machu_env
game = machu_env.Game(2, seed=4)
rng = random.Random(0)
while not game.is_over:
    game.play(rng.choice(game.legal_action_ids()))
print(json.dumps({"file": machu_env.__file__, "gold": [s["gold"] for s in game.scores()],
                  "cards": [p["num_cards"] for p in game.view()["players"]]}))
"""


def test_numba_writes_nothing_into_the_package():
    Game(2, seed=0).play(Game(2, seed=0).legal_action_ids()[0])
    for root in _cache.source_roots().values():
        assert not list(root.rglob("*.nbi")) and not list(root.rglob("*.nbc")), root
    assert list(_cache.cache_dir().rglob("*.nbi"))  # the engine's cache is here instead
    assert PACKAGE not in _cache.cache_dir().parents


def test_an_edited_constant_takes_effect_without_clearing_the_cache(tmp_path):
    """Numba alone keeps a kernel compiled with the old constant: the cache is keyed by every
    source instead (the README invites corrections of data.py)."""
    copy = tmp_path / "src" / "machu_env"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    env.pop("MACHU_ENV_CACHE_DIR", None)

    def run() -> dict:
        out = subprocess.run([sys.executable, "-c", SCORES], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout)

    before = run()
    assert before["file"].startswith(str(copy))
    data = copy / "rules" / "data.py"
    text = data.read_text()
    assert "CARD_GOLD" in text
    data.write_text(text + "\nCARD_GOLD = CARD_GOLD + 10\n")
    after = run()
    assert after["cards"] == before["cards"]
    assert after["gold"] == [g + 10 * c for g, c in zip(before["gold"], before["cards"],
                                                         strict=True)]


def test_the_subpackages_install_under_the_project_namespace(tmp_path):
    code = ("import importlib.util as u, machu_env.agents, machu_env.train;"
            "print(u.find_spec('agents'), u.find_spec('train'), u.find_spec('benchmarks'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["None", "None", "None"]


def test_the_wheel_installs_agents_and_train_inside_the_package(tmp_path):
    """The checkout's top-level agents/ and train/ (the design card's tree) are the wheel's
    machu_env/agents and machu_env/train, with their data files; no top-level package."""
    import zipfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import layers

    layers.installed(layers.source_copy(tmp_path, agent_files=True), tmp_path)
    names = set(zipfile.ZipFile(layers.wheel_file(tmp_path)).namelist())
    root = Path(__file__).resolve().parents[2]
    for folder in ("agents", "train"):
        for path in (root / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                assert f"machu_env/{path.relative_to(root).as_posix()}" in names, path
    assert not any(n.startswith(("agents/", "train/")) for n in names)
