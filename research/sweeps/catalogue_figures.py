# Reproduces research/log.md, "How the shipped agents were trained" (2026-11-24/26).
"""Measure the catalogue's figures (``machu_env/agents/checkpoints/catalogue.json``): every
shipped agent's
win share against ``gold`` at every other seat (1,000 games), and one rating tournament per
player count (OpenSkill ordinal; the agents trained for that count, the neighbours for 4 and 5
players, and the heuristics), then write them into the catalogue with the date, the command and
the machine.

    python research/sweeps/catalogue_figures.py [--games 1000] [--out runs/catalogue] [--players N]
        [--only NAME,...]

Results: ``research/results/catalogue/`` (each tournament's summary.json); the table of
docs/agents.md is rewritten from the catalogue."""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
from pathlib import Path

from machu_env.agents import catalogue as cat
from machu_env.bench.machine import describe

ROOT = Path(__file__).resolve().parents[2]
TABLES = {2: "ppo-2p-rounds,ppo-2p-avg,ppo-2p-reg,ppo-2p-race,ppo-2p,ppo-2p-v2,ppo-2p-v1,gold,"
             "builder,random",
          3: "ppo-3p-recipe,ppo-3p-race,ppo-3p,ppo-3p-v1,gold,builder,random",
          4: "ppo-4p,ppo-5p,ppo-3p,gold,builder,random",
          5: "ppo-5p,ppo-4p,ppo-3p,gold,builder,random"}


def tournament(agents: str, players: int, games: int, out: Path) -> tuple[str, dict]:
    argv = ["machu", "tournament", "--agents", agents, "--players", str(players), "--games",
            str(games), "--seed", "0", "--workers", "1", "--no-progress", "--out", str(out)]
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([sys.executable, "-c", "from machu_env.cli import entry_point; "
                    "entry_point()", *argv[1:]], check=True, capture_output=True)
    return " ".join(argv), json.loads((out / "summary.json").read_text())


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--out", type=Path, default=Path("runs/catalogue"))
    p.add_argument("--players", type=int, default=0, help="only this player count's agents "
                   "and rating table (0: all)")
    p.add_argument("--only", default="", help="comma-separated agents: only their win share "
                   "against gold is measured (again); the rating tables as always")
    p.add_argument("--table", action="store_true", help="only rewrite the docs' table from "
                   "the catalogue (no game is played)")
    a = p.parse_args()
    if a.table:
        write_table()
        return
    data = json.loads(cat.CATALOGUE.read_text())
    today = datetime.date.today().isoformat()
    cpu = describe()["cpu"]
    keep = ROOT / "research" / "results" / "catalogue"
    keep.mkdir(parents=True, exist_ok=True)
    only = {n.strip() for n in a.only.split(",") if n.strip()}
    for row in cat.catalogue(a.players or None):
        name, players = row["name"], row["players"]
        if only and name not in only:
            continue
        command, s = tournament(",".join([name] + ["gold"] * (players - 1)), players, a.games,
                                a.out / f"{name}_vs_gold")
        share = next(r["win_share"] for r in s["agents"] if r["agent"] == name)
        data["agents"][name]["vs_gold"] = {
            "value": round(share, 4), "games": s["games"], "date": today, "machine": cpu,
            "command": command, "break_even": round(1 / players, 4)}
        (keep / f"{name}_vs_gold.json").write_text(json.dumps(s, indent=1))
        print(name, "vs gold", share, flush=True)
    for players, agents in TABLES.items():
        if a.players and players != a.players:
            continue
        command, s = tournament(agents, players, a.games, a.out / f"rating_{players}p")
        (keep / f"rating_{players}p.json").write_text(json.dumps(s, indent=1))
        for r in s["agents"]:
            if r["agent"] in data["agents"] and cat.catalogue(players) and any(
                    c["name"] == r["agent"] for c in cat.catalogue(players)):
                data["agents"][r["agent"]]["rating"] = {
                    "value": round(r["rating"], 1), "unit": "rating", "games": r["games"],
                    "date": today, "machine": cpu, "command": command,
                    "win_share": round(r["win_share"], 4)}
        print(players, "players rated", flush=True)
    cat.CATALOGUE.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    write_table()


def write_table() -> None:
    """The table of docs/agents.md, from the catalogue (``--table``: only this)."""
    page = ROOT / "docs" / "agents.md"
    text = page.read_text()
    begin, end = "<!-- catalogue -->\n", "\n<!-- /catalogue -->"
    head, rest = text.split(begin, 1)
    page.write_text(head + begin + cat.markdown() + end + rest.split(end, 1)[1])


if __name__ == "__main__":
    main()
