"""``machu agents``: the catalogue of shipped agents (``machu_env.agents.catalogue``)."""

from __future__ import annotations

import json

import typer

from machu_env.cli.commands import console


def agents(
    players: int = typer.Option(0, min=0, max=5, help="only the agents trained for this many "
                                "players (0: all)"),
    as_json: bool = typer.Option(False, "--json", help="print the catalogue as JSON (every "
                                 "figure with its date, games, command and machine)"),
) -> None:
    """The shipped agents: players, observation, play mode, file size, strength against gold
    and against the agent each replaced, exploitability probe, rating; best-2p ... best-5p name
    the recommended one per player count."""
    if players == 1:
        raise typer.BadParameter("1 is not a player count: 2-5, or 0 for all",
                                 param_hint="--players")
    from machu_env.agents.catalogue import catalogue, figure

    rows = catalogue(players or None)
    if as_json:
        print(json.dumps({"agents": rows}, indent=1, ensure_ascii=True))
        return
    console.print("Shipped agents (win shares; probe: a fresh exploiter's win share against the "
                  "agent, lower is better; rating: OpenSkill, higher is stronger)", markup=False)
    for r in rows:
        head = f"{r['alias']} = {r['name']}" if r["alias"] else r["name"]
        rating = r["rating"]
        lines = [f"{r['players']} players, observation v{r['observation']}, plays {r['play']}, "
                 f"{r['file_bytes'] / 1e6:.2f} MB: {r['summary']}",
                 f"vs gold {figure(r['vs_gold'])}" + (
                     f"; vs {r['vs_replaced']['against']} (the agent it replaced) "
                     f"{figure(r['vs_replaced'])}" if r["vs_replaced"] else ""),
                 f"probe {figure(r['probe'])}; rating "
                 + (f"{rating['value']:.1f} ({rating['date']})" if rating else "—"),
                 f"rebuilt by: {r['rebuilt_by']}" if r["rebuilt_by"] else r["history"]]
        console.print(("* " if r["recommended"] else "  ") + head, style="bold"
                      if r["recommended"] else None, markup=False, highlight=False)
        for line in lines:
            console.print("    " + line, markup=False, highlight=False)
    console.print("* recommended. Use an agent by name wherever an agent name goes (machu play "
                  "--opponents best-2p); --json gives every figure's command and machine.",
                  markup=False)
