"""The layout shows the architecture: layers as folders whose imports only go down
(import-linter's contracts, run over the package as its wheel installs it: ``machu_env/``,
``agents/`` and ``train/`` of the checkout as one package), the picture in docs/architecture.md
drawn from the code, small modules with names that do not collide."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import layers  # noqa: E402

pytest.importorskip("importlinter")
SOURCES = [ROOT / "machu_env", ROOT / "agents", ROOT / "train"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The checkout's package laid out as its wheel installs it."""
    tmp = tmp_path_factory.mktemp("installed")
    return layers.installed(layers.source_copy(tmp), tmp)


def test_the_import_contracts_hold(site):
    result = layers.lint(site, capture=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
    # the top-level agents/ and train/ are the package's machu_env.agents and machu_env.train
    assert (site / "machu_env" / "agents" / "policy.py").is_file()
    assert (site / "machu_env" / "train" / "run" / "selfplay.py").is_file()


UPWARD = [("machu_env/engine/rng.py", "machu_env.web"), ("train/probe/ladder.py", "machu_env.cli"),
          ("agents/seatings.py", "machu_env.train")]


def test_an_upward_import_breaks_the_contract():
    """The contracts fail by themselves on a change that imports upwards, in the engine as in
    the top-level agents/ and train/ (one copy, one build, three upward imports)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = layers.source_copy(Path(tmp))
        for module, upward in UPWARD:
            path = source / module
            path.write_text(path.read_text() + f"\nimport {upward}  # an upward import\n")
        result = layers.lint(layers.installed(source, Path(tmp)), capture=True)
    assert result.returncode != 0
    for module, upward in UPWARD:
        name = "machu_env." + module.removeprefix("machu_env/").removesuffix(".py") \
            .replace("/", ".")
        assert f"{name} -> {upward}" in result.stdout, result.stdout


def test_the_architecture_picture_is_drawn_from_the_code():
    text = layers.DOC.read_text()
    drawn = text[text.index(layers.BEGIN) + len(layers.BEGIN):text.index(layers.END)].strip()
    assert drawn == layers.mermaid(), "run: python scripts/layers.py draw"


def test_train_is_sorted_by_job_in_small_folders():
    """``train/`` holds folders a reader can name by job, none over 12 modules, and no module
    of its own but its ``__init__``."""
    train = ROOT / "train"
    assert [p.name for p in train.glob("*.py")] == ["__init__.py"]
    folders = {p.name: len([m for m in p.glob("*.py") if m.name != "__init__.py"])
               for p in train.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"ppo", "run", "recipes", "probe", "data"} <= set(folders), folders
    assert max(folders.values()) <= 12, folders


def test_no_function_is_longer_than_80_lines():
    """Small functions with one job: none in the package over 80 lines, from its ``def`` to
    its last line (docstring included)."""
    import ast

    long = []
    for path in (p for root in SOURCES for p in root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.end_lineno - node.lineno + 1 > 80:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not long, long


def test_few_top_level_modules_small_modules_and_no_name_twice():
    top = sorted(p.name for p in (ROOT / "machu_env").glob("*.py"))
    assert len(top) <= 10, top
    files = [p for root in SOURCES for p in root.rglob("*.py")]
    long = {str(p.relative_to(ROOT)): n for p in files
            if (n := len(p.read_text().splitlines())) > 450}
    assert not long, long
    names = [p.name for p in files if p.name not in ("__init__.py", "__main__.py")]  # (Python's)
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


CIRCLES = """
import json, grimp
graph = grimp.build_graph("machu_env", cache_dir=None)
print(json.dumps(sorted({" -> ".join((*chain, module))
    for module in graph.modules
    for imported in graph.find_modules_directly_imported_by(module)
    if (chain := graph.find_shortest_chain(importer=imported, imported=module))})))
"""


def _circles(folder: Path) -> list[str]:
    """Every import circle of the package laid out in ``folder`` (as ``layers.installed`` lays
    it out; grimp's graph, in a fresh process so that the checkout does not stand in for it)."""
    import json

    env = {**os.environ, "PYTHONPATH": str(folder)}
    result = subprocess.run([sys.executable, "-c", CIRCLES], cwd=folder, env=env,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def test_no_import_circle(site):
    """No module imports, directly or through others, a module that imports it back (lazy
    imports inside functions count too); a circle added to a copy is found."""
    pytest.importorskip("grimp")
    assert _circles(site) == []
    with tempfile.TemporaryDirectory() as tmp:
        source = layers.source_copy(Path(tmp))
        svg = source / "machu_env" / "views" / "svg.py"
        svg.write_text(svg.read_text() + "\nimport machu_env.views.render  # a circle\n")
        folder = layers.installed(source, Path(tmp))
        assert any("machu_env.views.svg" in c and "machu_env.views.render" in c
                   for c in _circles(folder))


LAUNCHER = """
import json, grimp
graph = grimp.build_graph("machu_env", include_external_packages=True, cache_dir=None)
print(json.dumps(sorted(graph.find_modules_that_directly_import("machu_launch")
                        if "machu_launch" in graph.modules else [])))
"""


def test_the_package_never_imports_the_launcher(site):
    """``machu_launch`` (the script's first module) imports the command line; nothing in the
    package imports it back (the launcher hands its compile-worker entry down instead)."""
    pytest.importorskip("grimp")
    import json

    result = subprocess.run([sys.executable, "-c", LAUNCHER], cwd=site,
                            env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True,
                            text=True, check=True)
    assert json.loads(result.stdout) == []
