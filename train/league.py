"""The league's ratings table: the main agent against every pool member; and how often the
pool draws each member (prioritised fictitious self-play).

Each evaluation plays the main agent against each member (``games`` games, the member at every
other seat). The table lists each member's win share against main with its 95 % Wilson
interval and an OpenSkill (Plackett-Luce) rating fitted to those games, main included, so that
members that never met each other are still placed on one scale through main.
"""

from __future__ import annotations

from typing import Any

from machu_env.agents.tournament import wilson
from machu_env.core import files

PFSP_FLOOR = 0.02  # every member keeps at least this share of its group's draws (before norm)


def pfsp_weights(wins: list[float | None], exponent: float) -> list[float]:
    """AlphaStar's prioritised fictitious self-play, its "hard" weighting: each member is drawn
    in proportion to ``(1 - w) ** exponent``, ``w`` the learner's latest win share against it
    (a member not yet measured counts as even, 0.5), so that the members that beat the learner
    are met most; ``exponent`` 0 draws them equally. The weights sum to 1."""
    raw = [max((1.0 - (0.5 if w is None or w != w else w)) ** exponent, PFSP_FLOOR)
           for w in wins]
    total = sum(raw)
    return [r / total for r in raw] if total > 0 else [1.0 / len(wins)] * len(wins)


def evaluate_members(trainer, row: dict[str, Any]) -> None:
    """The main agent against every pool member (both deterministic, ``league_games`` games
    each): the win shares kept for the draws (``trainer.member_wins``), a ratings table
    (``league.json``) and the worst exploiter's row entry."""
    from machu_env.train.bank import PolicyBank
    from machu_env.train.evaluate import win_share

    c = trainer.config
    games = c.league_games or c.eval_games
    members = {name: row[f"win_vs_{name}"] for name in c.eval_names()}
    rivals = [(f"frozen:{k}", k, net) for k, net in enumerate(trainer.frozen)]
    for label, entries in (("snapshot", trainer.snapshots), ("exploiter", trainer.exploiters)):
        rivals += [(f"{label}:{step}", step, net) for step, net in entries]
    for name, step, net in rivals:
        bank = PolicyBank([net], deterministic=True, names=[name])
        members[name] = win_share(trainer.model.predict, bank, games, c.players,
                                  seed=7_000_003 + step)
    trainer.member_wins = members
    table = league_table(members, games, c.players)
    files.write_json(trainer.out / "league.json", {
        "timesteps": row["timesteps"], "games_per_member": games, "table": table})
    worst = min((v for k, v in members.items() if k.startswith(("exploiter", "frozen"))),
                default=None)
    row["win_vs_worst_exploiter"] = worst if worst is not None else float("nan")


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
