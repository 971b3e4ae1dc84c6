"""What the web state gives a decision beside it (``machu_env.web.context``): the human's own
goods and cards (``you``), every player's row of the strip (``players``), the part of the board
the decision is about (``focus``) and the part to tap for each move (``spots``)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.rules.data import MARKET_SPACES  # noqa: E402
from machu_env.views.phrases import card_words  # noqa: E402
from machu_env.views.svg import board_svg  # noqa: E402
from machu_env.web import create_app  # noqa: E402
from machu_env.web.context import focus, players, spots, you  # noqa: E402
from machu_env.web.words import turn_district  # noqa: E402


def test_every_decisions_focus_is_an_element_of_the_board():
    """Over random games: the market's decisions point at the market, a night's redemption at
    the moon tiles, the rest of the turn at the active Prince's district (a card to return:
    none, the strip shows the hand); each id is an element of the board the player sees."""
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
            elif decision in ("return", "start"):
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
    assert you(game, 0) == {"goods": mine["goods"],
                            "cards": [card_words(c) for c in mine["cards"]],
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


def test_the_strip_shows_every_players_goods_and_only_your_own_hand():
    game = Game(3, seed=4)
    for _ in range(25):
        game.play(game.legal_action_ids()[0])
    rows, full = players(game, 1), game.view(None)["players"]
    assert [r["player"] for r in rows] == [0, 1, 2] and [r["you"] for r in rows] == [0, 1, 0]
    for r, pv in zip(rows, full, strict=True):
        assert r["goods"] == pv["goods"] and r["num_cards"] == pv["num_cards"]
        assert r["scout"] == pv["scout"] and r["incas_supply"] == pv["incas_supply"]
    assert rows[1]["cards"] == [card_words(c) for c in full[1]["cards"]]
    assert rows[0]["cards"] is None and rows[2]["cards"] is None  # hidden hands
    assert [r["deciding"] for r in rows].count(True) == 1
    assert rows[game.current_player]["deciding"] and rows[game.active_player]["active"]
    assert all(r["cards"] is None for r in players(game, None))  # a watcher


def test_every_move_with_a_place_on_the_board_is_tapped_there():
    """Districts for the Prince, the first Inca, a new Inca and the Sun Clock; the moon tile
    taken by staying; the first empty market space for a unit added or sold, the top filled
    one for a unit removed or bought; the priest row; the trail space a sacrifice climbs to.
    Each spot is a group of the board the player sees, and no two moves share one."""
    kinds = set()
    for seed in range(6):
        game, rnd = Game(2, seed=seed), random.Random(seed)
        while not game.is_over:
            view, actions = game.view(None), game.legal_actions()
            found = spots(game, actions, view)
            svg = board_svg(game, game.current_player)
            assert len(set(found.values())) == len(found)
            for action, spot in found.items():
                assert f'<g id="{spot}">' in svg, (action, spot)
                verb, last = action.split()[0], action.split()[-1]
                kinds.add(verb)
                units = view["market"].get(last)
                if verb == "sell" or action.startswith("market add"):
                    assert spot in (f"market-{last}-{units}", f"market-{last}-bank")
                if verb == "buy" or action.startswith("market remove"):
                    assert spot in (f"market-{last}-{units - 1}", f"market-{last}-bank")
                if units is not None and spot.endswith("-bank"):
                    assert units in (0, MARKET_SPACES)
                if verb in ("move", "start", "sunclock"):
                    assert spot == last
                if verb in ("stay", "redeem"):  # (at night: the tile the player holds)
                    assert spot == f"moon-{last}"
                if verb == "produce":  # the district produces with every Inca it may
                    assert spot == turn_district(game) and int(last) == max(
                        int(a.split()[1]) for a in actions if a.startswith("produce"))
                if verb == "sacrifice":
                    assert spot.startswith("trail-") and last != "0"
                if verb == "offer":  # R4.2.2: the Scout's space after 2 spaces a unit
                    scout = view["players"][game.current_player]["scout"]
                    assert spot == f"trail-{min(scout + 2 * len(last.split(',')), 20)}"
            for action in actions:  # what has no place on the board stays with the buttons
                if action.split()[0] in ("take", "return", "forgo", "done", "pass") or (
                        action == "offer none"):
                    assert action not in found
                if action.startswith("produce") and action != max(
                        (a for a in actions if a.startswith("produce")),
                        key=lambda a: int(a.split()[1])):
                    assert action not in found  # (fewer Incas: the buttons)
            game.play(rnd.choice(game.legal_action_ids()))
    assert {"start", "move", "stay", "buy", "sell", "market", "place", "sunclock", "redeem",
            "produce", "offer"} <= kinds
