"""R8 (game end) and R9 (scoring)."""

from __future__ import annotations

import numpy as np
from helpers import play, set_board, set_player, started

from machu_env import Game
from machu_env.engine.scoring import conquest_multiplier
from machu_env.rules import layout as L


def test_r8_1_last_priest_ends_the_game_after_that_turn():
    game = started(3)
    set_board(game, priests_taken={"condor": 4, "puma": 5, "virgin": 5})
    set_player(game, 0, prince="sun_temple", coca=2, pottery=2, cloth=1)
    play(game, "move house_of_virgins", "acquire virgin")
    assert game.is_over and game.end == "rescue"
    assert game.view()["priest_rows"] == {"condor": 0, "puma": 0, "virgin": 0}


def test_r8_1_rescue_waits_for_the_end_of_turn_rewards():
    game = started(2)
    set_board(game, priests_taken={"condor": 4, "puma": 5, "virgin": 5}, bonus={"sun_temple": 2})
    set_player(game, 0, prince="royal_palace", scout=15, priests={"virgin": 1}, llama=1)
    set_player(game, 1, priests={"virgin": 1}, llama=1)
    play(game, "move sun_temple", "sacrifice 1")  # 15 + 6 + 5: the summit
    set_player(game, 1, coca=2, pottery=2, cloth=1, prince="house_of_priests")
    play(game, "sacrifice 1")
    assert game.decision == "return"  # the summit draw comes at the end of the turn (R5.5)
    play(game, game.legal_actions()[0])
    play(game, game.legal_actions()[0])
    play(game, "move house_of_virgins", "acquire virgin")  # seat 1 takes the last card
    assert game.is_over and game.end == "rescue"


def test_r8_1_deck_exhaustion_ends_the_game_and_later_summits_pay_3_vp():
    game = started(2)
    game._s[L.DECK_COUNT] = 1  # the last card
    set_player(game, 0, prince="royal_palace", scout=18, llama=1, priests={"condor": 1})
    set_player(game, 1, scout=19, llama=1, priests={"condor": 1})
    set_board(game, priests_taken={"condor": 2})
    play(game, "move condor_temple")  # seat 0: 18 + 3 -> summit
    play(game, "sacrifice 0", "sacrifice 1")  # seat 1: 19 + 6 -> summit
    # end of turn: seat 0 takes the last card (deck exhausted), seat 1's summit pays 3 VP
    assert game.is_over and game.end == "rescue"
    assert game.view()["deck_size"] == 0
    v = game.view()
    assert v["players"][0]["num_cards"] == 2 and v["players"][1]["summit_vp"] == 3
    assert game.scores()[1]["vp"] >= 3


def test_r9_1_to_r9_3_the_17_vp_example():
    hand = ["corn+puma", "coca+puma", "cloth+puma", "coca+cloth"]
    game = Game(2, seed=0, hands=[hand, []], scenario=True)
    set_player(game, 0, scout=11, priests={"puma": 2, "virgin": 1},
               incas={"corn_terraces": 2, "llama_meadow": 1, "coca_plantation": 1,
                      "weavers_quarter": 3})
    sc = game.scores()[0]
    assert sc["vp"] == 2 + 2 + 6 + 6 + 1 == 17
    assert sc["gold"] == 5 + 5 + 3 + 5 + 1 == 19  # the 18 gold of the example + trail bonus
    # the same 17 VP by icon: corn 2 (corn+puma x 2 Incas), puma 2 priests x 3 cards,
    # coca 1 Inca x 2 cards, cloth 3 Incas x 2 cards, the trail bonus 1
    assert game.vp_details(0) == {"corn": 2, "llama": 0, "coca": 2, "pottery": 0, "cloth": 6,
                                  "condor": 0, "puma": 6, "virgin": 0, "trail": 1,
                                  "summits": 0}


def test_r9_2_trail_bonus():
    game = Game(2, seed=0, hands=[[], []], scenario=True)
    for space, bonus in [(0, 0), (6, 0), (7, 1), (12, 1), (13, 2), (19, 2)]:
        set_player(game, 0, scout=space)
        assert game.scores()[0]["vp"] == bonus


def test_r9_4_conquest_table_from_the_rulebook():
    golds = np.array([18, 12, 17, 17], dtype=np.int32)  # blue, green, red, yellow
    mult = [conquest_multiplier(golds, g) for g in golds]
    assert mult == [3, 1, 2, 2]
    assert [vp * m for vp, m in zip([17, 34, 18, 27], mult, strict=False)] == [51, 34, 36, 54]
    assert [conquest_multiplier(np.array([18, 17, 17, 12], np.int32), g)
            for g in (18, 17, 17, 12)] == [3, 2, 2, 1]
    assert [conquest_multiplier(np.array([9, 9, 5], np.int32), g) for g in (9, 9, 5)] == [3, 3, 2]


def test_r9_4_conquest_scores_and_r9_5_tie_break():
    game = started(2, hands=[["corn+condor"], ["corn+cloth"]])  # gold 5 vs 3
    set_board(game, day=9)
    set_player(game, 0, prince="llama_meadow", incas={"corn_terraces": 1})
    set_player(game, 1, prince="llama_meadow", incas={"corn_terraces": 3})
    play(game, "stay trail2", "stay trail3", "stay corn")  # R7.5: paid at once
    set_player(game, 0, corn=0, llama=0, coca=0, pottery=0, cloth=0, scout=0)
    set_player(game, 1, corn=0, llama=0, coca=0, pottery=0, cloth=0, scout=0)
    play(game, "move potters_quarter")
    assert game.end == "conquest"
    s0, s1 = game.scores()
    assert (s0["vp"], s0["multiplier"], s0["score"]) == (1, 3, 3)  # corn icon x 1 farmer
    assert (s1["vp"], s1["multiplier"], s1["score"]) == (3, 2, 6)  # corn icon x 3 farmers
    assert s1["winner"] and not s0["winner"]


def test_r9_5_ties_on_goods_units_then_shared():
    game = Game(2, seed=0, hands=[[], []], scenario=True)
    game._s[L.GAME_OVER] = 1
    game._s[L.END_KIND] = L.END_RESCUE
    set_player(game, 0, corn=5, llama=1, coca=0, pottery=0, cloth=0)  # 2 units
    set_player(game, 1, corn=2, llama=1, coca=1, pottery=0, cloth=0)  # 2 units
    assert [s["winner"] for s in game.scores()] == [True, True]
    set_player(game, 1, corn=3)
    assert [s["winner"] for s in game.scores()] == [False, True]


def test_vp_details_add_up_to_the_victory_points_in_any_game():
    import random

    for seed in range(6):
        game, rng = Game(2 + seed % 4, seed=seed), random.Random(seed)
        while not game.is_over:
            game.play(rng.choice(game.legal_action_ids()))
        for p, sc in enumerate(game.scores()):
            assert sum(game.vp_details(p).values()) == sc["vp"]
