"""The scripting API: actions and notation (R12), bad input, history, views, observations (R10)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import machu_env
from machu_env import (
    ACTION_NOTATION,
    NUM_ACTIONS,
    OBS_FIELDS,
    OBS_SIZE,
    Game,
    IllegalActionError,
    action_id,
    action_table,
    notation,
)
from machu_env.engine.observation import SEAT_SIZE, field_offsets


# --- R12.4 notation -------------------------------------------------------------------------------
def test_every_action_id_has_exactly_one_notation_and_back():
    assert len(set(ACTION_NOTATION)) == NUM_ACTIONS == 157
    for i in range(NUM_ACTIONS):
        assert action_id(notation(i)) == i
    assert action_id("  Move   CENTRAL_PLAZA ") == action_id("move central_plaza")
    table = action_table().splitlines()
    assert len(table) == NUM_ACTIONS and table[0].split() == ["0", "start", "corn_terraces"]


@pytest.mark.parametrize("text", ["offer corn,llama,cloth", "take corn,llama,cloth",
                                  "stay trail3", "return pottery+puma", "market add coca",
                                  "sunclock weavers_quarter", "produce 12", "sacrifice 6",
                                  "place coca_grower", "acquire virgin", "redeem cloth"])
def test_notation_examples_of_rules_12_4(text):
    assert notation(action_id(text)) == text


def test_unknown_notation_and_bad_ids():
    with pytest.raises(ValueError, match="unknown action 'fly away'"):
        action_id("fly away")
    with pytest.raises(ValueError, match="0..156"):
        notation(157)


# --- bad input to play: a clear error, nothing changed --------------------------------------------
@pytest.mark.parametrize("bad", ["move the_moon", "stay trail3", 157, -1, 3.0, None, True,
                                 "produce 1"])
def test_illegal_actions_raise_and_leave_the_game_unchanged(bad):
    game = Game(3, seed=4)
    game.play(game.legal_actions()[0])
    state, legal, history = game.state.copy(), game.legal_actions(), list(game.history)
    with pytest.raises(IllegalActionError) as err:
        game.play(bad)
    assert isinstance(err.value, ValueError)
    assert "Legal actions: " + ", ".join(legal) in str(err.value)
    assert (game.state == state).all() and game.legal_actions() == legal
    assert game.history == history


def test_playing_after_the_end_is_refused():
    game = Game(2, seed=1)
    rnd = random.Random(0)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.play("pass")


def test_play_accepts_notation_and_ids_and_records_history():
    game = Game(3, seed=4, start_player=1)
    game.play("start potters_quarter")
    game.play(action_id("start corn_terraces"))
    game.play(np.int64(action_id("start llama_meadow")))
    assert game.history == [(1, "start potters_quarter"), (2, "start corn_terraces"),
                            (0, "start llama_meadow")]
    mask = game.action_mask()
    assert mask.dtype == np.int8 and mask.sum() == len(game.legal_action_ids())


def test_state_view_is_read_only():
    game = Game(2, seed=0)
    with pytest.raises(ValueError):
        game.state[0] = 5


@pytest.mark.parametrize("bad", [-1, 3, "0", None])
def test_observation_and_view_reject_bad_players(bad):
    game = Game(3, seed=0)
    with pytest.raises(ValueError, match="player must be an int in 0..2"):
        game.observation(bad)
    if bad is not None:
        with pytest.raises(ValueError, match="player must be an int in 0..2"):
            game.view(bad)


# --- views ----------------------------------------------------------------------------------------
def test_view_keys_and_hidden_cards():
    """R10.1 public / R10.2 private / R5.4 only the number of cards is public."""
    game = Game(4, seed=2)
    v = game.view()
    assert set(v) >= {"num_players", "day", "active_player", "current_player", "moon_tiles",
                      "bonus", "market", "bank", "priest_rows", "deck_size", "game_over", "end",
                      "players"}
    assert set(v["players"][0]) >= {"goods", "incas_supply", "incas", "prince", "scout",
                                    "priests", "cards", "num_cards", "moon_tiles"}
    assert list(v["players"][0]["incas"])[-1] == "sun_clock"
    mine = game.view(1)
    assert mine["players"][1]["cards"] == v["players"][1]["cards"]
    assert all(mine["players"][p]["cards"] is None for p in (0, 2, 3))
    assert all(mine["players"][p]["num_cards"] == 1 for p in range(4))


def test_scores_keys():
    s = Game(2, seed=0).scores()
    assert len(s) == 2 and set(s[0]) == {"vp", "gold", "multiplier", "score", "goods_units",
                                         "winner"}


# --- R10 observations -----------------------------------------------------------------------------
def test_observation_layout_is_documented_and_complete():
    offsets = field_offsets()
    last_name, (last_off, last_len) = list(offsets.items())[-1]
    assert last_off + last_len == OBS_SIZE
    assert len(OBS_FIELDS) == len(offsets)
    game = Game(3, seed=8, start_player=0, hands=[["corn+cloth"], ["puma+virgin"], []],
                scenario=True)
    obs = game.observation(0)
    off, k = offsets["own_cards"]
    assert obs[off:off + k].nonzero()[0].tolist() == [machu_env.card_id("corn+cloth")]
    off, _ = offsets["seat_present"]
    assert [obs[off + j * SEAT_SIZE] for j in range(5)] == [1, 1, 1, 0, 0]
    off, _ = offsets["decision_kind"]
    assert obs[off] == 1.0  # "start"
    off, _ = offsets["decider_seat"]
    assert obs[off] == 1.0  # the observer decides


def test_observation_seats_are_relative_to_the_observer():
    game = Game(3, seed=8, start_player=0)
    game.play("start weavers_quarter")  # seat 0
    off, _ = field_offsets()["seat_incas"]
    o1 = game.observation(1)
    assert o1[off + 2 * SEAT_SIZE + 4] > 0  # seen from seat 1, seat 0 sits two places on
    assert game.observation(0)[off + 4] > 0


def _mirror(game_a, game_b, observer, rnd, steps=400) -> int:
    """Play the same decisions in two games whose hidden cards differ; a return decision of
    another player is mirrored by its index. Check the observer's observation each step,
    up to the observer's own first summit (which legitimately changes its private cards)."""
    cards = game_a.view()["players"][observer]["num_cards"]
    for k in range(steps):
        if game_a.view()["players"][observer]["num_cards"] != cards:
            return k  # the observer drew at a summit: its own cards now differ
        assert (game_a.observation(observer) == game_b.observation(observer)).all()
        va, vb = game_a.view(observer), game_b.view(observer)
        va["players"][observer].pop("cards"), vb["players"][observer].pop("cards")
        assert va == vb
        if game_a.is_over:
            return k
        i = rnd.randrange(len(game_a.legal_action_ids()))
        game_a.play(game_a.legal_action_ids()[i])
        game_b.play(game_b.legal_action_ids()[i])
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_observation_ignores_other_hands_and_the_deck_order(seed):
    """R10.3: no dependence on other players' cards or on the deck order."""
    n = 2 + seed % 4
    rng = random.Random(seed)
    cards = list(range(28))
    rng.shuffle(cards)
    mine = cards[0]
    hands_a = [[mine]] + [[cards[1 + p]] for p in range(n - 1)]
    hands_b = [[mine]] + [[cards[10 + p]] for p in range(n - 1)]
    deck_b = cards[1:10][::-1]
    a = Game(n, seed=seed, start_player=0, hands=hands_a)
    b = Game(n, seed=seed + 1000, start_player=0, hands=hands_b, deck=deck_b)
    assert _mirror(a, b, 0, random.Random(seed)) >= 30  # compared over many decisions
