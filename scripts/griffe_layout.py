"""A griffe extension for the documentation site: the checkout's top-level ``agents/`` and
``train/`` are ``machu_env.agents`` and ``machu_env.train`` (``[tool.setuptools.package-dir]``
in ``pyproject.toml``), which griffe, walking ``machu_env/`` alone, would not find. Named in
``mkdocs.yml`` under mkdocstrings' ``extensions``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import griffe
import tomllib

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, str]:
    """Subpackage -> its folder in the checkout, as pyproject.toml maps them."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-dir"]


class TopLevelFolders(griffe.Extension):
    """Loads each mapped folder and attaches it to its parent package under its own name."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        for name, folder in package_dirs().items():
            parent, _, child = name.rpartition(".")
            if parent == pkg.path and child not in pkg.members:
                pkg.set_member(child, loader.load(folder.replace("/", ".")))
