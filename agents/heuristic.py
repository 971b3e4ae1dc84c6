"""Two heuristic agents with different plans, sharing one greedy lookahead.

Every decision is taken by trying each legal action on a copy of the state (the engine's njit
``step``) and scoring the result with a value function of the deciding player's position. A
Prince move is scored after the mover's own follow-up decisions of that turn (production,
sacrifices, placing, buying...) are played the same greedy way, so "go to the Royal Palace" is
valued by the Incas it lets the player place. Ties are broken at random (seeded).

The lookahead never steps the true state: it steps a re-deal of the cards the deciding player
cannot see (``machu_env.engine.redeal``, from the agent's own seeded generator), so a simulated
summit draws cards the player could expect, not the real next cards of the deck, and no
decision depends on hidden information (``choose_fair``).

* ``BuilderAgent`` — the economy and the Rescue: Incas in the districts its cards reward,
  priests and Virgins, sacrifices that carry the Scout to the summit for more cards.
* ``GoldAgent`` — the Spanish conquest: collects sacrifice cards (summits) and keeps those with
  the most gold; values gold as much as victory points, Incas and priests less.
* ``RacerAgent`` — the race for the gold majority, a training opponent: every road to
  more cards weighs more than for ``gold`` (the Scout's trail, the Sun Clock, moon tiles, the cards
  themselves and their gold). A one-step lookahead cannot plan those roads well, so it is weaker
  than ``gold`` in a duel (see docs/agents.md); it plays a different race for learners to meet.
"""

from __future__ import annotations

import random

import numpy as np

from machu_env.core.game import Game
from machu_env.engine.lookahead import (
    BUILDER_WEIGHTS,
    GOLD_WEIGHTS,
    RACER_WEIGHTS,
    choose_fair,
)
from machu_env.engine.rng import seed_state
from machu_env.rules.actions import NUM_ACTIONS

__all__ = ["BuilderAgent", "GoldAgent", "HeuristicAgent", "RacerAgent"]


class HeuristicAgent:
    """Greedy lookahead with a value function given by ``weights``."""

    name = "heuristic"
    weights = BUILDER_WEIGHTS

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)  # tie-breaking noise
        self.deal_rng = seed_state(seed)  # re-deals of the hidden cards

    def act(self, game: Game) -> int:
        legal = np.array(game.legal_action_ids(), dtype=np.int32)
        noise = np.array([self.rng.random() * 1e-6 for _ in range(NUM_ACTIONS)])
        return int(choose_fair(game.state.copy(), legal, self.weights, noise, self.deal_rng, 0))


class BuilderAgent(HeuristicAgent):
    """Economy first, priests and sacrifices: plays for the Rescue (see module docstring)."""

    name = "builder"
    weights = BUILDER_WEIGHTS


class GoldAgent(HeuristicAgent):
    """Cards and gold: plays for the Spanish conquest (see module docstring)."""

    name = "gold"
    weights = GOLD_WEIGHTS


class RacerAgent(HeuristicAgent):
    """Every road to more cards and more gold: the race for the gold majority (see the module
    docstring)."""

    name = "racer"
    weights = RACER_WEIGHTS
