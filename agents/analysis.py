"""Why an agent wins or loses: statistics of a tournament's game records (``machu analyze``).

    machu tournament --agents ppo-2p,policy:exploiter.safetensors --players 2 --games 200 \\
        --records --out runs/t
    machu analyze runs/t/records --out runs/t/analysis

Every record is replayed (so nothing is taken on trust) and read per player: the result (win,
VP, gold, the gold multiplier it got, score, goods units left, cards held), VP by icon
(``Game.vp_details``: the 8 icons, the trail, the summits), and its decisions by kind —
``sacrifice`` (a Condor/Puma/Sun temple sacrifice of at least one llama, R4.2.1), ``offer``
(a Main Temple offering of at least one good, R4.2.2), ``summit`` (each summit reached: every
card gained, and every 3 VP taken instead of a card, R5.3), ``sunclock`` (an Inca put on the Sun
Clock, R4.6), ``acquire`` (a priest or virgin, R4.4), ``place`` (an Inca placed, R4.3),
``trade`` (a market buy or sell, R4.5.2), ``produce`` (production taken, R4.1), ``move`` and
``stay``. Per game: its ending (``rescue``, ``conquest`` or ``truncated``), its length in
decisions, and what decided it: whether the winner had the most gold, the most VP, both or
neither (a tie-break).

The summary (``analysis.json``) holds, per agent over all its games and per pairing (the set of
agents seated together) per agent: games, win share, means of every figure above; per pairing:
endings, mean length, and how often the player with the most gold (and with the most VP) won.
``analysis.png`` draws one panel per pairing: each agent's mean gold, VP, summits, sacrifices,
Sun Clock placements and acquisitions side by side.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from machu_env.core import files
from machu_env.core.records import read_record, replay
from machu_env.rules.data import ICONS

KINDS = ("sacrifice", "offer", "summit", "sunclock", "acquire", "place", "trade", "produce",
         "move", "stay")
RESULTS = ("win", "vp", "gold", "multiplier", "score", "goods_units", "cards")
VP_SOURCES = (*ICONS, "trail", "summits")
MAX_RECORDS = 100_000  # records read at most (a folder may hold more: the first ones, sorted)


def _kind(action: str) -> str | None:
    """The kind of one decision (``KINDS``), or None for those not counted."""
    verb, _, rest = action.partition(" ")
    if verb == "sacrifice":
        return "sacrifice" if rest != "0" else None
    if verb == "offer":
        return "offer" if rest != "none" else None
    if verb == "sunclock":
        return "sunclock" if rest != "pass" else None
    if verb in ("buy", "sell"):
        return "trade"
    if verb == "produce":
        return "produce" if rest != "0" else None
    if verb in ("acquire", "place", "move", "stay"):
        return verb
    return None


def game_stats(record: dict[str, Any]) -> dict[str, Any]:
    """One record's statistics: ``agents``, ``end``, ``decisions``, ``decided_by`` and one
    entry per seat (results, VP by source, decisions by kind). ValueError for a record that
    does not replay."""
    game = replay(record)
    n = game.num_players
    agents = record.get("agents") or [f"player {p}" for p in range(n)]
    counts = [dict.fromkeys(KINDS, 0) for _ in range(n)]
    for p, action in game.history:
        kind = _kind(action)
        if kind is not None:
            counts[p][kind] += 1
    view = game.view(None)
    over = game.is_over
    scores = game.scores()
    winners = [p for p in range(n) if scores[p]["winner"]] if over else []
    seats = []
    for p in range(n):
        cards = view["players"][p]["num_cards"]
        summit_vp = view["players"][p]["summit_vp"]
        # a summit gains one card (3 drawn and 2 returned, 2 and 1, or the last one), or 3 VP
        # once the deck is out (R5.3, R9.3); nothing else changes a hand's size
        counts[p]["summit"] = cards - 1 + summit_vp // 3
        row = {"agent": agents[p], "seat": p,
               "win": (1.0 / len(winners) if p in winners else 0.0),
               "cards": cards, **{k: scores[p][k] for k in RESULTS if k in scores[p]},
               "vp_by": game.vp_details(p) if over else dict.fromkeys(VP_SOURCES, 0),
               "decisions": counts[p]}
        seats.append(row)
    return {"agents": list(agents), "end": game.end if over else "truncated",
            "decisions": len(game.history), "decided_by": _decided_by(seats, winners),
            "gold_leader_won": _leader_won(seats, winners, "gold"),
            "vp_leader_won": _leader_won(seats, winners, "vp"), "seats": seats}


def _leaders(seats: list[dict], key: str) -> list[int]:
    best = max(s[key] for s in seats)
    return [s["seat"] for s in seats if s[key] == best]


def _leader_won(seats: list[dict], winners: list[int], key: str) -> float | None:
    """1 if the one player with the most ``key`` won, 0 if not, None when tied for it or no
    one won (a truncated game)."""
    leaders = _leaders(seats, key)
    if len(leaders) != 1 or not winners:
        return None
    return 1.0 if leaders[0] in winners else 0.0


def _decided_by(seats: list[dict], winners: list[int]) -> str:
    """``gold`` (the winner alone had the most gold, not the most VP), ``vp`` (the reverse),
    ``both``, ``neither`` (a tie-break or the multiplier's arithmetic) or ``none`` (no winner)."""
    if not winners:
        return "none"
    w = winners[0]
    gold = _leaders(seats, "gold") == [w]
    vp = _leaders(seats, "vp") == [w]
    return "both" if gold and vp else "gold" if gold else "vp" if vp else "neither"


def _mean(rows: list[dict], key: str) -> float:
    return round(sum(r[key] for r in rows) / len(rows), 3) if rows else 0.0


def _agent_summary(rows: list[dict]) -> dict[str, Any]:
    """Means over one agent's seats (``rows``)."""
    out: dict[str, Any] = {"games": len(rows), "win_share": _mean(rows, "win")}
    out.update({k: _mean(rows, k) for k in RESULTS if k != "win"})
    out["vp_by"] = {k: round(sum(r["vp_by"][k] for r in rows) / len(rows), 3)
                    for k in VP_SOURCES}
    out["decisions"] = {k: round(sum(r["decisions"][k] for r in rows) / len(rows), 3)
                        for k in KINDS}
    multipliers: dict[str, int] = defaultdict(int)
    for r in rows:
        multipliers[f"x{r['multiplier']}"] += 1
    out["multipliers"] = dict(sorted(multipliers.items()))
    return out


def _share(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known) / len(known), 4) if known else None


def summarize(games: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of ``game_stats`` results: per agent and per pairing."""
    by_agent: dict[str, list[dict]] = defaultdict(list)
    by_pairing: dict[str, list[dict]] = defaultdict(list)
    for g in games:
        by_pairing[" vs ".join(sorted(g["agents"]))].append(g)
        for s in g["seats"]:
            by_agent[s["agent"]].append(s)
    pairings = {}
    for name, group in sorted(by_pairing.items()):
        seats: dict[str, list[dict]] = defaultdict(list)
        for g in group:
            for s in g["seats"]:
                seats[s["agent"]].append(s)
        ends: dict[str, int] = defaultdict(int)
        decided: dict[str, int] = defaultdict(int)
        for g in group:
            ends[g["end"]] += 1
            decided[g["decided_by"]] += 1
        pairings[name] = {
            "games": len(group), "endings": dict(sorted(ends.items())),
            "mean_decisions": _mean(group, "decisions"),
            "decided_by": dict(sorted(decided.items())),
            "gold_leader_won": _share(g["gold_leader_won"] for g in group),
            "vp_leader_won": _share(g["vp_leader_won"] for g in group),
            "agents": {a: _agent_summary(rows) for a, rows in sorted(seats.items())}}
    return {"games": len(games),
            "agents": {a: _agent_summary(rows) for a, rows in sorted(by_agent.items())},
            "pairings": pairings}


def records_folder(folder: Path) -> Path:
    """The folder of records that ``folder`` names: itself, or the ``records/`` of a
    tournament's folder (``machu tournament --records --out OUT`` writes OUT/records)."""
    folder = Path(folder)
    inner = folder / "records"
    if inner.is_dir() and not any(p.is_file() and p.name != "summary.json"
                                  for p in folder.glob("*.json")):
        return inner
    return folder


def record_files(folder: Path) -> list[Path]:
    """The record files (``*.json``) of ``folder``, sorted; ValueError if there are none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder of game records (machu tournament "
                         "--records writes OUT/records)")
    files = sorted(p for p in folder.glob("*.json") if p.is_file())[:MAX_RECORDS]  # no FIFO
    if not files:
        raise ValueError(f"{folder} holds no game record (*.json)")
    return files


def analyze(folder: Path) -> dict[str, Any]:
    """The summary of every record in ``folder``; ValueError naming the first bad file."""
    games = []
    for path in record_files(folder):
        try:
            games.append(game_stats(read_record(path)))
        except ValueError as e:
            raise ValueError(f"{path.name}: {e}") from None
    return summarize(games)


def short_name(name: str) -> str:
    """An agent name for a picture: a file's stem instead of its path."""
    kind, _, rest = name.rpartition("policy:")
    return f"{kind}policy:{Path(rest).stem}" if "policy:" in name else name


PICTURED = (("gold", "gold"), ("vp", "VP"), ("summit", "summits"), ("sacrifice", "sacrifices"),
            ("sunclock", "Sun Clock"), ("acquire", "acquisitions"))


def plot(summary: dict[str, Any], path: Path) -> Path:
    """One panel per pairing: each agent's means of ``PICTURED`` side by side (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    pairings = list(summary["pairings"].items())
    fig, axes = plt.subplots(len(pairings), 1, figsize=(9, 3.2 * len(pairings)), squeeze=False)
    for ax, (name, pairing) in zip(axes[:, 0], pairings, strict=True):
        agents = list(pairing["agents"])
        x = np.arange(len(PICTURED))
        width = 0.8 / len(agents)
        for k, agent in enumerate(agents):
            a = pairing["agents"][agent]
            values = [a[key] if key in a else a["decisions"][key] for key, _ in PICTURED]
            bars = ax.bar(x + k * width, values, width,
                          label=f"{short_name(agent)} (wins {100 * a['win_share']:.0f} %)")
            ax.bar_label(bars, fmt="%.1f", fontsize=7)
        gold = pairing["gold_leader_won"]
        short = " vs ".join(short_name(a) for a in name.split(" vs "))
        ax.set_title(f"{short}: {pairing['games']} games"
                     + (f"; the most gold won {100 * gold:.0f} %" if gold is not None else ""),
                     fontsize=10)
        ax.set_xticks(x + 0.4 - width / 2, [label for _, label in PICTURED])
        ax.set_ylabel("mean per game")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write(summary: dict[str, Any], out: Path) -> list[Path]:
    """``analysis.json`` and ``analysis.png`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    data = out / "analysis.json"
    files.write_json(data, summary, indent=1)
    return [data, plot(summary, out / "analysis.png")]
