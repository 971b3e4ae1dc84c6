"""Time per decision of one agent, in whole games against an opponent.

    python benchmarks/decision_time.py --agent search:ppo-2p --opponent ppo-2p --players 2 \\
        --games 20 --iterations 64 [--seconds S] [--threads 1] [--budget 1.0]

Plays ``--games`` games (game ``i``: seed ``seed * 1_000_003 + i``, the measured agent in seat
``i mod players``, every other seat ``--opponent``), built and capped as ``machu tournament``
builds them (``--iterations`` / ``--seconds`` are its ``--mcts-iterations`` /
``--mcts-seconds``), and times every ``act`` call of the measured agent with a wall clock:
mean, median, p95, p99, maximum and the share of decisions over ``--budget`` seconds. One
process, ``--threads`` torch threads (1 by default, as a tournament worker runs). Writes a table
to stdout and ``decision_time_<agent>[-<N>it][-<S>s].json`` (machine, versions, date) under
``--out``. Measure on an idle machine: under load the figures mean little.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

from machu_env.agents import make_agent
from machu_env.agents.tournament import _agent_kwargs
from machu_env.bench.machine import describe
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game


def time_decisions(agent: str, opponent: str, players: int, games: int, seed: int = 0,
                   budget: dict | None = None,
                   max_decisions: int = DEFAULT_MAX_DECISIONS) -> dict:
    """Seconds of every decision ``agent`` took over ``games`` games, and how they ended."""
    budget = budget or {}
    times: list[float] = []
    where: list[tuple[int, int]] = []  # (game, decision number) of every timed decision
    ends = {"rescue": 0, "conquest": 0, "truncated": 0}
    for i in range(games):
        game_seed = seed * 1_000_003 + i
        seating = [opponent] * players
        seating[i % players] = agent
        game = Game(players, seed=game_seed)
        seats = [make_agent(name, game_seed * 8 + p, **_agent_kwargs(name, budget, False))
                 for p, name in enumerate(seating)]
        while not game.is_over and len(game.history) < max_decisions:
            p = game.current_player
            t = time.perf_counter()
            action = seats[p].act(game)
            if p == i % players:
                times.append(time.perf_counter() - t)
                where.append((i, len(game.history)))
            game.play(action)
        ends[game.end if game.is_over else "truncated"] += 1
    return {"games": games, "ends": ends, "seconds": times, "where": where}


def summary(seconds: list[float], limit: float, where: list | None = None) -> dict:
    """Mean, median, p95, p99, maximum (seconds), the share over ``limit`` and (with
    ``where``) the five slowest decisions: game, decision number, seconds."""
    t = np.asarray(seconds, dtype=np.float64)
    if t.size == 0:
        return {"decisions": 0}
    slowest = [{"game": where[k][0], "decision": where[k][1], "seconds": round(float(t[k]), 4)}
               for k in np.argsort(-t, kind="stable")[:5]] if where else []
    return {"slowest": slowest, "decisions": int(t.size), "mean": round(float(t.mean()), 4),
            "median": round(float(np.median(t)), 4),
            "p95": round(float(np.quantile(t, 0.95)), 4),
            "p99": round(float(np.quantile(t, 0.99)), 4), "max": round(float(t.max()), 4),
            "over_budget": round(float((t > limit).mean()), 4), "budget": limit}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", required=True, help="the agent whose decisions are timed")
    p.add_argument("--opponent", default="random", help="the agent in every other seat")
    p.add_argument("--players", type=int, default=2, choices=range(2, 6))
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, help="mcts iterations / search simulations / "
                   "rollout rounds (machu tournament's --mcts-iterations)")
    p.add_argument("--seconds", type=float, help="seconds per decision (--mcts-seconds)")
    p.add_argument("--budget", type=float, default=1.0, help="seconds a decision may take")
    p.add_argument("--max-decisions", type=int, default=DEFAULT_MAX_DECISIONS)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", default="benchmarks/results", help="output folder")
    args = p.parse_args(argv)
    for name, lo in (("games", 1), ("seed", 0), ("max_decisions", 1), ("threads", 1)):
        if getattr(args, name) < lo:
            p.error(f"--{name.replace('_', '-')} must be >= {lo}, got {getattr(args, name)}")
    if args.iterations is not None and args.iterations < 1:
        p.error(f"--iterations must be >= 1, got {args.iterations}")
    for name in ("seconds", "budget"):
        v = getattr(args, name)
        if v is not None and not (np.isfinite(v) and v > 0):
            p.error(f"--{name} must be a number > 0, got {v}")
    budget = {k: v for k, v in (("iterations", args.iterations), ("seconds", args.seconds))
              if v is not None}
    for name in (args.agent, args.opponent):  # unknown names fail before any game
        try:
            make_agent(name, 0, **_agent_kwargs(name, budget, False))
        except (ValueError, TypeError) as e:
            p.error(str(e))
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    run = time_decisions(args.agent, args.opponent, args.players, args.games, args.seed,
                         budget, args.max_decisions)
    stats = summary(run["seconds"], args.budget, run["where"])
    report = {**describe(), "agent": args.agent, "opponent": args.opponent,
              "players": args.players, "games": args.games, "seed": args.seed,
              "iterations": args.iterations, "seconds_per_decision": args.seconds,
              "max_decisions": args.max_decisions, "ends": run["ends"], "decision_time": stats}
    print(f"{args.agent} against {args.opponent} ({args.players} players, {args.games} games): "
          + ", ".join(f"{k} {v}" for k, v in stats.items() if k != "slowest"))
    for row in stats.get("slowest", []):
        print(f"  slow: game {row['game']}, decision {row['decision']}: {row['seconds']} s")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9]+", "-", args.agent).strip("-")
    slug += f"-{args.iterations}it" if args.iterations is not None else ""
    slug += f"-{args.seconds:g}s" if args.seconds is not None else ""
    (out / f"decision_time_{slug}.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
