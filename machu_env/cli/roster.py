"""``machu agents``: the catalogue of shipped agents (``machu_env.agents.catalogue``)."""

from __future__ import annotations

import json

import typer
from rich.table import Table

from machu_env.cli.commands import console


def agents(
    name: str = typer.Argument(None, help="an agent (or best-2p ...): its whole card"),
    players: int = typer.Option(0, min=0, max=5, help="only the agents trained for this many "
                                "players (0: all)"),
    as_json: bool = typer.Option(False, "--json", help="print the catalogue as JSON (every "
                                 "figure with its date, games, command and machine)"),
) -> None:
    """The shipped agents, one line each: players, strength against gold, exploitability probe
    (lower is harder to exploit), rating and how it is rebuilt; best-2p ... best-5p name the
    recommended one per player count. ``machu agents NAME`` shows one agent's whole card."""
    if players == 1:
        raise typer.BadParameter("1 is not a player count: 2-5, or 0 for all",
                                 param_hint="--players")
    from machu_env.agents.catalogue import catalogue, probe_seeds, resolve

    rows = catalogue(players or None)
    if name is not None:
        rows = [r for r in rows if r["name"] == resolve(name)]
        if not rows:
            known = ", ".join(r["name"] for r in catalogue())
            raise typer.BadParameter(f"no shipped agent {name!r}; the shipped agents: {known} "
                                     "(and best-2p ... best-5p)", param_hint="NAME")
    if as_json:
        print(json.dumps({"agents": rows}, indent=1, ensure_ascii=True))
        return
    if name is not None:
        _card(rows[0])
        return
    table = Table(title="Shipped agents (* recommended)", box=None, pad_edge=False)
    for column in ("agent", "players", "vs gold", "probe", "seeds", "rating",
                   "rebuilt by recipe"):
        table.add_column(column, no_wrap=column == "agent")
    for r in rows:
        head = f"{r['alias']} = {r['name']}" if r["alias"] else r["name"]
        table.add_row(("* " if r["recommended"] else "  ") + head, str(r["players"]),
                      _share(r["vs_gold"]),
                      _share(r["probe"]), str(probe_seeds(r["probe"])) if r["probe"] else "—",
                      f"{r['rating']['value']:.1f}" if r["rating"] else "—",
                      _recipe(r["rebuilt_by"]))
    console.print(table)
    console.print("probe: a fresh exploiter's win share against it, the mean over its seeds "
                  "(lower is harder to exploit; break-even 1/players: 50 % for 2, 33 % for 3, "
                  "25 % for 4, 20 % for 5; compare figures over the same seeds only); machu "
                  "agents NAME: the whole card; --json: every figure's command, machine and "
                  "date", markup=False, highlight=False)


def _share(measure) -> str:
    return f"{measure['value'] * 100:.1f} %" if measure else "—"


def _recipe(rebuilt_by: str | None) -> str:
    """The recipe that rebuilds an agent, in short (the card has the whole command)."""
    if not rebuilt_by:
        return "—"
    words = rebuilt_by.split()
    return words[words.index("--recipe") + 1] if "--recipe" in words[:-1] else "a command"


def _card(r) -> None:
    """One agent's whole card: the file's facts, every figure with its date, how it is made."""
    from machu_env.agents.catalogue import figure, probe_figure

    head = f"{r['alias']} = {r['name']}" if r["alias"] else r["name"]
    rating = r["rating"]
    lines = [f"{r['players']} players, observation v{r['observation']}, plays {r['play']}, "
             f"{r['file_bytes'] / 1e6:.2f} MB: {r['summary']}",
             f"vs gold {figure(r['vs_gold'])}" + (
                 f"; vs {r['vs_replaced']['against']} (the agent it replaced) "
                 f"{figure(r['vs_replaced'])}" if r["vs_replaced"] else ""),
             f"probe {probe_figure(r['probe'], r['players'])}"
             + (f", margin {r['probe']['margin']:+.1f} points" if (r["probe"] or {}).get(
                 "margin") is not None else "")
             + (f", {r['probe']['date']}" if r["probe"] else "") + "; rating "
             + (f"{rating['value']:.1f} ({rating['date']})" if rating else "—"),
             f"rebuilt by: {r['rebuilt_by']}" if r["rebuilt_by"] else r["history"]]
    console.print(head, style="bold", markup=False, highlight=False)
    for line in lines:
        console.print("    " + line, markup=False, highlight=False)
