"""Picture speed on this machine: one SVG board (``machu_env.views.svg.board_svg``), one
``rgb_array`` frame (SVG rasterised by resvg-py, decoded by Pillow) and one HTML replay page,
for 2–5 players, at positions of random games (the median over the positions).

``python benchmarks/render_speed.py [--positions N]`` (needs the ``render`` extra)
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time

from machu_env.core.game import Game
from machu_env.core.records import game_record
from machu_env.views.raster import svg_to_rgb
from machu_env.views.replay_html import html_replay
from machu_env.views.svg import board_svg


def _positions(n: int, count: int, seed: int = 0) -> list[Game]:
    """``count`` positions spread over random games."""
    rnd, out = random.Random(seed), []
    while len(out) < count:
        game = Game(n, seed=rnd.randrange(2**31))
        stop = rnd.randrange(150)
        while not game.is_over and len(game.history) < stop:
            game.play(rnd.choice(game.legal_action_ids()))
        out.append(game)
    return out


def _median_ms(fn, items) -> float:
    times = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=50)
    args = parser.parse_args()
    svg_to_rgb(board_svg(Game(2, seed=0)))  # warm-up: fonts, libraries
    rows = []
    for n in (2, 3, 4, 5):
        games = _positions(n, args.positions)
        svgs = [board_svg(g, 0) for g in games]
        full = _positions(n, 3, seed=1)
        for g in full:
            rnd = random.Random(2)
            while not g.is_over:
                g.play(rnd.choice(g.legal_action_ids()))
        rows.append({
            "players": n,
            "svg_ms": round(_median_ms(lambda g: board_svg(g, 0), games), 2),
            "rgb_array_ms": round(_median_ms(svg_to_rgb, svgs), 1),
            "svg_kb": round(statistics.median(len(s) for s in svgs) / 1024, 1),
            "html_replay_ms": round(_median_ms(lambda g: html_replay(game_record(g)), full)),
        })
    print(json.dumps({"machine": f"{platform.machine()}, {platform.python_version()}",
                      "positions": args.positions, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
