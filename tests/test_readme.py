"""The README's Python snippets run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 4


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_readme_snippet_runs(code, capsys):
    if "sb3_contrib" in code:
        pytest.importorskip("sb3_contrib")
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
    exec(compile(code, "README.md", "exec"), {})
