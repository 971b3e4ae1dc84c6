"""The strength ladder: the shipped agents a run is measured against, weakest first, each with
the win share that counts as reaching it.

    2 players: gold 95 % -> ppo-2p-v1 -> ppo-2p -> ppo-2p-race -> ppo-2p-reg -> ppo-2p-avg ->
    best-2p (50 % each)
    3 players: gold 90 % -> ppo-3p-v1 -> ppo-3p -> best-3p (a third each: break-even)

``machu train --eval-agents ladder`` plays the rungs above ``gold`` at every evaluation (the
rung's agent at every other seat, ``--eval-games`` games, playing as its file says), in order,
and stops at the first rung the learner has not reached: a stronger rung would not be reached
either, and its games cost as much as training. A list of agent names instead evaluates each
of them every time. The ladder's agents are opponents in evaluation only: none of their weights
or games enter training (the pool holds the heuristics and the run's own policies).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from machu_env.train.ppo.evaluate import win_share

GOLD_MARK = {2: 0.95, 3: 0.90, 4: 0.80, 5: 0.75}
RUNGS = {2: ("ppo-2p-v1", "ppo-2p", "ppo-2p-race", "ppo-2p-reg", "ppo-2p-avg", "best-2p"),
         3: ("ppo-3p-v1", "ppo-3p", "best-3p"), 4: ("best-4p",), 5: ("best-5p",)}
MAX_AGENTS = 8


def break_even(players: int) -> float:
    return 1.0 / players


def ladder(players: int) -> list[tuple[str, float]]:
    """The ladder for ``players``: (agent, win share that reaches it), ``gold`` first."""
    return [("gold", GOLD_MARK[players])] + [(n, break_even(players)) for n in RUNGS[players]]


def eval_agents(text: str, players: int) -> list[str]:
    """The agents ``--eval-agents`` names (``ladder``: the rungs above gold), checked to be
    trained agents; ValueError naming what is allowed otherwise."""
    from machu_env.agents import shipped_policies
    from machu_env.agents.catalogue import aliases

    names = [x.strip() for x in text.split(",") if x.strip()]
    if names == ["ladder"]:
        return list(RUNGS[players])
    known = {*shipped_policies(), *aliases()}
    bad = [n for n in names if n not in known and not n.startswith("policy:")]
    if bad or len(names) > MAX_AGENTS or len(set(names)) != len(names):
        raise ValueError(f"eval_agents must be 'ladder' or up to {MAX_AGENTS} different trained "
                         f"agents (shipped: {', '.join(sorted(known))}; or policy:<file>), got "
                         f"{text!r}")
    return names


def opponents(names: list[str], players: int) -> dict[str, Any]:
    """Each named agent as a bank of its policies (loaded once, before the run starts)."""
    from machu_env.train.probe.probe_opponent import opponent_for

    return {name: opponent_for(name, players, seed=5)[1] for name in names}


def evaluate(predict, banks: dict[str, Any], players: int, games: int, in_order: bool,
             seed: int = 9_000_011) -> dict[str, float]:
    """``win_vs_<name>`` for each bank (``in_order``: stopping after the first below break-even;
    the rest are NaN so that every row has the same columns)."""
    row: dict[str, float] = {}
    stop = False
    for k, (name, bank) in enumerate(banks.items()):
        if stop:
            row[f"win_vs_{name}"] = float("nan")
            continue
        share = win_share(predict, bank, games, players, seed=seed + 1_000_003 * k)
        row[f"win_vs_{name}"] = share
        stop = in_order and share < break_even(players)
    return row


def reached(row: dict[str, Any], players: int) -> list[str]:
    """The rungs of the ladder a history row reaches."""
    return [name for name, mark in ladder(players)
            if row.get(f"win_vs_{name}", float("nan")) >= mark]


def best_on_ladder(out: Path, phases: dict[str, int], players: int,
                   counted: list[str] | None = None) -> dict[str, Any]:
    """The evaluation of ``phases`` (name: its steps, in order) that did best on the strength
    ladder: the highest rung it was evaluated against (the ladder stops at the first not
    reached), then its win share there; the earliest on ties. ``counted``: the phases whose
    evaluations count (the others, trained at another player count, add their steps only;
    None: all). Returns its phase, steps
    (counting the phases before), the highest rung it reached (None: not even gold's), the rung
    it was last evaluated against and its win share there, and its checkpoint file (relative
    to ``out``)."""
    from machu_env.agents import policy_file
    from machu_env.train.run.history import read_history

    best, key, before = None, None, 0
    rungs = [name for name, _ in ladder(players)]
    for phase in phases:
        rows = read_history(out / phase / "history.csv") if counted is None \
            or phase in counted else []
        for row in rows:
            seen = [k for k, name in enumerate(rungs)  # (measured: a number, not NaN)
                    if row.get(f"win_vs_{name}") is not None
                    and row[f"win_vs_{name}"] == row[f"win_vs_{name}"]]
            file = Path(phase) / "checkpoints" / f"step_{row['timesteps']}{policy_file.SUFFIX}"
            if not seen or not (out / file).is_file():
                continue
            here = (seen[-1], row[f"win_vs_{rungs[seen[-1]]}"])
            if key is None or here > key:
                top = reached(row, players)
                key, best = here, {"phase": phase, "timesteps": before + row["timesteps"],
                                   "reached": top[-1] if top else None,
                                   "evaluated_against": rungs[seen[-1]], "win_share": here[1],
                                   "file": str(file)}
        before += phases[phase]
    if best is None:
        raise ValueError(f"{out}: no evaluation with a checkpoint to keep (keep: ladder needs "
                         "eval_agents 'ladder')")
    return best
