"""Baseline agents for machu-env, one protocol: ``agent.act(game) -> action id``.

``make_agent(name, seed)`` builds one by name: ``random``, ``builder``, ``gold``, ``mcts``, or
``policy:<path to a MaskablePPO .zip>`` (``PolicyAgent``).
"""

from __future__ import annotations

from .base import Agent, RandomAgent
from .heuristic import BuilderAgent, GoldAgent

AGENTS = {"random": RandomAgent, "builder": BuilderAgent, "gold": GoldAgent}


def make_agent(name: str, seed: int = 0, **kwargs) -> Agent:
    """An agent by name (``random``, ``builder``, ``gold``, ``mcts``, ``policy:<path>``)."""
    if name.startswith("policy:"):
        from .policy import PolicyAgent

        return PolicyAgent(name.split(":", 1)[1], seed=seed, **kwargs)
    if name == "mcts":
        from .search import MCTSAgent

        return MCTSAgent(seed=seed, **kwargs)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join([*AGENTS, 'mcts'])}, "
                         "policy:<path to a MaskablePPO .zip>")
    return AGENTS[name](seed=seed, **kwargs)


__all__ = ["AGENTS", "Agent", "BuilderAgent", "GoldAgent", "RandomAgent", "make_agent"]
