"""``python -m machu_env``: play a few games with random agents and print the final board."""

from __future__ import annotations

import argparse
import random
import time

from machu_env.core.game import Game
from machu_env.views.render import render_text


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m machu_env", description=__doc__)
    ap.add_argument("--games", type=int, default=3, help="number of games (default 3)")
    ap.add_argument("--players", type=int, default=3, choices=range(2, 6), help="2..5")
    ap.add_argument("--seed", type=int, default=0, help="first game's seed (default 0)")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    t0 = time.perf_counter()
    for i in range(args.games):
        game = Game(args.players, seed=args.seed + i)
        rng = random.Random(args.seed + i)
        while not game.is_over:
            game.play(rng.choice(game.legal_action_ids()))
        print(f"=== game {i + 1}: seed {args.seed + i}, {len(game.history)} decisions")
        print(render_text(game))
        print()
    print(f"{args.games} games in {time.perf_counter() - t0:.1f} s (first call includes numba "
          "compilation, cached afterwards)")


if __name__ == "__main__":
    main()
