"""The agent protocol and the random agent."""

from __future__ import annotations

import math
import random
from typing import Protocol, runtime_checkable

from machu_env.core.game import Game

MAX_SECONDS = 3600.0  # a search budget per decision beyond an hour is a mistake, not a plan


def check_seconds(seconds: object) -> float:
    """A search agent's time budget per decision: a finite number in (0, ``MAX_SECONDS``];
    ValueError naming what is allowed (``inf`` would search for ever)."""
    ok = (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
          and math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS)
    if not ok:
        raise ValueError(f"seconds must be a number in (0, {MAX_SECONDS:.0f}], got {seconds!r}")
    return float(seconds)


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
