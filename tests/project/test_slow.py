"""Long checks, kept out of the default run: ``pytest -m slow``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_1000_random_games_keep_every_invariant(n):
    from random_games import run

    r = run(n, 1000)
    assert r["rescue"] + r["conquest"] == pytest.approx(1.0)
