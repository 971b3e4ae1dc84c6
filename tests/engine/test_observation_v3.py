"""Observation v3: version 2 followed by how often each
seat chose each kind of public decision so far (``L.HISTORY_KINDS``), counted by the engine in
the state (``L.P_HISTORY``). The counts are a function of the public record alone (R10.1)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from machu_env import Game
from machu_env.engine.observation import (
    HISTORY_FIELDS,
    HISTORY_SEAT_SIZE,
    HISTORY_SIZE,
    OBS_SIZES,
    OBS_V2_SIZE,
    OBS_V3_SIZE,
)
from machu_env.rules import layout as L
from machu_env.rules.data import MAX_PLAYERS


def _kind(notation: str) -> str | None:
    """The history kind of a decision, read from its public notation (RULES.md §12)."""
    verb, _, rest = notation.partition(" ")
    if verb in ("move", "stay", "place"):
        return verb
    if verb in ("produce", "sacrifice"):
        return verb if int(rest) > 0 else None
    if verb == "offer":
        return "offer" if rest != "none" else None
    if verb in ("buy", "sell"):
        return "trade"
    return "sunclock" if verb == "sunclock" else None


def test_the_fields_are_documented_and_version_2_is_a_prefix():
    assert OBS_V3_SIZE == OBS_V2_SIZE + HISTORY_SIZE == OBS_SIZES[3]
    assert [name for name, _, _ in HISTORY_FIELDS] == [f"history_{k}" for k in L.HISTORY_KINDS]
    assert HISTORY_SIZE == MAX_PLAYERS * HISTORY_SEAT_SIZE
    game = Game(3, seed=2)
    rng = random.Random(2)
    for _ in range(60):
        game.play(rng.choice(game.legal_action_ids()))
    for p in range(3):
        v3 = game.observation(p, version=3)
        assert v3.shape == (OBS_V3_SIZE,)
        assert np.array_equal(v3[:OBS_V2_SIZE], game.observation(p, version=2))


@pytest.mark.parametrize("n", [2, 3, 5])
def test_the_history_is_the_public_record_counted(n):
    """At every position of random games, every observer's history fields equal the counts of
    each seat's decisions read from the game's public record (seats relative to the observer;
    absent seats zero)."""
    rng = random.Random(n)
    for k in range(3):
        game = Game(n, seed=40 + k)
        counts = np.zeros((n, HISTORY_SEAT_SIZE))
        while True:
            for p in range(n):
                got = game.observation(p, version=3)[OBS_V2_SIZE:].reshape(MAX_PLAYERS, -1)
                want = np.zeros((MAX_PLAYERS, HISTORY_SEAT_SIZE))
                for j in range(n):
                    want[j] = counts[(p + j) % n] / 50.0
                assert np.allclose(got, want), (k, len(game.history), p)
            if game.is_over:
                break
            player, action = game.current_player, rng.choice(game.legal_actions())
            game.play(action)
            kind = _kind(action)
            if kind is not None:
                counts[player, L.HISTORY_KINDS.index(kind)] += 1
        assert counts[:, L.H_MOVE].sum() > 20 and counts[:, L.H_STAY].sum() > 0
