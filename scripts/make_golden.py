"""Regenerate the golden playthroughs in tests/golden/ (run after an intended rule change)."""

from __future__ import annotations

from pathlib import Path

from machu_env.core.golden import GOLDEN_GAMES, golden_name, playthrough_text

OUT = Path(__file__).resolve().parent.parent / "tests" / "golden"

if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for n, seed, learning in GOLDEN_GAMES:
        path = OUT / golden_name(n, seed, learning)
        path.write_text(playthrough_text(n, seed, learning))
        print(f"wrote {path.relative_to(OUT.parent.parent)}")
