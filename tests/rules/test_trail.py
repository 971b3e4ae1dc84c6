"""R5: the Inca Trail, its rewards and the summit."""

from __future__ import annotations

from helpers import goods, play, player, set_board, set_player, started

from machu_env import Game
from machu_env.rules.data import CARDS


def _deck_game(deck, hands=None, n=3):
    hands = hands or [["puma+virgin"], ["condor+virgin"], ["condor+puma"]][:n]
    game = Game(n, seed=1, start_player=0, hands=hands, deck=deck, scenario=True)
    for _ in range(n):
        game.play("start corn_terraces")
    return game


def test_r5_6_rulebook_example_12_plus_15():
    # A Scout on 12 advancing 15: summit after 8, ends on 7; 1 llama, the draw, 3 corn.
    game = _deck_game(["corn+llama", "corn+coca", "corn+pottery"])
    set_player(game, 0, prince="royal_palace", scout=12, llama=0, corn=0)
    set_board(game, bonus={"condor_temple": 5})  # 5 stones = 15 spaces
    play(game, "move condor_temple")
    assert player(game, 0)["scout"] == 7
    assert game.decision == "return" and game.current_player == 0
    assert sorted(game.view(0)["players"][0]["cards"]) == sorted(
        ["puma+virgin", "corn+llama", "corn+coca", "corn+pottery"])
    assert goods(game, 0)["llama"] == 1 and goods(game, 0)["corn"] == 3  # paid at the turn's end


def test_r5_3_returned_cards_go_to_the_bottom_in_order():
    game = _deck_game(["corn+llama", "corn+coca", "corn+pottery"])
    set_player(game, 0, prince="royal_palace", scout=18)
    play(game, "move condor_temple")  # 1 stone: 18 + 3 -> summit, ends on 1
    assert player(game, 0)["scout"] == 1
    assert len(game.legal_actions()) == 4
    play(game, "return corn+coca", "return puma+virgin")
    from machu_env.rules import layout as L

    s = game.state
    deck = [CARDS[s[L.DECK + (s[L.DECK_TOP] + i) % 28]] for i in range(s[L.DECK_COUNT])]
    assert deck[-2:] == ["corn+coca", "puma+virgin"]  # the first returned is above the second
    assert player(game, 0)["cards"] == ["corn+llama", "corn+pottery"]


def test_r5_5_stable_llama_cannot_be_sacrificed_the_same_turn():
    game = started(3)
    set_player(game, 0, prince="royal_palace", scout=10, llama=0, priests={"condor": 1})
    set_board(game, priests_taken={"condor": 1})
    play(game, "move condor_temple")  # +3: passes the stable (13)
    assert game.current_player == 1  # no llama to sacrifice: no decision
    assert goods(game, 0)["llama"] == 1  # the stable's llama arrived at the end of the turn


def test_r5_2_several_laps_pay_every_crossing():
    """R5.1: spaces 0..20, the summit 20 continues from 0; R5.2: every crossing pays."""
    game = _deck_game(["corn+llama", "corn+coca", "corn+pottery", "corn+cloth", "llama+coca",
                       "llama+pottery"])
    set_player(game, 0, prince="royal_palace", scout=0, llama=0, corn=0)
    set_board(game, bonus={"condor_temple": 15})  # 45 spaces: 0 -> 45 = 2 laps + 5
    play(game, "move condor_temple")
    assert player(game, 0)["scout"] == 5
    play(game, "return corn+llama", "return corn+coca")  # first summit
    play(game, "return puma+virgin", "return corn+pottery")  # second summit, next 3 cards
    assert goods(game, 0)["corn"] == 6 and goods(game, 0)["llama"] == 2
    assert player(game, 0)["num_cards"] == 3


def test_r5_3_two_cards_left_draw_both_return_one():
    game = _deck_game([])
    from machu_env.rules import layout as L

    game._s[L.DECK_COUNT] = 2
    set_player(game, 0, prince="royal_palace", scout=19)
    play(game, "move condor_temple")
    assert game.decision == "return"
    play(game, game.legal_actions()[0])
    assert game.view()["deck_size"] == 1 and player(game, 0)["num_cards"] == 2
    assert not game.is_over
