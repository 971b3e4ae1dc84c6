"""Re-dealt positions (machu_env.core.positions): a saved position or a branch is played on with the
cards its player has never held dealt anew (R10), and replays from its own deal."""

from __future__ import annotations

import json
import random

import pytest

from machu_env import Game
from machu_env.core.positions import redealt, seen_cards
from machu_env.core.records import game_record, replay
from machu_env.rules import layout as L
from machu_env.rules.data import NUM_CARDS


def _played(n: int, seed: int, decisions: int) -> Game:
    game, rng = Game(n, seed=seed), random.Random(seed)
    while not game.is_over and len(game.history) < decisions:
        game.play(rng.choice(game.legal_action_ids()))
    return game


def _deck(game: Game) -> list[int]:
    s = game.state
    return [int(s[L.DECK + (int(s[L.DECK_TOP]) + i) % NUM_CARDS])
            for i in range(int(s[L.DECK_COUNT]))]


def _summit_returns(game: Game, seat: int) -> int:
    return sum(p == seat and a.startswith("return ") for p, a in game.history)


@pytest.mark.parametrize("n,seed", [(2, 1), (3, 5), (4, 9), (5, 13)])
def test_the_player_sees_the_same_game(n, seed):
    game = _played(n, seed, 110)
    for seat in range(n):
        copy = redealt(game, seat, random.Random(seed + seat))
        assert copy.view(seat) == game.view(seat)  # R10: all that seat may know
        assert copy.view("public") == game.view("public")
        assert copy.legal_actions() == game.legal_actions()
        assert copy.observation(seat).tolist() == game.observation(seat).tolist()
        mine = seen_cards(game, seat)  # the cards it held keep their places in the deck
        assert [c if mine >> c & 1 else -1 for c in _deck(copy)] == \
            [c if mine >> c & 1 else -1 for c in _deck(game)]


def test_everything_the_player_never_held_is_dealt_anew():
    game = _played(3, 20, 100)
    assert not game.is_over and _summit_returns(game, 0) and _summit_returns(game, 1)
    seat, hidden = 0, ~seen_cards(game, 0)
    deals = {tuple(c if hidden >> c & 1 else -1 for c in _deck(redealt(game, seat)))
             for _ in range(8)}
    assert len(deals) == 8  # a fresh deal every time, from the system's entropy
    others = [redealt(game, seat, random.Random(k)).view(None)["players"][1]["cards"]
              for k in range(20)]
    assert len({tuple(o) for o in others}) > 10
    watched = redealt(game, None, random.Random(0))  # a watcher held no card
    assert watched.view("public") == game.view("public")
    assert [watched.view(None)["players"][p]["cards"] for p in range(3)] != \
        [game.view(None)["players"][p]["cards"] for p in range(3)]


def test_a_redealt_game_records_its_own_deal_and_not_the_seed():
    game = _played(3, 33, 90)
    copy = redealt(game, 2, random.Random(4))
    rng = random.Random(2)
    while not copy.is_over:
        copy.play(rng.choice(copy.legal_action_ids()))
    record = json.loads(json.dumps(game_record(copy, ["a", "b", "c"])))
    assert record["version"] == 2 and record["options"]["seed"] is None
    assert str(game.seed) not in json.dumps(record)
    again = replay(record)
    assert again.scores() == copy.scores() and again.history == copy.history
    assert again.state.tolist() == copy.state.tolist()


def test_a_record_without_a_seed_must_give_the_whole_deal():
    record = game_record(redealt(_played(2, 3, 40), 0, random.Random(0)))
    for drop in ("deck", "hands", "start_player"):
        broken = json.loads(json.dumps(record))
        del broken["options"][drop]
        with pytest.raises(ValueError, match="whole deal"):
            replay(broken)
    short = json.loads(json.dumps(record))
    short["options"]["deck"] = short["options"]["deck"][:-1]
    with pytest.raises(ValueError, match="deals all 28 cards"):
        replay(short)
    v1 = json.loads(json.dumps(record))
    v1["version"], v1["options"]["seed"] = 1, 5
    with pytest.raises(ValueError, match="needs version 2"):
        replay(v1)


@pytest.mark.parametrize("seat", [3, -1, True, "0", 1.0])
def test_a_bad_seat_is_refused_and_changes_nothing(seat):
    game = _played(3, 7, 30)
    before = game.state.copy()
    with pytest.raises(ValueError, match="seat must be None"):
        redealt(game, seat)
    assert (game.state == before).all()
