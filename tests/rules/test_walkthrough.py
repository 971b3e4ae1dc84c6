"""The rulebook's quick-introduction walkthrough (3 players: Bert, Ralph, Gina), rounds 1-9.

Where the (Italian) text mixes up district names, the consistent reading is used: Ralph's first
Inca is a potter (he alone produces pottery in round 1), and in round 5 he enters the Weaver's
Quarter (the cloth bonus and his weaver's cloth). One figure of the text is not consistent with
its own moves: after the Puma Temple in round 7 Ralph's Scout is on 13, not 10 (2 + 3 at the
Sun Temple + 2 for the corn offering + 6); RULES R4.2 is followed, and the granary he "passes"
there was already reached by the offering.
"""

from __future__ import annotations

from helpers import goods, play, player

from machu_env import Game

BERT, RALPH, GINA = 0, 1, 2


def _setup() -> Game:
    game = Game(
        3, seed=2008, start_player=BERT,
        hands=[["coca+puma"], ["corn+llama"], ["llama+coca"]],
        deck=["corn+condor", "llama+cloth", "pottery+condor"],
    )  # fmt: skip
    assert game.day == 2  # R2.6: with 3 players the first day is day 2
    assert [player(game, p)["scout"] for p in range(3)] == [1, 2, 3]  # R2.8
    play(game, "start llama_meadow", "start potters_quarter", "start llama_meadow")  # R2.9
    return game


def test_round_1_first_turns_anywhere():
    game = _setup()
    # Bert: Potter's Quarter, takes the pottery bonus; only Ralph has a potter and produces.
    play(game, "move potters_quarter")
    assert goods(game, BERT)["pottery"] == 2
    assert game.current_player == RALPH and game.legal_actions() == ["produce 0", "produce 1"]
    play(game, "produce 1")
    assert goods(game, RALPH)["corn"] == 2 and goods(game, RALPH)["pottery"] == 2
    # Ralph: Royal Palace, a weaver (coca + pottery) and a coca grower (pottery + cloth).
    play(game, "move royal_palace", "place weaver", "place coca_grower")
    assert player(game, RALPH)["incas"]["weavers_quarter"] == 1
    assert player(game, RALPH)["incas"]["coca_plantation"] == 1
    # Nothing more is affordable: "done" was automatic (R12.2), Gina decides now.
    assert game.current_player == GINA
    play(game, "move watchmans_hut", "place farmer", "place shepherd")
    assert goods(game, GINA) == {"corn": 0, "llama": 0, "coca": 0, "pottery": 0, "cloth": 1}
    assert player(game, GINA)["incas"]["llama_meadow"] == 2
    assert game.current_player == BERT


def _through_round_2() -> Game:
    game = _setup()
    play(game, "move potters_quarter", "produce 1", "move royal_palace", "place weaver",
         "place coca_grower", "move watchmans_hut", "place farmer", "place shepherd")
    # Round 2: Bert's shepherd produces; Gina's two shepherds cannot (no corn): no decision.
    play(game, "move llama_meadow", "produce 1")
    assert goods(game, BERT)["llama"] == 3
    play(game, "move coca_plantation", "produce 1", "move corn_terraces", "produce 1")
    return game


def test_round_2_production():
    game = _through_round_2()
    assert goods(game, BERT) == {"corn": 2, "llama": 3, "coca": 1, "pottery": 2, "cloth": 1}
    assert goods(game, RALPH) == {"corn": 1, "llama": 1, "coca": 2, "pottery": 0, "cloth": 0}
    assert goods(game, GINA)["corn"] == 6  # 3 bonus + 3 from her farmer


def _through_round_6() -> Game:
    game = _through_round_2()
    play(game, "move house_of_priests", "acquire condor")  # round 3: pays 1 llama to move
    play(game, "move sun_temple")  # Ralph: a stone, Scout +3; nobody has a Virgin
    play(game, "stay pottery")  # Gina
    play(game, "move condor_temple", "sacrifice 1")  # round 4: Bert pays a llama to move
    play(game, "move central_plaza", "market remove coca", "sell coca", "done")
    play(game, "move sun_clock", "sunclock llama_meadow")
    play(game, "stay cloth", "move weavers_quarter", "produce 1", "stay llama")  # round 5
    play(game, "stay trail3", "stay corn")  # round 6: the last turns of the day
    return game


def test_rounds_3_to_5():
    game = _through_round_2()
    play(game, "move house_of_priests")
    assert goods(game, BERT)["llama"] == 2  # not adjacent to the Llama Meadow: 1 llama
    play(game, "acquire condor")
    assert player(game, BERT)["priests"]["condor"] == 1
    assert game.view()["priest_rows"]["condor"] == 3
    play(game, "move sun_temple")
    assert player(game, RALPH)["scout"] == 5
    play(game, "stay pottery")
    play(game, "move condor_temple")
    assert game.legal_actions() == ["sacrifice 0", "sacrifice 1"]
    play(game, "sacrifice 1")  # 3 for the stone + 7 (Condor value after one priest)
    assert player(game, BERT)["scout"] == 11
    assert goods(game, BERT)["corn"] == 5  # the granary's 3 corn at the end of the turn
    play(game, "move central_plaza", "market remove coca")
    assert game.view()["market"]["coca"] == 1
    play(game, "sell coca")  # the uncovered price is 5
    assert goods(game, RALPH)["corn"] == 6
    play(game, "done", "move sun_clock", "sunclock llama_meadow")
    assert player(game, GINA)["incas"]["sun_clock"] == 1
    play(game, "stay cloth", "move weavers_quarter", "produce 1")
    assert goods(game, RALPH)["cloth"] == 2
    play(game, "stay llama")  # the 3rd moon tile: Gina takes the Sun tile (R6.1)
    assert game.view()["sun_player"] == GINA
    assert game.current_player == BERT  # every other player takes one last turn (R6.2)


def test_round_6_and_the_night():
    game = _through_round_2()
    play(game, "move house_of_priests", "acquire condor", "move sun_temple", "stay pottery",
         "move condor_temple", "sacrifice 1", "move central_plaza", "market remove coca",
         "sell coca", "done", "move sun_clock", "sunclock llama_meadow", "stay cloth",
         "move weavers_quarter", "produce 1", "stay llama", "stay trail3")
    corn_before = goods(game, RALPH)["corn"]
    play(game, "stay corn")  # Ralph is the last player of the day: +1 corn (R6.3)
    assert goods(game, RALPH)["corn"] == corn_before + 1
    # Night, from the Sun holder Gina (R7.1): her llama and pottery tiles, 1 corn each.
    assert game.current_player == GINA and game.legal_actions() == ["redeem llama", "forgo llama"]
    play(game, "redeem llama", "redeem pottery")
    assert goods(game, GINA)["corn"] == 4
    play(game, "redeem cloth")  # Bert's cloth tile; then his trail-3 tile: 11 -> 14, +1 llama
    assert player(game, BERT)["scout"] == 14 and goods(game, BERT)["llama"] == 1
    assert goods(game, RALPH)["corn"] == corn_before + 1 + 3  # his 3-corn tile
    # Sun Clock (R7.2): Gina's Inca returns; 3 different goods, Scout +3.
    assert game.current_player == GINA and game.decision == "take"
    play(game, "take llama,coca,cloth")
    assert player(game, GINA)["scout"] == 6 and player(game, GINA)["incas"]["sun_clock"] == 0
    assert goods(game, GINA) == {"corn": 4, "llama": 2, "coca": 1, "pottery": 1, "cloth": 2}
    # New bonus units (R7.3) and day 3, started by Gina (R7.4).
    v = game.view()
    assert v["day"] == 3 and v["active_player"] == GINA and game.current_player == GINA
    assert v["bonus"] == {"corn_terraces": 1, "llama_meadow": 1, "coca_plantation": 1,
                          "potters_quarter": 1, "weavers_quarter": 1, "condor_temple": 1,
                          "puma_temple": 2, "sun_temple": 1, "main_temple": 2}
    assert len(v["moon_tiles"]) == 7


def test_rounds_7_to_9():
    game = _through_round_6()
    play(game, "redeem llama", "redeem pottery", "redeem cloth", "take llama,coca,cloth")
    # Round 7: Gina at the Main Temple, 2 stones (+6), offers 3 corn (+2): 6 -> 14.
    play(game, "move main_temple", "offer corn")
    assert game.current_player == BERT
    play(game, "offer none", "offer corn")  # Bert declines, Ralph offers 3 corn
    assert player(game, GINA)["scout"] == 14
    assert goods(game, GINA)["corn"] == 4 and goods(game, GINA)["llama"] == 3  # granary, stable
    play(game, "move royal_palace", "place coca_grower")  # Bert: pottery + cloth
    assert player(game, BERT)["incas"]["coca_plantation"] == 1
    play(game, "move puma_temple")  # Ralph: both stones, +6
    assert player(game, RALPH)["scout"] == 13
    # Round 8: Gina's farmer; Bert's Condor Temple visit takes him over the summit.
    play(game, "move corn_terraces", "produce 1")
    assert goods(game, GINA)["corn"] == 10
    play(game, "move condor_temple", "sacrifice 1")  # 3 + 7 = 10 from 14: summit, then 4
    assert player(game, BERT)["scout"] == 4
    assert game.decision == "return" and game.current_player == BERT
    assert sorted(game.view(BERT)["players"][BERT]["cards"]) == [
        "coca+puma", "corn+condor", "llama+cloth", "pottery+condor"]
    play(game, "return coca+puma", "return llama+cloth")  # keeps both condor cards
    assert player(game, BERT)["cards"] == ["corn+condor", "pottery+condor"]
    assert game.view()["deck_size"] == 28 - 3 - 1
    play(game, "move weavers_quarter", "produce 1")  # Ralph (not in the text)
    # Round 9: Gina pays a llama for the Royal Palace: a potter and a coca grower.
    play(game, "move royal_palace", "place potter", "place coca_grower")
    assert goods(game, GINA) == {"corn": 10, "llama": 2, "coca": 0, "pottery": 0, "cloth": 0}
    assert player(game, GINA)["incas"]["potters_quarter"] == 1
    assert player(game, GINA)["incas"]["coca_plantation"] == 1
    assert game.current_player == BERT
