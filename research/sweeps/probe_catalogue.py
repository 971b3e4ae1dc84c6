# Reproduces research/log.md, "One probe figure per agent" (2026-12-07).
"""Write an agent's probe into the catalogue (``agents/checkpoints/catalogue.json``) from the
probes of ``probe_seeds.sh``: the mean win share and margin over the protocol's seeds
(``PROTOCOL_SEEDS``), each seed's figures, the games, the date, the machine and the command.
Every seed of the protocol must be there (a figure over other seeds compares with nothing),
unless ``--partial``: the protocol's seeds probed so far (at least one), the figure saying how
many (a new agent's first figure, until its other seeds are in).

    python research/sweeps/probe_catalogue.py ppo-4p runs/probes/ppo-4p \
        --copy research/results/probes_<date>/ppo-4p

``--copy``: keep each seed's summary.json there (small; the docs cite them)."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from machu_env.agents import catalogue as cat
from machu_env.bench.machine import describe
from machu_env.core import files
from machu_env.train.probe.probe_verdict import PROTOCOL_SEEDS

ROOT = Path(__file__).resolve().parents[2]


def probe_of(folder: Path, players: int, partial: bool = False) -> dict:
    """The catalogue's probe entry of the seeds' summaries under ``folder``."""
    summaries = {}
    for seed in PROTOCOL_SEEDS:
        path = folder / f"s{seed}" / "summary.json"
        if not path.is_file() and partial:
            continue
        if not path.is_file():
            raise SystemExit(f"{path}: missing (every protocol seed must be probed)")
        summaries[seed] = files.read_json(path)
        if summaries[seed]["players"] != players or summaries[seed]["steps"] < 1_500_000:
            raise SystemExit(f"{path}: not a {players}-player probe of the protocol's length")
    if not summaries:
        raise SystemExit(f"{folder}: no seed of the protocol probed yet")
    shares = {str(s): round(v["exploiter_win_share"], 4) for s, v in summaries.items()}
    margins = {str(s): round(v["exploiter_margin"], 3) for s, v in summaries.items()}
    seeds = " ".join(map(str, summaries))
    return {"value": round(statistics.mean(shares.values()), 4),
            "games": sum(v["eval_games"] for v in summaries.values()),
            "date": describe()["date"],
            "machine": describe()["cpu"] + f", {describe()['cpu_cores']} cores",
            "command": "machu exploit --agent <this agent> --players "
                       f"{players} --steps 1500000 --seed S --eval-games 2000 --threads 1, for S "
                       f"in {seeds}; value: the mean of the {len(summaries)}",
            "break_even": round(1 / players, 4), "seeds": shares, "margins": margins,
            "margin": round(statistics.mean(margins.values()), 3)}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("agent")
    p.add_argument("folder", type=Path)
    p.add_argument("--copy", type=Path, default=None)
    p.add_argument("--date", default="", help="the probes' date (default: today)")
    p.add_argument("--partial", action="store_true",
                   help="the protocol's seeds probed so far (at least one), said in the figure")
    args = p.parse_args(argv)
    rows = {r["name"]: r for r in cat.catalogue()}
    name = cat.resolve(args.agent)
    if name not in rows:
        raise SystemExit(f"{args.agent}: not a shipped agent")
    probe = probe_of(args.folder, rows[name]["players"], args.partial)
    if args.date:
        probe["date"] = args.date
    if args.copy is not None:
        probe["source"] = str(args.copy.relative_to(ROOT) if args.copy.is_absolute()
                              else args.copy) + "/"
        files.make_folder(args.copy)
        for seed in map(int, probe["seeds"]):
            target = args.copy / f"s{seed}_summary.json"
            if not target.exists():
                files.write_json(target, files.read_json(args.folder / f"s{seed}" /
                                                          "summary.json"))
    data = files.read_json(cat.CATALOGUE, limit=4_000_000)
    data["agents"].setdefault(name, {})["probe"] = probe
    files.write_text(cat.CATALOGUE, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"{name}: probe {probe['value']:.1%} over {len(probe['seeds'])} seeds (break-even "
          f"{probe['break_even']:.0%}, margin {probe['margin']:+.1f}); wrote {cat.CATALOGUE}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
