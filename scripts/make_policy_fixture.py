"""Record games of the sb3 ``.zip`` agents, so that their data-only conversions can be checked
move for move (``tests/agents/test_agent_files.py``).

    python scripts/make_policy_fixture.py OLD_2P.zip OLD_3P.zip tests/data/policy_moves.json

The zips are the agents shipped before the data-only format (commit 7ce598a,
``agents/checkpoints/ppo_{2,3}p.zip``); they are loaded with sb3 (pickle: trusted, our own
files) and play with ``MaskablePPO.predict(..., deterministic=True)``, as ``PolicyAgent`` did.
"""

from __future__ import annotations

import json
import sys

from sb3_contrib import MaskablePPO

from machu_env import Game
from machu_env.agents import make_agent
from machu_env.core.records import game_record

MATCHES = {  # agent -> list of (opponents, games)
    "ppo-2p": [(["gold"], 10), (["builder"], 5), (["random"], 5)],
    "ppo-3p": [(["gold", "gold"], 10), (["builder", "random"], 5)],
}


def play(model, opponents: list[str], seat: int, seed: int) -> dict:
    n = len(opponents) + 1
    game = Game(n, seed=seed)
    others = iter(opponents)
    agents = {p: make_agent(next(others), seed * 8 + p) for p in range(n) if p != seat}
    while not game.is_over:
        p = game.current_player
        if p == seat:
            action, _ = model.predict(game.observation(p), deterministic=True,
                                      action_masks=game.action_mask().astype(bool))
            game.play(int(action))
        else:
            game.play(agents[p].act(game))
    return game_record(game, [("policy" if p == seat else "other") for p in range(n)])


def main(zip2: str, zip3: str, out: str) -> None:
    rows = []
    for name, path in (("ppo-2p", zip2), ("ppo-3p", zip3)):
        model = MaskablePPO.load(path, device="cpu")
        k = 0
        for opponents, games in MATCHES[name]:
            for _ in range(games):
                seat = k % (len(opponents) + 1)
                rows.append({"agent": name, "seat": seat,
                             "record": play(model, opponents, seat, 9000 + k)})
                k += 1
    with open(out, "w") as f:
        json.dump(rows, f, separators=(",", ":"))
    print(f"wrote {out}: {len(rows)} games")


if __name__ == "__main__":
    main(*sys.argv[1:4])
