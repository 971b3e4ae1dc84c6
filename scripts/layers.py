"""The layers of machu_env, read from the code: import-linter's contracts and the picture.

    python scripts/layers.py check      # lint-imports with the contracts of pyproject.toml
    python scripts/layers.py draw       # rewrite the layer picture in docs/architecture.md

Both read the package folder ``machu_env/`` of the checkout as it is: import-linter checks the
contracts, grimp (import-linter's graph) counts the imports between layers for the picture, so
the picture cannot drift from the code.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
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
    """Run lint-imports over the checkout's package; its exit status."""
    return lint(ROOT).returncode


def lint(folder: Path, capture: bool = False) -> subprocess.CompletedProcess:
    """lint-imports with pyproject's contracts over the ``machu_env`` package in ``folder``."""
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run([shutil.which("lint-imports") or "lint-imports",
                           str(ROOT / "pyproject.toml"), "--no-cache"], cwd=folder, env=env,
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
    fresh interpreter, over the checkout's package."""
    import json

    names = [m for row in layers() for m in row]
    out = subprocess.run([sys.executable, "-c", _GRAPH, json.dumps(names)], cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
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
