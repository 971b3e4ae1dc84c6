"""A tournament's standings: each agent's win share with its 95 % Wilson interval, mean score and
VP over the finished games, the endings, and OpenSkill ratings (Plackett–Luce, one update per
finished game; a truncated game counts in the games of everyone seated, nowhere else)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class AgentStats:
    games: int = 0
    finished: int = 0  # games that ended (not truncated): the mean score and VP are over these
    wins: float = 0.0
    score: float = 0.0
    vp: float = 0.0
    ratings: list = field(default_factory=list)


def wilson(k: float, n: int) -> tuple[float, float]:
    """95 % Wilson score interval of a share k/n."""
    if n == 0:
        return (0.0, 1.0)
    z, p = 1.96, k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    # the bounds hold the share itself (rounding left 1e-19 above 0 at k=0, and so negative
    # error bars); at k=0 and k=n the interval's end is exactly 0 or 1
    lo = 0.0 if k <= 0 else min(p, max(0.0, centre - half))
    hi = 1.0 if k >= n else max(p, min(1.0, centre + half))
    return (lo, hi)


def summarise(names: list[str], results: Iterable[dict[str, Any]], num_players: int,
              num_seatings: int) -> dict[str, Any]:
    """Win shares (95 % CI), mean score and VP, endings (and truncated games), game length,
    OpenSkill ratings."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    stats = {n: AgentStats() for n in names}
    ends = {"rescue": 0, "conquest": 0, "truncated": 0}
    total = decisions = 0
    for r in results:
        total += 1
        decisions += r["decisions"]
        ends[r["end"]] += 1
        if r["end"] == "truncated":  # no result: a game for everyone seated, no score, no rating
            for name in r["seating"]:
                stats[name].games += 1
            continue
        winners = sum(s["winner"] for s in r["scores"])
        keys = [(s["score"], s["goods_units"]) for s in r["scores"]]
        ranks = [1 + sum(k > mine for k in keys) for mine in keys]
        for name, s in zip(r["seating"], r["scores"], strict=True):
            st = stats[name]
            st.games += 1
            st.finished += 1
            st.wins += 1.0 / winners if s["winner"] else 0.0  # a shared win counts as a share
            st.score += s["score"]
            st.vp += s["vp"]
        # one rating team per seat; an agent seated twice keeps the update of its first seat
        teams = [[ratings[name]] for name in r["seating"]]
        rated = model.rate(teams, ranks=ranks)
        seen = set()
        for name, team in zip(r["seating"], rated, strict=True):
            if name not in seen:
                ratings[name] = team[0]
                seen.add(name)
    rows = []
    for n in names:
        st = stats[n]
        lo, hi = wilson(st.wins, st.games)
        rows.append({"agent": n, "games": st.games, "win_share": st.wins / max(1, st.games),
                     "win_ci95": [lo, hi], "mean_score": st.score / max(1, st.finished),
                     "mean_vp": st.vp / max(1, st.finished), "rating_mu": ratings[n].mu,
                     "rating_sigma": ratings[n].sigma, "rating": ratings[n].ordinal()})
    rows.sort(key=lambda x: -x["rating"])
    return {"players": num_players, "games": total, "seatings": num_seatings,
            "rescue_share": ends["rescue"] / total, "conquest_share": ends["conquest"] / total,
            "truncated_share": ends["truncated"] / total,
            "mean_decisions": decisions / total, "agents": rows}


def format_table(summary: dict[str, Any]) -> str:
    w = max(10, *(len(a["agent"]) for a in summary["agents"]))
    lines = [f"{summary['games']} games, {summary['players']} players, {summary['seatings']} "
             f"seatings; endings: rescue {summary['rescue_share']:.1%}, conquest "
             f"{summary['conquest_share']:.1%}"
             + (f", truncated {summary['truncated_share']:.1%}"
                if summary.get("truncated_share") else "")
             + f"; {summary['mean_decisions']:.0f} decisions/game",
             f"{'agent':{w}s} {'games':>6s} {'win share':>10s} {'95% CI':>15s} "
             f"{'score':>7s} {'VP':>6s} {'rating':>8s}"]
    for a in summary["agents"]:
        lo, hi = a["win_ci95"]
        lines.append(f"{a['agent']:{w}s} {a['games']:6d} {a['win_share']:10.1%} "
                     f"{f'{lo:.1%}-{hi:.1%}':>15s} {a['mean_score']:7.1f} {a['mean_vp']:6.1f} "
                     f"{a['rating']:8.2f}")
    return "\n".join(lines)
