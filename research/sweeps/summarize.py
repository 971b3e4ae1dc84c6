# Reproduces research/log.md, "Agents that hold up" (2026-11-24).
"""Summarise a probe sweep (research/sweeps/regularised.sh) as a markdown table and copy its
records (settings, evaluation history, probe summaries; no weights) to a results folder.

    python research/sweeps/summarize.py runs/sweep research/results/regularised_2p
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path


def rows(sweep: Path) -> list[dict]:
    out = []
    for run in sorted(p for p in sweep.iterdir() if p.is_dir()):
        probe = run / "probe" / "summary.json"
        if not probe.is_file():
            continue
        s = json.loads(probe.read_text())
        history = list(csv.DictReader((run / "history.csv").open()))
        config = json.loads((run / "config.json").read_text())
        out.append({"run": run.name, "config": config, "gold": float(history[-1]["win_vs_gold"]),
                    "probe": s})
    return out


def table(found: list[dict]) -> str:
    lines = ["| run | settings | vs `gold` (200 games) | exploiter win share (95 % CI) | "
             "exploiter margin (95 % CI) |", "| --- | --- | --- | --- | --- |"]
    for r in found:
        c, p = r["config"], r["probe"]
        settings = (f"ent {c['ent_coef']}" + (f"→{c['ent_coef_final']}"
                                              if c.get("ent_coef_final", -1) >= 0 else "")
                    + (f", magnet {c['magnet_coef']} every {c['magnet_every']}"
                       if c.get("magnet_coef", 0) else ""))
        lo, hi = p["ci95"]
        mlo, mhi = p["margin_ci95"]
        lines.append(f"| {r['run']} | {settings} | {r['gold']:.1%} | "
                     f"{p['exploiter_win_share']:.1%} ({lo:.1%}–{hi:.1%}) | "
                     f"{p['exploiter_margin']:+.1f} ({mlo:+.1f} to {mhi:+.1f}) |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    sweep, dest = Path(argv[0]), Path(argv[1]) if len(argv) > 1 else None
    found = rows(sweep)
    print(table(found))
    if dest is not None:
        for r in found:
            target = dest / r["run"]
            target.mkdir(parents=True, exist_ok=True)
            run = sweep / r["run"]
            for name in ("config.json", "history.csv", "summary.json"):
                if (run / name).is_file():
                    shutil.copy(run / name, target / name)
            shutil.copy(run / "probe" / "summary.json", target / "probe_summary.json")
        (dest / "table.md").write_text(table(found) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
