"""Writes docs/board_4p.png and .svg: a mid-game 4-player board (the fair ``gold`` and
``builder`` heuristics play 80 decisions of seed 2), drawn by the project's own renderer.

    python docs/make_board_picture.py
"""

from pathlib import Path

from machu_env import Game
from machu_env.agents import make_agent
from machu_env.views.raster import svg_to_png
from machu_env.views.svg import board_svg

HERE = Path(__file__).parent

game = Game(4, seed=2)
agents = [make_agent(name, seed=p) for p, name in enumerate(("gold", "builder", "gold",
                                                              "builder"))]
for _ in range(80):
    game.play(agents[game.current_player].act(game))
svg = board_svg(game, player=0)
(HERE / "board_4p.svg").write_text(svg)
svg_to_png(svg, HERE / "board_4p.png")
print(f"day {game.day}, {len(game.history)} decisions: wrote {HERE / 'board_4p.png'}")
