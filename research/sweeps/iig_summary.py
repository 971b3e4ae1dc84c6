# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
"""One screened candidate of a regularised-PPO sweep as JSON (its settings, strength, both
probes), every candidate of a sweep folder as a markdown table, or the best one's folder.

    python research/sweeps/iig_summary.py RUN                        # -> JSON on stdout
    python research/sweeps/iig_summary.py --table SWEEP              # -> markdown table
    python research/sweeps/iig_summary.py --players 3 --best SWEEP   # -> the best run's folder
    python research/sweeps/iig_summary.py --pareto SWEEP             # -> the 2-player Pareto table

2 players (``iig_ppo_2p.sh``): strength is the win share against ``ppo-2p-race`` and against
``gold`` (400 games each). 3 players (``iig_3p.sh``): the candidate's and ``ppo-3p-race``'s
shares in 1,002 games of {candidate, ``ppo-3p-race``, ``gold``}, and the candidate's against
two ``gold``. The best run keeps the strength (2 players: >= 55 % and >= 95 %; 3 players: at
least ``ppo-3p-race``'s share, and >= 90 % against ``gold``) with the lowest short-probe win
share of its exploiter (argmax play).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _share(folder: Path, agent: str = "policy:") -> float:
    summary = json.loads((folder / "summary.json").read_text())
    return next(r["win_share"] for r in summary["agents"] if r["agent"].startswith(agent))


def candidate(run: Path, players: int = 2) -> dict:
    config = json.loads((run / "config.json").read_text())
    rival = f"ppo-{players}p-race"
    out = {"run": run.name, "players": players, "clip_range": config["clip_range"],
           "ent_coef": config["ent_coef"],
           "timesteps": json.loads((run / "summary.json").read_text())["timesteps"],
           f"vs_{rival}": round(_share(run / f"vs_{rival}"), 4),
           "vs_gold": round(_share(run / "vs_gold"), 4),
           "games": 400 if players == 2 else 1000}
    if players == 3:
        out[f"{rival}_share"] = round(_share(run / f"vs_{rival}", rival), 4)
    for mode in ("argmax", "sampled"):
        p = json.loads((run / f"probe_{mode}" / "summary.json").read_text())
        out[f"probe_{mode}"] = {"win_share": p["exploiter_win_share"],
                                "margin": p["exploiter_margin"], "games": p["eval_games"],
                                "steps": p["steps"]}
    return out


def _rows(sweep: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(sweep.glob("*/screen.json"))]


def _strong(r: dict) -> bool:
    if r.get("players", 2) == 2:
        return r["vs_ppo-2p-race"] >= 0.55 and r["vs_gold"] >= 0.95
    return r["vs_ppo-3p-race"] >= r["ppo-3p-race_share"] and r["vs_gold"] >= 0.90


def best(sweep: Path) -> Path:
    """The strongest-kept run with the lowest argmax short-probe win share (any run if none
    keeps the strength)."""
    rows = _rows(sweep)
    pick = min([r for r in rows if _strong(r)] or rows,
               key=lambda r: r["probe_argmax"]["win_share"])
    return sweep / pick["run"]


def table(sweep: Path) -> str:
    rows = _rows(sweep)
    three = any(r.get("players", 2) == 3 for r in rows)
    rival = "ppo-3p-race" if three else "ppo-2p-race"
    vs = (f"in {{it, `{rival}`, `gold`}} (`{rival}`'s)" if three else f"vs `{rival}`")
    lines = [f"| run | clip | entropy | {vs} | vs `gold` | probe argmax: win, margin | "
             "probe sampled: win, margin |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        a, s = r["probe_argmax"], r["probe_sampled"]
        strength = f"{r[f'vs_{rival}']:.1%}"
        if three:
            strength += f" ({r[f'{rival}_share']:.1%})"
        lines.append(f"| {r['run']} | {r['clip_range']} | {r['ent_coef']} | {strength} | "
                     f"{r['vs_gold']:.1%} | {a['win_share']:.1%}, {a['margin']:+.1f} | "
                     f"{s['win_share']:.1%}, {s['margin']:+.1f} |")
    return "\n".join(lines)


def strength_1000(run: Path) -> tuple[float, float, str] | None:
    """(vs ``ppo-2p-race``, vs ``gold``, how) on 1,000 games: ``machu tournament``'s
    ``strength_RIVAL/`` folders, else ``iig_strength.py``'s batched ``strength_batched.json``."""
    if all((run / f"strength_{r}" / "summary.json").exists() for r in ("ppo-2p-race", "gold")):
        return (_share(run / "strength_ppo-2p-race"), _share(run / "strength_gold"), "tournament")
    if (run / "strength_batched.json").exists():
        b = json.loads((run / "strength_batched.json").read_text())
        return b["vs_ppo-2p-race"], b["vs_gold"], "batched"
    return None


def pareto(sweep: Path) -> str:
    """Every 2-player candidate's 1,000-game strength against its short probes; ``front``: no
    other candidate is at least as strong against ``ppo-2p-race`` with a lower argmax probe."""
    rows = [(r, strength_1000(sweep / r["run"])) for r in _rows(sweep)]
    rows = [(r, st) for r, st in rows if st is not None]
    lines = ["| run | vs `ppo-2p-race` / `gold` (1,000 games) | probe argmax: win, margin | "
             "probe sampled: win, margin | on the front |", "| --- | --- | --- | --- | --- |"]
    for r, st in sorted(rows, key=lambda x: -x[1][0]):
        a, s = r["probe_argmax"], r["probe_sampled"]
        front = not any(o[1][0] >= st[0] and o[0]["probe_argmax"]["win_share"] <
                        a["win_share"] for o in rows if o[0] is not r)
        lines.append(f"| {r['run']} | {st[0]:.1%} / {st[1]:.1%}"
                     f"{'' if st[2] == 'tournament' else ' (batched)'} | "
                     f"{a['win_share']:.1%}, {a['margin']:+.1f} | "
                     f"{s['win_share']:.1%}, {s['margin']:+.1f} | {'yes' if front else ''} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3))
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--table", action="store_true")
    mode.add_argument("--best", action="store_true")
    mode.add_argument("--pareto", action="store_true")
    args = parser.parse_args()
    if args.table:
        print(table(args.path))
    elif args.pareto:
        print(pareto(args.path))
    elif args.best:
        print(best(args.path))
    else:
        print(json.dumps(candidate(args.path, args.players), indent=1))


if __name__ == "__main__":
    main()
