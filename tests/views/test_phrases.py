"""The phrases a player reads for a decision: ``say`` (another player's, third person) and
``say_you`` (their own, second person)."""

from __future__ import annotations

import random

from machu_env import Game
from machu_env.views.phrases import say, say_you


def test_your_own_decisions_read_in_the_second_person():
    assert say("start llama_meadow") == "puts its first Inca in the Llama Meadow"
    assert say_you("start llama_meadow") == "put your first Inca in the Llama Meadow"
    assert say_you("stay trail2") == "stay and take the trail +2 moon tile"
    assert say_you("done") == "are done"
    assert say_you("market remove coca") == "remove coca from the market"


def test_every_action_of_random_games_has_a_second_person_phrase():
    for seed in range(3):
        game, rnd = Game(3, seed=seed), random.Random(seed)
        while not game.is_over:
            for action in game.legal_actions():
                you = say_you(action)
                first = you.split()[0]
                assert you != say(action) and " its " not in f" {you} ", action
                assert first in ("are", "pass", "buy", "put", "move", "stay", "produce",
                                 "sacrifice", "offer", "place", "acquire", "keep", "add",
                                 "remove", "sell", "return", "redeem", "forgo", "take"), you
            game.play(rnd.choice(game.legal_action_ids()))
