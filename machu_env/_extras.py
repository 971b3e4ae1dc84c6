"""How to install an optional part of machu-env (an extra of ``pyproject.toml``), in the words
every error message uses: machu-env installs from its repository (no release is on a package
index), so an extra is ``pip install -e '.[NAME]'`` run in the checkout, over the editable
install (``pip install '.[NAME]'`` would replace it with a copy)."""

from __future__ import annotations


def install_hint(*extras: str) -> str:
    """``pip install -e '.[train]' (in the machu-env checkout)`` for ``install_hint("train")``."""
    return f"pip install -e '.[{','.join(extras)}]' (in the machu-env checkout)"
