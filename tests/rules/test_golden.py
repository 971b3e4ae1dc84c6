"""Golden playthroughs: replaying them must give exactly the stored record."""

from __future__ import annotations

from pathlib import Path

import pytest

from machu_env.core.golden import GOLDEN_GAMES, golden_name, playthrough_text

GOLDEN = Path(__file__).parents[1] / "golden"


@pytest.mark.parametrize(("n", "seed", "learning"), GOLDEN_GAMES)
def test_golden_playthrough_is_unchanged(n, seed, learning):
    expected = (GOLDEN / golden_name(n, seed, learning)).read_text().splitlines()
    actual = playthrough_text(n, seed, learning).splitlines()
    for i, (a, e) in enumerate(zip(actual, expected, strict=False)):
        assert a == e, f"line {i + 1} differs (regenerate with scripts/make_golden.py if the " \
                       f"change is intended):\n  stored: {e[:300]}\n  now:    {a[:300]}"
    assert len(actual) == len(expected)
