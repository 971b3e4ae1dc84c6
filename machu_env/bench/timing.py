"""Timings the suite (``machu bench``) and the benchmark scripts share: the engine's cold and
warm compile time in fresh processes, and ``Game.play``'s decisions per second."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time

_COMPILE_SNIPPET = """
import time
t = time.perf_counter()
import random
import numpy as np
import machu_env
from machu_env.rules import layout as L
from machu_env.engine.playout import random_playout
from machu_env.engine.rng import seed_state
from machu_env.engine.setup import init_state
g = machu_env.Game(3, seed=0)
r = random.Random(0)
while not g.is_over:
    g.play(r.choice(g.legal_action_ids()))
g.observation(0)
g.scores()
s, rng = np.zeros(L.STATE_SIZE, np.int32), seed_state(0)
init_state(s, 3, rng, -1, False)
random_playout(s, np.zeros(machu_env.NUM_ACTIONS, np.int32), rng, 3, 10, np.zeros(3, np.int64))
print(time.perf_counter() - t)
"""


def compile_times() -> tuple[float, float]:
    """(cold, warm) seconds for import + first full game, in fresh processes."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        run = [sys.executable, "-c", _COMPILE_SNIPPET]
        cold = float(subprocess.run(run, env=env, capture_output=True, text=True,
                                    check=True).stdout.split()[-1])
        warm = float(subprocess.run(run, env=env, capture_output=True, text=True,
                                    check=True).stdout.split()[-1])
    return cold, warm


def game_play_rate(decisions: int, num_players: int = 3) -> float:
    from machu_env.core.game import Game

    rnd = random.Random(0)
    done, seed = 0, 0
    t0 = time.perf_counter()
    while done < decisions:
        game = Game(num_players, seed=seed)
        seed += 1
        while not game.is_over:
            game.play(rnd.choice(game.legal_action_ids()))
            done += 1
    return done / (time.perf_counter() - t0)
