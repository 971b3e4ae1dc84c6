"""Tournament throughput with the Ray backend on this machine: games per second with the local
backend (one process) and with 1, 2 and 4 Ray workers, plus what each Ray run pays once (the
instance's start, every worker's first game: imports and the compiled engine from the numba
cache). Each configuration plays the same seeded tournament; the summaries are checked equal.

``python benchmarks/ray_scaling.py [--games N] [--agents random,builder,gold] [--players 3]``
``--mcts-iterations K`` for slow games (``--agents mcts,gold --players 2``). Needs the ``ray``
extra; writes ``benchmarks/results/ray_scaling.json`` (``--out`` another name there).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from machu_env.agents.tournament import run_tournament


def _timed(agents, players, games, **kw) -> tuple[dict, float]:
    t = time.perf_counter()
    summary = run_tournament(agents, players, games, seed=3, progress=False, **kw)
    return summary, time.perf_counter() - t


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=120)
    p.add_argument("--agents", default="random,builder,gold")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--workers", default="1,2,4")
    p.add_argument("--mcts-iterations", type=int, default=None,
                   help="mcts's budget per decision, for a tournament of slow games")
    p.add_argument("--out", default="benchmarks/results/ray_scaling.json",
                   help="the result file (JSON)")
    args = p.parse_args(argv)
    import ray

    agents = args.agents.split(",")
    mcts = {"iterations": args.mcts_iterations} if args.mcts_iterations else None
    _timed(agents, args.players, 1, workers=1, mcts=mcts)  # warm, as the Ray runs are
    reference, seconds = _timed(agents, args.players, args.games, workers=1, mcts=mcts)
    rows = [{"backend": "local", "workers": 1, "seconds": round(seconds, 2),
             "games_per_second": round(args.games / seconds, 2)}]
    print(f"local, 1 process: {args.games / seconds:.2f} games/s")
    for workers in (int(w) for w in args.workers.split(",")):
        t = time.perf_counter()
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        start = time.perf_counter() - t
        _, warm_s = _timed(agents, args.players, workers, workers=workers, ray="local",
                           mcts=mcts)
        summary, seconds = _timed(agents, args.players, args.games, workers=workers, ray="local",
                                  mcts=mcts)
        ray.shutdown()
        assert summary == reference, "the Ray tournament differs from the local one"
        rows.append({"backend": "ray", "workers": workers, "seconds": round(seconds, 2),
                     "games_per_second": round(args.games / seconds, 2),
                     "ray_start_seconds": round(start, 2),
                     "first_game_per_worker_seconds": round(warm_s, 2)})
        print(f"ray, {workers} worker(s): {args.games / seconds:.2f} games/s (start "
              f"{start:.1f} s, first {workers} game(s) {warm_s:.1f} s)")
    result = {"date": time.strftime("%Y-%m-%d"), "machine": platform.platform(),
              "cpus": os.cpu_count(), "agents": agents, "players": args.players,
              "games": args.games, "mcts_iterations": args.mcts_iterations, "rows": rows}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out}")
    return result


if __name__ == "__main__":
    main()
