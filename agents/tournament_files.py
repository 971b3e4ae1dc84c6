"""A tournament's files: ``summary.json``, ``summary.csv`` and the ``win_shares.png`` chart, each
whole or absent (``core.files``)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from machu_env.core import files as whole_files

OUTPUTS = ("summary.json", "summary.csv", "win_shares.png")  # what ``write_outputs`` writes


def write_outputs(summary: dict[str, Any], out: Path) -> list[Path]:
    """``win_shares.png``, ``summary.csv`` and ``summary.json`` (last) under ``out``, each
    whole or absent (``core.files``)."""
    out.mkdir(parents=True, exist_ok=True)
    text = io.StringIO(newline="")
    w = csv.writer(text)
    w.writerow(["agent", "games", "win_share", "ci_low", "ci_high", "mean_score", "mean_vp",
                "rating"])
    for a in summary["agents"]:
        w.writerow([a["agent"], a["games"], f"{a['win_share']:.4f}",
                    f"{a['win_ci95'][0]:.4f}", f"{a['win_ci95'][1]:.4f}",
                    f"{a['mean_score']:.2f}", f"{a['mean_vp']:.2f}", f"{a['rating']:.3f}"])
    chart = _chart(summary, out)
    paths = [whole_files.write_text(out / "summary.csv", text.getvalue())]
    paths.insert(0, whole_files.write_json(out / "summary.json", summary))
    return paths + ([chart] if chart is not None else [])


def _chart(summary: dict[str, Any], out: Path) -> Path | None:
    """``win_shares.png``: each agent's win share with its 95 % interval (None without
    matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = [a["agent"] for a in summary["agents"]]
    share = [a["win_share"] for a in summary["agents"]]
    err = [[max(0.0, s - a["win_ci95"][0]) for s, a in zip(share, summary["agents"],
                                                            strict=True)],
           [max(0.0, a["win_ci95"][1] - s) for s, a in zip(share, summary["agents"],
                                                            strict=True)]]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar(names, share, yerr=err, capsize=4, color="#c98b2b")
    ax.axhline(1 / summary["players"], color="grey", linestyle=":", label="even share")
    ax.set(ylabel="win share (95 % CI)", ylim=(0, 1),
           title=f"{summary['games']} games, {summary['players']} players")
    ax.legend()
    fig.tight_layout()
    path = whole_files.write_with(out / "win_shares.png",
                            lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    plt.close(fig)
    return path
