"""The agent protocol and the random agent."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from machu_env import Game


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(game) -> action id`` (a legal id for ``game.current_player``)."""

    name: str

    def act(self, game: Game) -> int: ...


class RandomAgent:
    """Uniformly random legal actions."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def act(self, game: Game) -> int:
        return self.rng.choice(game.legal_action_ids())
