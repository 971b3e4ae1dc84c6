"""R1, R2, R12.3: components and setup."""

from __future__ import annotations

import pytest
from helpers import player

from machu_env import Game
from machu_env.rules import layout as L
from machu_env.rules.data import BANK_START, CARDS

GOODS4 = ("llama", "coca", "pottery", "cloth")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_r1_r2_components_and_player_equipment(n):
    game = Game(n, seed=3)
    v = game.view()
    assert v["market"] == {g: 2 for g in GOODS4}  # R2.2
    assert v["priest_rows"] == {"condor": 4, "puma": 5, "virgin": 6}  # R2.1, R1
    assert all(k == 1 for k in v["bonus"].values())  # R2.4, R2.5
    for p in v["players"]:  # R2.7
        assert p["goods"] == {"corn": 3, "llama": 1, "coca": 1, "pottery": 1, "cloth": 1}
        assert p["incas_supply"] == {2: 12, 3: 10, 4: 9, 5: 8}[n]
        assert p["num_cards"] == 1 and p["prince"] is None
    # R1.1: bank = component count minus market (2), bonus (1) and the players' goods
    for i, g in enumerate(GOODS4, start=1):
        assert v["bank"][g] == BANK_START[i] - 2 - 1 - n
    assert v["deck_size"] == 28 - n  # R2.3


@pytest.mark.parametrize(("n", "day"), [(2, 1), (3, 2), (4, 3), (5, 3)])
def test_r2_6_start_day(n, day):
    assert Game(n, seed=0).day == day
    assert Game(n, seed=0, learning_game=True).day == day + 2  # R2.11


def test_r2_8_scouts_from_the_start_player():
    game = Game(4, seed=1, start_player=2)
    assert [player(game, p)["scout"] for p in range(4)] == [3, 4, 1, 2]


def test_r2_9_initial_incas_clockwise_from_start_player():
    game = Game(3, seed=1, start_player=1)
    order = []
    for d in ("weavers_quarter", "weavers_quarter", "corn_terraces"):
        order.append(game.current_player)
        assert game.decision == "start" and len(game.legal_actions()) == 5
        game.play(f"start {d}")
    assert order == [1, 2, 0]
    assert player(game, 1)["incas"]["weavers_quarter"] == 1
    assert player(game, 2)["incas"]["weavers_quarter"] == 1  # also a district already chosen
    assert player(game, 0)["incas"]["corn_terraces"] == 1
    assert player(game, 0)["incas_supply"] == 9


def test_r2_10_first_turn_is_anywhere_and_free():
    game = Game(2, seed=1, start_player=0)
    game.play_all(["start corn_terraces", "start corn_terraces"])
    assert game.decision == "move" and game.current_player == 0
    assert len(game.legal_actions()) == 15  # every district, no stay (no Prince yet)
    game.play("move house_of_virgins")
    assert player(game, 0)["goods"]["llama"] == 1  # no llama paid


def test_r2_11_learning_game():
    game = Game(3, seed=1, learning_game=True)
    assert game.decision == "move"  # R2.9 is skipped
    for p in game.view()["players"]:
        assert all(p["incas"][d] == 1 for d in ("corn_terraces", "llama_meadow",
                                                "coca_plantation", "potters_quarter",
                                                "weavers_quarter"))
        assert p["incas_supply"] == 5


def test_r12_3_same_seed_same_setup_and_seed_matters():
    a, b = Game(4, seed=99), Game(4, seed=99)
    assert a.view() == b.view()
    assert (a.state == b.state).all()
    setups = {tuple(Game(4, seed=s).state) for s in range(20)}
    assert len(setups) > 15
    starts = {Game(4, seed=s).view()["start_player"] for s in range(40)}
    assert starts == {0, 1, 2, 3}


def test_hands_and_deck_options():
    game = Game(2, seed=5, hands=[["corn+cloth", "puma+virgin"], [0]],
                deck=["coca+cloth", "condor+virgin"], scenario=True)
    v = game.view()
    assert v["players"][0]["cards"] == ["corn+cloth", "puma+virgin"]
    assert v["players"][1]["cards"] == [CARDS[0]]
    assert v["deck_size"] == 25
    top = [int(game.state[L.DECK + (game.state[L.DECK_TOP] + i) % 28]) for i in range(2)]
    assert [CARDS[c] for c in top] == ["coca+cloth", "condor+virgin"]
    # deck only: the dealt hands are kept, the named cards go on top
    g2 = Game(3, seed=5, deck=["corn+llama"])
    dealt = [p["cards"] for p in Game(3, seed=5).view()["players"]]
    if ["corn+llama"] not in dealt:
        assert [p["cards"] for p in g2.view()["players"]] == dealt


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players must be an int in 2..5"),
        ({"num_players": 6}, "num_players must be an int in 2..5"),
        ({"num_players": "3"}, "num_players"),
        ({"num_players": 3, "seed": -1}, r"seed must be an int in 0..18446744073709551615"),
        ({"num_players": 3, "seed": 2**64 + 5}, r"seed must be an int in 0..18446744073709551615"),
        ({"num_players": 3, "seed": 1.5}, "seed"),
        ({"num_players": 3, "start_player": 3}, "start_player must be an int in 0..2"),
        ({"num_players": 3, "hands": [["corn+cloth"]]}, "hands must be a list of 3 lists"),
        ({"num_players": 2, "hands": [["corn+cloth"], ["gold+silver"]]}, "unknown sacrifice card"),
        ({"num_players": 2, "hands": [["corn+cloth"], ["corn+cloth"]]}, "duplicate card"),
        ({"num_players": 2, "deck": ["coca+cloth", "coca+cloth"]}, "duplicate card"),
        ({"num_players": 2, "deck": [28]}, "unknown sacrifice card"),
        ({"num_players": 2, "hands": [["corn+cloth"], ["coca+cloth"]], "deck": ["corn+cloth"]},
         "cannot be in the deck"),
        # R2.7: one sacrifice card each; any other deal needs scenario=True
        ({"num_players": 2, "hands": [[], [0]], "deck": list(range(1, 28))},
         r"hands\[0\] holds 0 cards; every player starts with exactly 1 sacrifice card \(R2.7\)"),
        ({"num_players": 3, "hands": [[0], [1, 2], [3]]}, r"hands\[1\] holds 2 cards"),
        ({"num_players": 2, "hands": [[0], [1]], "scenario": 1}, "scenario must be True or False"),
        ({"num_players": 2, "learning_game": "yes"}, "learning_game must be True or False"),
    ],
)
def test_invalid_options_raise_value_error(kwargs, message):
    kwargs = {"seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        Game(**kwargs)
