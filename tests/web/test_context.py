"""What the web state gives a decision beside it (``machu_env.web.context``): the human's own
goods and cards (``you``) and the part of the board the decision is about (``focus``)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.views.svg import board_svg  # noqa: E402
from machu_env.web import create_app  # noqa: E402
from machu_env.web.context import focus, you  # noqa: E402


def test_every_decisions_focus_is_an_element_of_the_board():
    """Over random games: the market's decisions point at the market, a night's redemption at
    the moon tiles, a card to return at its player's panel, the rest of the turn at the active
    Prince's district; each id is an element of the board the player sees."""
    seen = set()
    for seed in range(4):
        game, rnd = Game(3, seed=seed), random.Random(seed)
        while not game.is_over:
            where, decision = focus(game), game.decision
            v = game.view("public")
            if decision in ("market_adjust", "market_trade"):
                assert where == "market"
            elif decision == "redeem":
                assert where == "moon-tiles"
            elif decision == "return":
                assert where == f"player{game.current_player}"
            elif decision == "start":
                assert where is None
            elif decision != "take":
                assert where == v["players"][v["active_player"]]["prince"]
            if where is not None:
                assert f'id="{where}"' in board_svg(game, game.current_player)
            seen.add(decision)
            game.play(rnd.choice(game.legal_action_ids()))
    assert {"market_trade", "redeem", "move", "produce", "place"} <= seen


def test_you_is_your_own_goods_and_hand_only():
    game = Game(2, seed=3)
    mine = game.view(0)["players"][0]
    assert you(game, 0) == {"goods": mine["goods"], "cards": mine["cards"],
                            "incas_supply": mine["incas_supply"], "priests": mine["priests"],
                            "moon_tiles": mine["moon_tiles"]}
    assert you(game, None) is None  # a watcher has no hand


def test_the_state_carries_you_and_focus():
    with TestClient(create_app(), base_url="http://127.0.0.1:8000") as client:
        state = client.post("/api/games", json={"num_players": 2, "seat": 0, "seed": 1,
                                                "opponents": ["random"]}).json()
        assert state["you"]["cards"] and set(state["you"]["goods"]) == {
            "corn", "llama", "coca", "pottery", "cloth"}
        assert "focus" in state
        watched = client.post("/api/games", json={"num_players": 2, "seat": None, "seed": 1,
                                                  "opponents": ["random", "random"]}).json()
        assert watched["you"] is None
