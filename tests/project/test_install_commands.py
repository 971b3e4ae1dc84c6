"""The install commands a user copies from the README and the docs: torch from PyTorch's CPU
index beside PyPI (PyPI's Linux wheel is the CUDA build, gigabytes more), every extra installed
over the editable install (``-e``: without it pip replaces the checkout's install with a copy),
no package name that no index holds, and one module per import name (``pygame`` from one
distribution: the ``bench`` extra's PettingZoo brings ``pygame-ce``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"


def _texts() -> dict[str, str]:
    return {p.name: p.read_text() for p in PAGES if p.name not in ("research.md",)}


def _installs(text: str) -> list[str]:
    return re.findall(r"pip install[^&`\n]*", text)


def test_torch_is_installed_from_the_cpu_index_everywhere_the_docs_and_ci_say():
    found = 0
    for name, text in {**_texts(), ".ci/run": (ROOT / ".ci" / "run").read_text()}.items():
        for command in _installs(text):
            if re.search(r"\btorch==", command):
                found += 1
                assert CPU_INDEX in command, f"{name}: {command}"
    assert found >= 3


def test_every_extra_goes_over_the_editable_install():
    for name, text in _texts().items():
        assert "machu-env[" not in text, f"{name} names machu-env[...], which no index holds"
        for command in _installs(text):
            if "'.[" in command or '".[' in command:
                assert " -e " in f" {command} ", f"{name}: {command} (without -e)"


def test_one_distribution_per_import_name():
    tomllib = pytest.importorskip("tomllib")  # (Python 3.11+)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {re.split(r"[<>=\[ ;]", r)[0].lower() for reqs in extras.values() for r in reqs}
    assert "pygame" not in names, "pygame beside the pygame-ce that PettingZoo's extras bring"


def test_error_messages_name_the_install_from_the_checkout():
    from machu_env._extras import install_hint

    assert install_hint("train") == "pip install -e '.[train]' (in the machu-env checkout)"
    sources = [*ROOT.glob("machu_env/**/*.py"), *ROOT.glob("agents/**/*.py"),
               *ROOT.glob("train/**/*.py")]
    assert not [str(p) for p in sources if "machu-env[" in p.read_text()]
