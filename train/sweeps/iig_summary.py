"""One screened candidate of ``iig_ppo_2p.sh`` as JSON (its settings, strength, both probes),
or, with ``--table``, every candidate of a sweep folder as a markdown table.

    python train/sweeps/iig_summary.py RUN            # -> JSON on stdout
    python train/sweeps/iig_summary.py --table SWEEP  # -> markdown table on stdout
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _share(folder: Path, agent_prefix: str = "policy:") -> float:
    summary = json.loads((folder / "summary.json").read_text())
    return next(r["win_share"] for r in summary["agents"] if r["agent"].startswith(agent_prefix))


def candidate(run: Path) -> dict:
    config = json.loads((run / "config.json").read_text())
    out = {"run": run.name, "clip_range": config["clip_range"], "ent_coef": config["ent_coef"],
           "timesteps": json.loads((run / "summary.json").read_text())["timesteps"],
           "vs_ppo-2p-race": round(_share(run / "vs_ppo-2p-race"), 4),
           "vs_gold": round(_share(run / "vs_gold"), 4), "games": 400}
    for mode in ("argmax", "sampled"):
        p = json.loads((run / f"probe_{mode}" / "summary.json").read_text())
        out[f"probe_{mode}"] = {"win_share": p["exploiter_win_share"],
                                "margin": p["exploiter_margin"], "games": p["eval_games"],
                                "steps": p["steps"]}
    return out


def table(sweep: Path) -> str:
    rows = [json.loads(p.read_text()) for p in sorted(sweep.glob("*/screen.json"))]
    lines = ["| run | clip | entropy | vs `ppo-2p-race` | vs `gold` | probe argmax: win, margin | "
             "probe sampled: win, margin |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        a, s = r["probe_argmax"], r["probe_sampled"]
        lines.append(f"| {r['run']} | {r['clip_range']} | {r['ent_coef']} | "
                     f"{r['vs_ppo-2p-race']:.1%} | {r['vs_gold']:.1%} | "
                     f"{a['win_share']:.1%}, {a['margin']:+.1f} | "
                     f"{s['win_share']:.1%}, {s['margin']:+.1f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        print(table(Path(sys.argv[2])))
    else:
        print(json.dumps(candidate(Path(sys.argv[1])), indent=1))
