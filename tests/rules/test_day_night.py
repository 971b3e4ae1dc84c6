"""R6 (day end) and R7 (night, day 9)."""

from __future__ import annotations

from helpers import goods, play, player, set_board, set_player, started


def _stays(game, *tiles):
    for t in tiles:
        play(game, f"stay {t}")


def test_r6_sun_tile_last_turns_and_time_track_corn():
    game = started(3)
    for p in range(3):
        set_player(game, p, prince="llama_meadow")
    _stays(game, "trail2", "trail3")  # seats 0, 1
    assert game.view()["sun_player"] is None
    _stays(game, "corn")  # seat 2 takes the 3rd tile: the Sun tile
    assert game.view()["sun_player"] == 2
    assert game.current_player == 0  # last turns: 0 then 1
    play(game, "move potters_quarter")
    corn = goods(game, 1)["corn"]
    _stays(game, "cloth")  # seat 1's last turn (a 4th tile may still be taken, R6.2)
    assert goods(game, 1)["corn"] == corn + 1  # R6.3: the time track's corn
    # Night (R7.1) from the Sun holder: seat 2's corn tile and seat 0's trail tile need no
    # decision; seat 1 can pay for its cloth tile.
    assert game.day == 2 and game.current_player == 1
    assert game.legal_actions() == ["redeem cloth", "forgo cloth"]
    assert goods(game, 2)["corn"] == 3 + 3 and player(game, 0)["scout"] == 1 + 2


def test_r7_night_from_the_sun_holder_and_redeem_choices():
    """R7.1 and R12.5: the night's order, seat by seat from the Sun holder."""
    game = started(2)
    for p in range(2):
        set_player(game, p, prince="llama_meadow", corn=1)
    _stays(game, "pottery", "llama")  # seat 0, seat 1
    _stays(game, "cloth")  # seat 0: the Sun tile
    assert game.view()["sun_player"] == 0
    play(game, "move potters_quarter")  # seat 1's last turn (bonus pottery, no production)
    # Night: seat 0 first (pottery, cloth tiles; 1 corn: can pay for one)
    assert game.current_player == 0 and game.legal_actions() == ["redeem pottery", "forgo pottery"]
    play(game, "redeem pottery")
    # no corn left: the cloth tile is skipped (R7.1 Decision); then seat 1's llama tile
    assert game.current_player == 1 and game.legal_actions() == ["redeem llama", "forgo llama"]
    corn1 = goods(game, 1)["corn"]
    play(game, "forgo llama")
    assert goods(game, 1)["corn"] == corn1
    assert game.day == 2 and game.current_player == 0  # R7.4: the Sun holder starts day 2
    assert len(game.view()["moon_tiles"]) == 7  # R7.1: all tiles back
    assert goods(game, 0)["pottery"] == 2 and goods(game, 0)["cloth"] == 1


def test_r7_1_corn_tile_pays_for_the_other_tiles():
    game = started(2)
    for p in range(2):
        set_player(game, p, prince="llama_meadow", corn=0)
    _stays(game, "corn", "trail2", "coca")  # seat 0 takes the Sun tile
    play(game, "move potters_quarter")  # seat 1's last turn
    assert game.current_player == 0 and game.legal_actions() == ["redeem coca", "forgo coca"]
    play(game, "redeem coca")
    assert goods(game, 0)["corn"] == 3 - 1 and goods(game, 0)["coca"] == 2


def test_r7_2_sun_clock_payout_and_bank_limits():
    game = started(2)
    set_player(game, 0, prince="llama_meadow", incas={"sun_clock": 2}, scout=0)
    set_player(game, 1, prince="llama_meadow")
    set_board(game, bank={"llama": 0, "coca": 0})
    _stays(game, "trail2", "trail3", "corn")
    play(game, "move potters_quarter")
    # 3 kinds left (corn, pottery, cloth): both payouts automatic, Scout +3 each
    assert game.day == 2
    assert player(game, 0)["scout"] == 2 + 3 + 3  # trail2 tile, then 3 per Inca
    assert player(game, 0)["incas"]["sun_clock"] == 0
    assert player(game, 0)["incas_supply"] == 11 + 2


def test_r7_2_take_decision_offers_every_set_of_three():
    game = started(2)
    set_player(game, 0, prince="llama_meadow", incas={"sun_clock": 1})
    set_player(game, 1, prince="llama_meadow")
    _stays(game, "trail2", "trail3", "corn")
    play(game, "move potters_quarter")
    assert game.decision == "take" and len(game.legal_actions()) == 10
    set_board(game, bank={"cloth": 0})
    assert len(game.legal_actions()) == 4  # C(4, 3)


def test_r7_3_bonus_units_capped_and_bank_limited():
    game = started(2)
    for p in range(2):
        set_player(game, p, prince="llama_meadow")
    set_board(game, bonus={"condor_temple": 2, "corn_terraces": 0}, bank={"cloth": 0})
    _stays(game, "trail2", "trail3", "corn")
    play(game, "move potters_quarter")
    b = game.view()["bonus"]
    assert b["condor_temple"] == 2  # never more than 2
    assert b["corn_terraces"] == 1
    assert b["weavers_quarter"] == 1  # unchanged: the bank has no cloth
    assert b["potters_quarter"] == 1  # taken today, refilled


def test_r7_5_day_9_moon_tile_and_sun_clock_pay_at_once():
    game = started(2)
    set_board(game, day=9)
    set_player(game, 0, prince="llama_meadow", corn=2)
    play(game, "stay llama")
    assert game.decision == "redeem" and game.current_player == 0
    play(game, "redeem llama")
    assert player(game, 0)["moon_tiles"] == ["llama"]  # the tile stays
    set_player(game, 1, prince="main_temple", incas={"weavers_quarter": 1}, scout=0)
    play(game, "move sun_clock", "sunclock weavers_quarter")
    assert game.decision == "take"
    play(game, "take corn,llama,coca")
    assert player(game, 1)["incas"]["sun_clock"] == 1  # stays until the end
    assert player(game, 1)["scout"] == 3


def test_r8_2_conquest_after_day_9():
    game = started(2)
    set_board(game, day=9)
    for p in range(2):
        set_player(game, p, prince="llama_meadow")
    _stays(game, "trail2", "trail3", "corn")
    assert not game.is_over
    play(game, "move potters_quarter")
    assert game.is_over and game.end == "conquest" and game.current_player is None
    assert game.legal_actions() == []
