"""The league's ratings table: the main agent against every pool member.

Each evaluation plays the main agent against each member (``games`` games, the member at every
other seat). The table lists each member's win share against main with its 95 % Wilson
interval and an OpenSkill (Plackett-Luce) rating fitted to those games, main included, so that
members that never met each other are still placed on one scale through main.
"""

from __future__ import annotations

from typing import Any

from machu_env.agents.tournament import wilson


def league_table(main_wins: dict[str, float], games: int, players: int) -> list[dict[str, Any]]:
    """Rows sorted by rating: ``main`` and every member, from main's win share per member."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in ["main", *main_wins]}
    for name, share in main_wins.items():
        won = round(share * games)
        for k in range(games):  # wins and losses interleaved evenly (the order matters)
            main_won = (k + 1) * won // games > k * won // games
            teams = [[ratings["main"]]] + [[ratings[name]] for _ in range(players - 1)]
            ranks = [1 if main_won else 2] + [2 if main_won else 1] * (players - 1)
            new = model.rate(teams, ranks=ranks)
            ratings["main"] = new[0][0]
            ratings[name] = new[1][0]  # (the copies at the other seats are one member)
    rows = []
    for name, r in ratings.items():
        row: dict[str, Any] = {"member": name, "mu": round(r.mu, 2), "sigma": round(r.sigma, 2),
                               "ordinal": round(r.ordinal(), 2)}
        if name != "main":
            share = main_wins[name]
            lo, hi = wilson(round(share * games), games)
            row.update(main_win_share=share, ci95=[round(lo, 4), round(hi, 4)])
        rows.append(row)
    return sorted(rows, key=lambda r: -r["ordinal"])
