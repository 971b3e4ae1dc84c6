"""The layers of machu_env, read from the code: import-linter's contracts and the picture.

    python scripts/layers.py check      # lint-imports with the contracts of pyproject.toml
    python scripts/layers.py draw       # rewrite the layer picture in docs/architecture.md

Both read the package as it installs: the checkout's wheel (setuptools lays out ``machu_env/``,
``agents/`` and ``train/`` as ``pyproject.toml`` says) unpacked into a temporary folder. There
import-linter checks the contracts and grimp (import-linter's graph) counts the imports between
layers for the picture, so the picture cannot drift from the code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN, END = "<!-- layers:begin (scripts/layers.py draw) -->", "<!-- layers:end -->"


def layers() -> list[list[str]]:
    """The layers of the first contract in pyproject.toml, top first (siblings in a list)."""
    text = (ROOT / "pyproject.toml").read_text()
    block = text[text.index('type = "layers"'):]
    block = block[block.index("[") + 1:block.index("]")]
    return [[m.strip() for m in line.split("|")]
            for line in re.findall(r'"([^"]+)"', block)]


def check() -> int:
    """Run lint-imports over the checkout's package as it installs; its exit status."""
    with tempfile.TemporaryDirectory() as tmp:
        return lint(installed(source_copy(Path(tmp)), Path(tmp))).returncode


# what the wheel is built from (the packages' folders are pyproject's package-dir)
WHEEL_SOURCES = ("pyproject.toml", "README.md", "machu_launch.py", "machu_env", "agents", "train")


def source_copy(into: Path, agent_files: bool = False) -> Path:
    """A copy of what the checkout's wheel is built from, in ``into/src`` (the agent files
    only with ``agent_files``): the build writes its folders there, not in the checkout, and a
    test may break the copy."""
    src = into / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc",
                                    *(() if agent_files else ("*.safetensors",)))
    for name in WHEEL_SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=ignore)
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    return src


def installed(source: Path, into: Path) -> Path:
    """The package built from ``source`` (``source_copy``) laid out as pip installs it, under
    ``into/site``: its wheel built by pip (setuptools reads the package folders from
    ``pyproject.toml``), then unpacked (a pure wheel installs by unpacking; only its modules
    are needed here). Returns the folder that holds ``machu_env``."""
    import setuptools

    isolated = int(setuptools.__version__.split(".")[0]) < 77  # (pyproject's build requirement)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(into / "wheel"), *([] if isolated else ["--no-build-isolation"]),
                    str(source)], check=True, capture_output=True, text=True)
    site = into / "site"
    with zipfile.ZipFile(wheel_file(into)) as wheel:
        wheel.extractall(site, [n for n in wheel.namelist() if n.endswith(".py")])
    return site


def wheel_file(into: Path) -> Path:
    """The wheel ``installed`` built under ``into``."""
    return next((into / "wheel").glob("machu_env-*.whl"))


def lint(site: Path, capture: bool = False) -> subprocess.CompletedProcess:
    """lint-imports with pyproject's contracts over the ``machu_env`` package in ``site`` (a
    folder ``installed`` laid out)."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    here = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
    return subprocess.run([shutil.which("lint-imports", path=here) or "lint-imports",
                           str(ROOT / "pyproject.toml"), "--no-cache"], cwd=site, env=env,
                          capture_output=capture, text=True)


_GRAPH = """
import json, sys
import grimp
names = json.loads(sys.argv[1])
graph = grimp.build_graph("machu_env", cache_dir=None)
def layer(m):
    return next((n for n in names if m == n or m.startswith(n + ".")), None)
counts = {}
for importer in graph.modules:
    for imported in graph.find_modules_directly_imported_by(importer):
        a, b = layer(importer), layer(imported)
        if a and b and a != b:
            counts[a + " " + b] = counts.get(a + " " + b, 0) + 1
print(json.dumps(counts))
"""


def edges() -> dict[tuple[str, str], int]:
    """(importer layer, imported layer) -> number of module imports, from the code: grimp in a
    fresh interpreter, over the checkout's package as it installs."""
    import json

    names = [m for row in layers() for m in row]
    with tempfile.TemporaryDirectory() as tmp:
        site = installed(source_copy(Path(tmp)), Path(tmp))
        out = subprocess.run([sys.executable, "-c", _GRAPH, json.dumps(names)], cwd=site,
                             env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True,
                             text=True, check=True).stdout
    return {tuple(k.split(" ")): n for k, n in json.loads(out).items()}


def mermaid() -> str:
    """The layer picture as a Mermaid flowchart: one box per layer, top first, an arrow per
    pair of layers with imports (an arrow appears or goes only when a layer starts or stops
    using another, not with every import)."""
    short = {m: m.removeprefix("machu_env.") for row in layers() for m in row}
    lines = ["```mermaid", "flowchart TB"]
    for k, row in enumerate(layers()):
        lines.append(f"  subgraph L{k}[\" \"]")
        lines += [f"    {short[m].replace('_', '')}[{short[m]}]" for m in row]
        lines.append("  end")
    for a, b in sorted(edges()):
        lines.append(f"  {short[a].replace('_', '')} --> {short[b].replace('_', '')}")
    lines.append("```")
    return "\n".join(lines)


def draw() -> None:
    text = DOC.read_text()
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + mermaid() + "\n" + text[stop:])


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    if command == "check":
        sys.exit(check())
    if command == "draw":
        draw()
        sys.exit(0)
    sys.exit(f"usage: python scripts/layers.py check|draw (got {command!r})")
