"""Play N random games per player count through ``Game``, checking every invariant after every
decision; report the time taken, the share of rescue / conquest endings and the mean number of
decisions per game. ``python scripts/random_games.py --games 1000``."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers import check_invariants  # noqa: E402

from machu_env import Game  # noqa: E402


def run(num_players: int, games: int, check: bool = True) -> dict:
    ends = {"rescue": 0, "conquest": 0}
    decisions = 0
    t0 = time.perf_counter()
    for i in range(games):
        game = Game(num_players, seed=i)
        rnd = random.Random(i)
        while not game.is_over:
            if check:
                check_invariants(game)
            game.play(rnd.choice(game.legal_action_ids()))
        check_invariants(game)
        ends[game.end] += 1
        decisions += len(game.history)
    return {"players": num_players, "games": games, "seconds": time.perf_counter() - t0,
            "rescue": ends["rescue"] / games, "conquest": ends["conquest"] / games,
            "mean_decisions": decisions / games}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    args = ap.parse_args()
    print("players  games  seconds  rescue  conquest  decisions/game")
    for n in (2, 3, 4, 5):
        r = run(n, args.games, not args.no_check)
        print(f"{n:7d}  {r['games']:5d}  {r['seconds']:7.1f}  {r['rescue']:6.1%}  "
              f"{r['conquest']:8.1%}  {r['mean_decisions']:14.1f}")


if __name__ == "__main__":
    main()
