"""Fairness (R10): no agent's decision depends on cards its player cannot see.

Each test takes positions from seeded games, permutes the hidden cards (the other players'
hands and the deck order, keeping every hand's size and the deck's size) and asks a fresh agent
with the same seed to decide in both: the decisions must be equal. The last test shows that the
check has teeth: the heuristics' lookahead on the true, unre-dealt state fails it.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import hidden_permuted  # noqa: E402

from machu_env import Game
from machu_env.agents import make_agent
from machu_env.engine.lookahead import BUILDER_WEIGHTS, GOLD_WEIGHTS, choose
from machu_env.engine.redeal import redeal, unseen_cards
from machu_env.engine.rng import seed_state
from machu_env.rules import layout as L


def positions(num_players: int, count: int, seed: int) -> list[Game]:
    """``count`` decision points from random games, mostly Prince moves (where the heuristics
    look through a whole turn), with hidden cards to permute."""
    rng = random.Random(seed)
    out: list[Game] = []
    game_seed = seed
    while len(out) < count:
        g = Game(num_players, seed=game_seed)
        game_seed += 1
        while not g.is_over and len(out) < count:
            prince = g.state[L.STAGE] == 1
            if rng.random() < (0.3 if prince else 0.03) and g.state[L.DECK_COUNT] > 1:
                out.append(g.clone())
            g.play(rng.choice(g.legal_action_ids()))
    return out


def _decisions(name: str, games: list[Game], **kwargs) -> list[int]:
    return [make_agent(name, seed=7 + k, **kwargs).act(g) for k, g in enumerate(games)]


@pytest.mark.parametrize("num_players", [2, 4])
@pytest.mark.parametrize("name, kwargs", [
    ("random", {}), ("builder", {}), ("gold", {}), ("mcts", {"iterations": 60}),
])
def test_no_decision_depends_on_hidden_cards(name, kwargs, num_players):
    games = positions(num_players, 40 if name != "mcts" else 12, seed=num_players)
    rng = random.Random(1)
    permuted = [hidden_permuted(g, rng) for g in games]
    assert _decisions(name, games, **kwargs) == _decisions(name, permuted, **kwargs)


def test_trained_agents_decide_on_their_observation_only():
    pytest.importorskip("torch")
    games = positions(2, 40, seed=11)
    rng = random.Random(2)
    permuted = [hidden_permuted(g, rng) for g in games]
    assert _decisions("ppo-2p", games) == _decisions("ppo-2p", permuted)
    assert _decisions("ppo-2p", games, deterministic=False) == \
        _decisions("ppo-2p", permuted, deterministic=False)
    few = games[:10]
    # every position searched (confident 1), leaves valued by play-outs cut by the value head
    opts = {"simulations": 48, "batch": 8, "confident": 1.0, "rollout_weight": 0.5,
            "max_depth": 40}
    assert _decisions("search:ppo-2p", few, **opts) == \
        _decisions("search:ppo-2p", permuted[:10], **opts)
    # every position with 2+ legal actions rolled out (cover 1), rollouts cut by the value head
    opts = {"rounds": 1, "deals": 4, "candidates": 3, "cover": 1.0, "max_depth": 40}
    assert _decisions("rollout:ppo-2p", few, **opts) == \
        _decisions("rollout:ppo-2p", permuted[:10], **opts)


def test_redeal_depends_on_the_players_information_only():
    """Two arrangements of the same hidden cards re-deal to the same state (same generator),
    with the hand sizes and the deck size kept and the player's own hand untouched."""
    rng = random.Random(3)
    for g in positions(3, 20, seed=5):
        p = g.current_player
        h = hidden_permuted(g, rng)
        a, b = g.state.copy(), h.state.copy()
        redeal(a, p, seed_state(99), 0)
        redeal(b, p, seed_state(99), 0)
        assert np.array_equal(a, b)
        assert unseen_cards(a, p) == unseen_cards(g.state.copy(), p)
        for q in range(3):
            hand = L.player_base(q) + L.P_HAND
            assert bin(a[hand]).count("1") == bin(g.state[hand]).count("1")
        assert a[L.player_base(p) + L.P_HAND] == g.state[L.player_base(p) + L.P_HAND]
        assert a[L.DECK_COUNT] == g.state[L.DECK_COUNT]


def test_redeal_keeps_what_the_player_knows():
    game = Game(3, seed=4, start_player=0, hands=[["corn+llama"], ["coca+cloth", "puma+virgin"],
                                                  ["pottery+condor"]], scenario=True)
    s = game.state.copy()
    rng = np.array([np.uint64(5)], dtype=np.uint64)
    seen = set()
    for _ in range(20):
        t = s.copy()
        redeal(t, 0, rng, 0)
        hands = [int(t[L.player_base(p) + L.P_HAND]) for p in range(3)]
        assert hands[0] == int(s[L.player_base(0) + L.P_HAND])  # own cards unchanged
        assert [h.bit_count() for h in hands] == [1, 2, 1]
        assert t[L.DECK_COUNT] == s[L.DECK_COUNT]
        deck = {int(t[L.DECK + (t[L.DECK_TOP] + i) % 28]) for i in range(t[L.DECK_COUNT])}
        cards = deck.union(*({c for c in range(28) if h >> c & 1} for h in hands))
        assert len(cards) == 28
        seen.add(hands[1])
    assert len(seen) > 5  # the other hands really are re-dealt


def test_the_check_catches_a_lookahead_on_the_true_state():
    """Without the re-deal, the heuristics' lookahead sees the real next cards: permuting them
    changes some decisions (as it did before the re-deal was introduced)."""
    games = positions(2, 150, seed=21)
    rng = random.Random(4)
    changed = 0
    for g in games:
        h = hidden_permuted(g, rng)
        legal = np.array(g.legal_action_ids(), dtype=np.int32)
        noise = np.random.default_rng(0).random(len(legal) + 200) * 1e-6
        for w in (BUILDER_WEIGHTS, GOLD_WEIGHTS):
            changed += choose(g.state.copy(), legal, w, noise) != choose(h.state.copy(), legal,
                                                                         w, noise)
    assert changed > 0
