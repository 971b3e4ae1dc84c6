"""R3 (a turn) and R4 (the districts)."""

from __future__ import annotations

from helpers import goods, play, player, set_board, set_player, started

from machu_env.rules.data import ADJACENT, DISTRICTS


def at(district: str, n: int = 3, **player_kw):
    """A game at seat 0's second-day-style turn with its Prince in ``district``."""
    game = started(n)
    set_player(game, 0, prince=district, **player_kw)
    return game


# --- R3 -------------------------------------------------------------------------------------------
def test_r3_1_r3_2_adjacent_free_others_cost_a_llama():
    game = at("potters_quarter", llama=1)
    moves = [a for a in game.legal_actions() if a.startswith("move")]
    assert len(moves) == 14  # every other district (R3.4: not the current one)
    play(game, "move llama_meadow")  # adjacent
    assert goods(game, 0)["llama"] >= 1
    game = at("potters_quarter", llama=1)
    bank = game.view()["bank"]["llama"]
    play(game, "move house_of_priests")  # not adjacent: 1 llama to the bank
    assert goods(game, 0)["llama"] == 0 and game.view()["bank"]["llama"] == bank + 1


def test_r3_2_without_llama_only_adjacent_moves():
    game = at("potters_quarter", llama=0)
    moves = {a.split()[1] for a in game.legal_actions() if a.startswith("move")}
    assert moves == {"central_plaza", "llama_meadow", "puma_temple", "watchmans_hut"}


def test_r3_3_stay_takes_a_moon_tile_without_the_district_action():
    game = at("corn_terraces")
    corn = goods(game, 0)["corn"]
    stays = [a for a in game.legal_actions() if a.startswith("stay")]
    assert len(stays) == 7
    play(game, "stay trail3")
    assert player(game, 0)["moon_tiles"] == ["trail3"]
    assert goods(game, 0)["corn"] == corn  # no bonus, no production (R3.3)
    assert game.view()["bonus"]["corn_terraces"] == 1
    assert game.current_player == 1  # R3.5: turns pass clockwise


def test_r3_4_never_the_same_district_twice_in_a_row():
    for d in range(15):
        game = at(DISTRICTS[d], llama=3)
        assert f"move {DISTRICTS[d]}" not in game.legal_actions()


# --- R4.0 / R4.1 production -----------------------------------------------------------------------
def test_r4_0_empty_district_does_nothing():
    game = at("watchmans_hut", incas={"corn_terraces": 2})
    set_board(game, bonus={"corn_terraces": 0})
    corn = goods(game, 0)["corn"]
    play(game, "move corn_terraces")
    assert goods(game, 0)["corn"] == corn and game.current_player == 1


def test_r4_1_production_in_seat_order_from_the_active_player_spanish_example():
    """R4.1 and R12.5: one decision per producing player, seat order from the active one."""
    # Blue (1) enters the Coca Plantation with 2 coca units on it; yellow (2) produces 1,
    # blue 1, red (0) 2 — asked in seat order from blue.
    game = started(3)
    set_player(game, 0, incas={"coca_plantation": 2}, corn=5)
    set_player(game, 2, incas={"coca_plantation": 1}, corn=5)
    set_board(game, bonus={"coca_plantation": 2})
    play(game, "move llama_meadow")  # seat 0's turn passes
    set_player(game, 1, incas={"coca_plantation": 1}, prince="royal_palace", corn=5)
    play(game, "move coca_plantation")
    assert goods(game, 1)["coca"] == 3  # both bonus units
    order = []
    for n in (1, 1, 2):
        order.append(game.current_player)
        play(game, f"produce {n}")
    assert order == [1, 2, 0]
    assert goods(game, 1)["corn"] == 4 and goods(game, 1)["coca"] == 4
    assert goods(game, 2)["coca"] == 2
    assert goods(game, 0)["coca"] == 3 and goods(game, 0)["corn"] == 3


def test_r4_1_farmers_are_free_and_production_is_optional():
    game = at("watchmans_hut", incas={"corn_terraces": 3}, corn=0)
    play(game, "move corn_terraces")
    assert game.legal_actions() == ["produce 0", "produce 1", "produce 2", "produce 3"]
    play(game, "produce 2")
    assert goods(game, 0)["corn"] == 3 + 6  # bonus 3 + 2 farmers x 3


def test_r4_1_production_limited_by_corn_and_bank():
    game = at("potters_quarter", incas={"llama_meadow": 3}, corn=2)
    play(game, "move llama_meadow")
    assert game.legal_actions()[-1] == "produce 2"
    game = at("potters_quarter", incas={"llama_meadow": 3}, corn=5)
    set_board(game, bank={"llama": 1})
    play(game, "move llama_meadow")
    assert game.legal_actions()[-1] == "produce 1"  # R1.1


def test_r4_1_no_corn_no_decision():
    game = at("potters_quarter", incas={"llama_meadow": 2}, corn=0)
    play(game, "move llama_meadow")
    assert goods(game, 0)["llama"] == 2 and game.current_player == 1  # R12.2


# --- R4.2 temples ---------------------------------------------------------------------------------
def test_r4_2_1_sun_temple_spanish_example():
    # 3 Virgins taken: value 7. Blue (0) takes 2 stones (+6) and has no Virgin; yellow (1)
    # sacrifices 1 llama (+7); red (2) has 2 Virgins but 1 llama: at most 1 (+7).
    game = at("royal_palace", scout=0)
    set_board(game, bonus={"sun_temple": 2}, priests_taken={"virgin": 3})
    set_player(game, 1, priests={"virgin": 1}, llama=2, scout=0)
    set_player(game, 2, priests={"virgin": 2}, llama=1, scout=0)
    play(game, "move sun_temple")
    assert player(game, 0)["scout"] == 6
    assert game.current_player == 1 and game.legal_actions() == ["sacrifice 0", "sacrifice 1"]
    play(game, "sacrifice 1")
    assert game.current_player == 2 and game.legal_actions() == ["sacrifice 0", "sacrifice 1"]
    play(game, "sacrifice 1")
    assert player(game, 1)["scout"] == 7 and player(game, 2)["scout"] == 7
    assert goods(game, 2)["llama"] == 0


def test_r4_4_2_sacrifice_values_of_the_rows():
    from machu_env.engine.decisions import sacrifice_value

    game = started(3)
    s = game._s.copy()
    from machu_env.rules import layout as L

    values = []
    for kind, size in enumerate((4, 5, 6)):
        row = []
        for k in range(1, size + 1):
            s[L.PRIESTS_TAKEN + kind] = k
            row.append(int(sacrifice_value(s, kind)))
        values.append(row)
    assert values == [[7, 6, 5, 4], [8, 7, 6, 5, 4], [9, 8, 7, 6, 5, 4]]


def test_r4_2_no_stone_no_sacrifice():
    game = at("royal_palace", priests={"condor": 1}, llama=2, scout=0)
    set_board(game, bonus={"condor_temple": 0}, priests_taken={"condor": 1})
    play(game, "move condor_temple")
    assert player(game, 0)["scout"] == 0 and game.current_player == 1


def test_r4_2_2_main_temple_different_goods():
    game = at("sun_clock", scout=0, corn=3, llama=1, coca=0, pottery=0, cloth=1)
    play(game, "move main_temple")  # 1 stone: +3
    assert game.legal_actions() == [
        "offer none", "offer corn", "offer llama", "offer corn,llama", "offer cloth",
        "offer corn,cloth", "offer llama,cloth", "offer corn,llama,cloth"]
    play(game, "offer corn,llama,cloth")  # the Spanish example: 3 units, +6
    assert player(game, 0)["scout"] == 9
    assert goods(game, 0) == {"corn": 0, "llama": 0, "coca": 0, "pottery": 0, "cloth": 0}


# --- R4.3 placing Incas ---------------------------------------------------------------------------
def test_r4_3_royal_palace_one_per_district_and_costs():
    game = at("condor_temple", corn=0, llama=0, coca=3, pottery=3, cloth=3)
    play(game, "move royal_palace")
    assert game.legal_actions() == ["place coca_grower", "place potter", "place weaver", "done"]
    play(game, "place coca_grower", "place weaver")
    assert game.legal_actions() == ["place potter", "done"]  # at most one per district
    play(game, "place potter")  # then only "done": automatic
    assert goods(game, 0) == {"corn": 0, "llama": 0, "coca": 1, "pottery": 1, "cloth": 1}
    assert game.current_player == 1


def test_r4_3_watchmans_hut_and_empty_supply():
    game = at("llama_meadow", corn=3, llama=1, coca=1, pottery=1)
    play(game, "move watchmans_hut")
    assert game.legal_actions() == ["place farmer", "place shepherd", "done"]
    game = at("llama_meadow", corn=3, llama=1, coca=1, pottery=1, supply=0)
    play(game, "move watchmans_hut")
    assert game.current_player == 1  # no Incas in supply: nothing to decide


# --- R4.4 priests ---------------------------------------------------------------------------------
def test_r4_4_house_of_priests_spanish_example():
    game = at("main_temple", coca=1, pottery=1, cloth=2)
    set_board(game, priests_taken={"puma": 3})  # the row shows 6
    play(game, "move house_of_priests")
    assert game.legal_actions() == ["acquire condor", "acquire puma", "pass"]
    play(game, "acquire puma")
    assert goods(game, 0)["cloth"] == 0 and player(game, 0)["priests"]["puma"] == 1
    from machu_env.engine.decisions import sacrifice_value

    assert sacrifice_value(game._s, 1) == 5  # "the number 5 becomes visible"


def test_r4_4_empty_row_and_virgin_cost():
    game = at("sun_temple", coca=2, pottery=2, cloth=1)
    set_board(game, priests_taken={"virgin": 6})
    play(game, "move house_of_virgins")
    assert game.current_player == 1  # row empty: only "pass"
    game = at("sun_temple", coca=2, pottery=2, cloth=1)
    play(game, "move house_of_virgins", "acquire virgin")
    assert goods(game, 0)["coca"] == 0 and goods(game, 0)["cloth"] == 0


# --- R4.5 market ----------------------------------------------------------------------------------
def test_r4_5_market_rulebook_example():
    """R4.5.1 adjustment, then R4.5.2 trades one at a time until done (R12.5)."""
    # Market: cloth 2, coca 1, llama 3, pottery 0. Remove a cloth; sell 2 cloth for 5 + 4;
    # sell 1 coca for 5; buy 1 llama for 4; buy 1 pottery from the bank for 6.
    game = at("sun_temple", corn=1, llama=0, coca=1, pottery=0, cloth=2)
    set_board(game, market={"cloth": 2, "coca": 1, "llama": 3, "pottery": 0})
    play(game, "move central_plaza", "market remove cloth", "sell cloth")
    assert goods(game, 0)["corn"] == 6
    play(game, "sell cloth", "sell coca", "buy llama")
    assert goods(game, 0)["corn"] == 1 + 5 + 4 + 5 - 4
    play(game, "buy pottery", "done")
    assert goods(game, 0) == {"corn": 5, "llama": 1, "coca": 0, "pottery": 1, "cloth": 0}
    assert game.view()["market"] == {"llama": 2, "coca": 2, "pottery": 0, "cloth": 3}


def test_r4_5_full_column_and_round_trips():
    game = at("sun_temple", corn=20, llama=2)
    set_board(game, market={"llama": 4})
    play(game, "move central_plaza", "market keep")
    assert "buy llama" in game.legal_actions()
    bank = game.view()["bank"]["llama"]
    play(game, "sell llama")  # column full: 3 corn, to the bank
    assert goods(game, 0)["corn"] == 23 and game.view()["bank"]["llama"] == bank + 1
    assert "buy llama" not in game.legal_actions()  # R4.5.3
    play(game, "buy coca")
    assert "sell coca" not in game.legal_actions()


def test_r4_5_1_adjustment_options():
    game = at("sun_temple")
    set_board(game, market={"llama": 4, "coca": 0}, bank={"pottery": 0})
    play(game, "move central_plaza")
    assert game.legal_actions() == [
        "market keep", "market add coca", "market add cloth", "market remove llama",
        "market remove pottery", "market remove cloth"]


# --- R4.6 Sun Clock -------------------------------------------------------------------------------
def test_r4_6_sun_clock_moves_one_inca():
    game = at("main_temple", incas={"corn_terraces": 1, "weavers_quarter": 2})
    play(game, "move sun_clock")
    assert game.legal_actions() == ["pass", "sunclock corn_terraces", "sunclock weavers_quarter"]
    play(game, "sunclock weavers_quarter")
    assert player(game, 0)["incas"]["weavers_quarter"] == 1
    assert player(game, 0)["incas"]["sun_clock"] == 1


def test_adjacency_is_symmetric():
    assert (ADJACENT == ADJACENT.T).all()
