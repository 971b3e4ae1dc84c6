"""The one opponent vocabulary of every env: a pool string of named agents with weights.

``"gold:1"``, ``"random:0.2,gold:0.8"``, ``"builder:1,racer:1"``: members ``random``,
``builder``, ``gold`` and ``racer`` (the compiled heuristics of ``agents.heuristic``). The same
string means the same thing in ``gym.make("MachuPicchu-v0")``, ``gym.make_vec`` in every
vectorization mode, the native ``MachuPicchuVectorEnv`` (which plays them inside the batch) and
the PettingZoo env: each new game draws, for every opponent seat, one member by weight. Being a
string, it keeps an ``EnvSpec`` serialisable (Minari's ``recover_environment``). The envs that
step one ``Game`` also take callables ``policy(game) -> action`` (the native VectorEnv batched
ones: ``(observations, masks) -> actions``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from machu_env.core.errors import IllegalActionError, OpponentError
from machu_env.core.game import Game

Policy = Callable[[Game], "int | str"]
NAMED = ("random", "builder", "gold", "racer")


def parse_named(text: str) -> dict[str, float]:
    """A pool string of named opponents -> weights (ValueError naming the allowed members;
    ``self``, the training pool's frozen snapshots, belongs to training only)."""
    from machu_env.core.opponent_pool import parse_pool

    weights = parse_pool(text)
    if weights.get("self", 0.0) > 0:
        raise ValueError(f"opponents {text!r}: 'self' (frozen snapshots) belongs to the "
                         f"training pool; name opponents among {', '.join(NAMED)} (or give "
                         "policies)")
    weights.pop("self", None)
    return weights


def random_policy(seed: int | None = None) -> Policy:
    """A policy choosing uniformly among the legal actions."""
    rng = random.Random(seed)

    def policy(game: Game) -> int:
        return rng.choice(game.legal_action_ids())

    return policy


def named_policy(name: str, seed: int) -> Policy:
    """The Game-level policy of a named opponent (the same heuristics the batch plays)."""
    if name == "random":
        return random_policy(seed)
    from machu_env.agents import make_agent

    return make_agent(name, seed).act


def draw_policies(weights: dict[str, float], seats: list[int], rng: np.random.Generator
                  ) -> dict[int, Policy]:
    """One named opponent per seat, drawn by weight from ``rng`` (seeded from it too)."""
    names = [n for n, w in weights.items() if w > 0]
    p = np.array([weights[n] for n in names]) / sum(weights[n] for n in names)
    out: dict[int, Policy] = {}
    for seat in seats:
        name = names[int(rng.choice(len(names), p=p))]
        out[seat] = named_policy(name, int(rng.integers(2**62)))
    return out


def check_opponents(opponents: Any, num_players: int) -> Any:
    """``opponents`` as the envs that step one ``Game`` keep it: None (random legal moves), a
    pool string (parsed: a dict of weights), one policy, or a list of ``num_players - 1``
    policies; ValueError naming what is allowed otherwise."""
    if opponents is None:
        return None
    if isinstance(opponents, str):
        return parse_named(opponents)
    if callable(opponents):
        return opponents
    if isinstance(opponents, (list, tuple)) and len(opponents) == num_players - 1 \
            and all(map(callable, opponents)):
        return list(opponents)
    raise ValueError(f"opponents must be a pool string of named agents like 'gold:1' or "
                     f"'random:0.2,gold:0.8' (members {', '.join(NAMED)}), one policy "
                     f"(game -> action) or a list of {num_players - 1} policies; got "
                     f"{opponents!r:.80}")


def seat_policies(opponents: Any, others: list[int], rng: np.random.Generator
                  ) -> dict[int, Policy]:
    """The policy of every opponent seat for a new game (``opponents`` as ``check_opponents``
    returns it)."""
    if opponents is None:
        shared = random_policy(int(rng.integers(2**62)))
        return dict.fromkeys(others, shared)
    if isinstance(opponents, dict):
        return draw_policies(opponents, others, rng)
    if callable(opponents):
        return dict.fromkeys(others, opponents)
    return dict(zip(others, opponents, strict=True))


def play_seats(game: Game, policies: Mapping[int, Policy], max_decisions: int) -> None:
    """The policies at their seats decide until a seat without one does (the learner, an
    agent), the game ends or reaches ``max_decisions``; OpponentError naming the seat when a
    policy raises or answers an illegal action."""
    while not game.is_over and len(game.history) < max_decisions:
        seat = game.current_player
        policy = policies.get(seat)
        if policy is None:
            return
        try:
            choice = policy(game)
        except Exception as e:
            raise OpponentError(f"the opponent policy at seat {seat} raised "
                                f"{type(e).__name__}: {e}") from e
        try:
            game.play(choice)
        except IllegalActionError as e:
            raise OpponentError(f"the opponent policy at seat {seat} answered {e}") from None
