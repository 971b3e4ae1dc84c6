"""Property tests over random games of 2-5 players (hypothesis)."""

from __future__ import annotations

import random

import numpy as np
from helpers import check_invariants
from hypothesis import given, settings
from hypothesis import strategies as st

from machu_env import Game

games = st.tuples(st.integers(2, 5), st.integers(0, 2**40), st.integers(0, 2**32), st.booleans())


def _random_game(n, seed, rnd, learning=False, check=True):
    game = Game(n, seed=seed, learning_game=learning)
    for _ in range(5000):
        if check:
            check_invariants(game)
        if game.is_over:
            return game
        game.play(rnd.choice(game.legal_action_ids()))
    raise AssertionError("the game did not end within 5000 decisions")


@settings(max_examples=60, deadline=None)
@given(games)
def test_random_games_keep_every_invariant_and_terminate(args):
    n, seed, pick_seed, learning = args
    game = _random_game(n, seed, random.Random(pick_seed), learning)
    assert game.end in ("rescue", "conquest")
    scores = game.scores()
    assert any(s["winner"] for s in scores)
    for s in scores:
        assert s["score"] == s["vp"] * s["multiplier"] and s["vp"] >= 0


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**40), st.integers(0, 2**32))
def test_same_seed_and_actions_give_the_same_game(n, seed, pick_seed):
    a = _random_game(n, seed, random.Random(pick_seed), check=False)
    b = Game(n, seed=seed)
    for _, action in a.history:
        b.play(action)
    assert b.is_over and (a.state == b.state).all() and a.history == b.history


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**40), st.integers(0, 2**32))
def test_clone_is_independent(n, seed, pick_seed):
    rnd = random.Random(pick_seed)
    game = Game(n, seed=seed)
    for _ in range(rnd.randint(0, 60)):
        game.play(rnd.choice(game.legal_action_ids()))
    clone = game.clone()
    before = game.state.copy()
    while not clone.is_over:
        clone.play(rnd.choice(clone.legal_action_ids()))
    assert (game.state == before).all() and len(game.history) < len(clone.history)
    assert not game.is_over


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(0, 2**40), st.integers(0, 2**32))
def test_observation_values_are_finite_and_bounded(n, seed, pick_seed):
    rnd = random.Random(pick_seed)
    game = Game(n, seed=seed)
    for _ in range(rnd.randint(0, 300)):
        if game.is_over:
            break
        game.play(rnd.choice(game.legal_action_ids()))
    for p in range(n):
        obs = game.observation(p)
        assert obs.dtype == np.float32 and np.isfinite(obs).all()
        assert obs.min() >= 0.0 and obs.max() <= 4.0
