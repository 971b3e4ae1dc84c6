"""Baseline and trained agents for machu-env, one protocol: ``agent.act(game) -> action id``.

``make_agent(name, seed)`` builds one by name: ``random``, ``builder``, ``gold``, ``racer``,
``mcts``, a shipped trained agent (``ppo-2p``, ``ppo-3p``: data-only agent files in
``checkpoints``; ``best-2p`` ... ``best-5p`` name the recommended one per player count,
see ``catalogue``) or ``policy:<path to a .safetensors agent file>`` (a single policy or a
population: see ``policy_file``; each plays as its file says; an sb3 ``.zip`` only with
``trust_pickle=True``: see ``policy_file``), or ``search:<policy>`` — determinised PUCT guided by
that trained policy (``search:ppo-2p``, ``search:policy:<path>``; ``puct.py``), or
``rollout:<policy>`` — determinised rollouts of that policy comparing its likeliest actions
(``rollout.py``), or ``rllib:<checkpoint folder>`` — a policy trained with RLlib
(``machu_env.train.ppo.rllib_ppo``; the data-only agent file saved in the folder, the ``rllib``
extra).
Trained agents need the ``train`` extra.
"""

from __future__ import annotations

from pathlib import Path

from machu_env.agents.base import Agent, RandomAgent
from machu_env.agents.catalogue import aliases, resolve, shipped_policies
from machu_env.agents.heuristic import BuilderAgent, GoldAgent, RacerAgent

AGENTS = {"random": RandomAgent, "builder": BuilderAgent, "gold": GoldAgent,
          "racer": RacerAgent}
CHECKPOINTS = Path(__file__).parent / "checkpoints"


def shipped_policy(name: str) -> Path | None:
    """The file of a shipped agent named directly or by its alias (``best-2p``); else None."""
    return shipped_policies().get(resolve(name))


def agent_names() -> list[str]:
    """Every plain agent name: the heuristics, ``mcts``, the shipped agents and their aliases."""
    return [*AGENTS, "mcts", *shipped_policies(), *aliases()]


def make_agent(name: str, seed: int = 0, **kwargs) -> Agent:
    """An agent by name (see the module docstring); ``kwargs`` go to the agent's class
    (``trust_pickle`` is used by policies only)."""
    if not isinstance(name, str):
        raise ValueError(f"an agent name is a string, got {name!r}")
    trust_pickle = bool(kwargs.pop("trust_pickle", False))
    if name.startswith(("search:", "rollout:")):
        kind, inner_name = name.split(":", 1)
        if inner_name.startswith(("search:", "rollout:")):
            raise ValueError(f"{name!r}: {kind} wraps a trained policy ({kind}:ppo-2p, "
                             f"{kind}:policy:<file>), not another search or rollout agent")
        inner = make_agent(inner_name, seed=seed, trust_pickle=trust_pickle)
        if getattr(inner, "is_population", False):
            raise ValueError(f"{name!r}: {kind} needs a single trained policy; "
                             f"{inner_name!r} is a population of {len(inner.members)} "
                             "(play it as it is)")
        if getattr(inner, "net", None) is None:
            raise ValueError(f"{name!r}: {kind} needs a trained policy ({kind}:ppo-2p, "
                             f"{kind}:policy:<file>), not a heuristic")
        if kind == "rollout":
            from machu_env.agents.rollout import RolloutAgent

            return RolloutAgent(inner.net, seed=seed, name=name, **kwargs)
        from machu_env.agents.puct import SearchAgent

        return SearchAgent(inner.net, seed=seed, name=name, **kwargs)
    if name.startswith("rllib:"):
        from machu_env.agents.policy import PolicyAgent

        try:
            from machu_env.agents.rllib_policy import policy_path
        except ImportError as e:
            raise ValueError(f"{name!r}: {e}") from None
        agent = PolicyAgent(policy_path(name.split(":", 1)[1], trust_pickle=trust_pickle),
                            seed=seed, **kwargs)
        agent.name = name
        return agent
    shipped = shipped_policy(name)
    if name.startswith("policy:") or shipped is not None:
        from machu_env.agents.policy import PolicyAgent

        path = shipped if shipped is not None else Path(name.split(":", 1)[1])
        agent = PolicyAgent(path, seed=seed, trust_pickle=trust_pickle, **kwargs)
        if shipped is not None:
            agent.name = name  # as named: best-2p stays best-2p in tables and records
        return agent
    if name == "mcts":
        from machu_env.agents.search import MCTSAgent

        return MCTSAgent(seed=seed, **kwargs)
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(agent_names())}, "
                         "policy:<path to a .safetensors agent file>, search:<policy>, "
                         "rollout:<policy>, rllib:<checkpoint folder>")
    return AGENTS[name](seed=seed, **kwargs)


__all__ = ["AGENTS", "Agent", "BuilderAgent", "GoldAgent", "RandomAgent", "agent_names",
           "make_agent", "shipped_policies", "shipped_policy"]
