"""A training run's history (``history.csv``, one row per evaluation, read back whole and
checked) and its learning curve (``curve.png``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from machu_env.core import files

EVAL_OPPONENTS = ("random", "builder", "gold")
HISTORY_NEEDS = ("timesteps", "win_vs_gold")  # the columns a run reads back from its history
MAX_HISTORY_BYTES = 20 * 2**20


def read_history(path: Path) -> list[dict[str, float]]:
    """A run's ``history.csv`` (one row per evaluation), checked as a whole; ValueError naming
    the file (and the row) otherwise. ``timesteps`` and ``win_vs_gold`` are needed in every
    row; an empty cell is a column the row's version did not write (it is left out of the
    row), so a history written across versions reads back as it was written."""
    text = files.read_text(path, MAX_HISTORY_BYTES, links=False, what="a run's history")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        missing = [c for c in HISTORY_NEEDS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: not a run's history (no {', '.join(missing)} "
                             f"column; it has {', '.join(HISTORY_NEEDS)} and one column "
                             "per measure)")
        rows = [_history_row(path, line, row) for line, row in enumerate(reader, start=2)]
    except csv.Error as e:
        raise ValueError(f"{path}: not a run's history ({e})") from None
    return rows


def _history_row(path: Path, line: int, row: dict) -> dict[str, float]:
    try:
        if None in row or any(row[c] in (None, "") for c in HISTORY_NEEDS):
            raise ValueError
        return {k: int(v) if k == "timesteps" else float(v) for k, v in row.items() if v != ""}
    except (TypeError, ValueError):
        raise ValueError(f"{path}, line {line}: not a row of numbers under the header (got "
                         f"{dict(row)!r:.120})") from None


def plot_curve(history: list[dict[str, float]], path: Path, config: Any) -> Path:
    """A run's learning curve: win share against each heuristic (and the worst exploiter of
    a league) over training steps, written to ``path`` (``config``: the run's ``TrainConfig``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["timesteps"] for r in history]
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in (*EVAL_OPPONENTS, "worst_exploiter"):
        if any(f"win_vs_{name}" in r for r in history):
            ax.plot(steps, [r.get(f"win_vs_{name}", float("nan")) for r in history],
                    marker="o", ms=3, label=f"vs {name.replace('_', ' ')}")
    ax.axhline(1 / config.players, color="grey", lw=0.8, ls="--", label="break-even")
    kind = "league" if config.league else "self-play"
    ax.set(xlabel="training steps (learner decisions)", ylabel="win share", ylim=(0, 1),
           title=f"masked PPO {kind}, {config.players} players, "
                 f"{config.eval_games} games per point")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    files.write_with(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    plt.close(fig)
    return path
