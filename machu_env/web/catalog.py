"""The agents a web client may name (``AgentCatalog``: names, never paths) and a trained
policy's hint on the human's own decision."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from machu_env.agents import agent_names, make_agent, shipped_policies
from machu_env.agents.catalogue import aliases, catalogue
from machu_env.core.game import Game
from machu_env.web.store import BadRequest


class AgentCatalog:
    """The agents a web client may name: the heuristics, ``mcts``, the shipped policies, the
    operator's folder of agent files (as ``policy:<file name>``) and ``search:``/``rollout:``
    over any of those policies. Clients name agents; they never give a path."""

    def __init__(self, agents_dir: str | Path | None = None) -> None:
        self.files: dict[str, Path] = {}
        if agents_dir is not None:
            folder = Path(agents_dir)
            if not folder.is_dir():
                raise ValueError(f"agents folder {folder} is not a folder")
            self.files = {f"policy:{p.name}": p.resolve()
                          for p in sorted(folder.glob("*.safetensors")) if p.is_file()}
        self.policies = [*aliases(), *shipped_policies(), *self.files]

    def names(self) -> list[str]:
        return [*agent_names(), *self.files]

    def shipped(self) -> list[dict[str, Any]]:
        """The catalogue as a client sees it: each shipped agent's name, alias, player count,
        rating and win share against gold (``machu agents``; nothing about the server)."""
        out = []
        for row in catalogue():
            rating, gold = row["rating"] or {}, row["vs_gold"] or {}
            out.append({"name": row["name"], "alias": row["alias"], "players": row["players"],
                        "recommended": row["recommended"], "rating": rating.get("value"),
                        "vs_gold": gold.get("value"), "summary": row["summary"]})
        return out

    def wrapped(self) -> list[str]:
        return [f"{kind}:{p}" for kind in ("search", "rollout") for p in self.policies]

    def make(self, name: Any, seed: int):
        """The agent a client named; BadRequest naming what is allowed for anything else."""
        if not isinstance(name, str):
            raise BadRequest(f"an agent name is a string, got {name!r:.60}")
        kind, _, inner = name.partition(":")
        allowed = (name in agent_names() or name in self.files
                   or (kind in ("search", "rollout") and inner in self.policies))
        if not allowed:
            raise BadRequest(f"opponent {name[:60]!r}: unknown agent; allowed: "
                             f"{', '.join(self.names())}, or search:/rollout: over "
                             f"{', '.join(self.policies) or 'a policy'}")
        target = inner if kind in ("search", "rollout") else name
        resolved = f"policy:{self.files[target]}" if target in self.files else target
        full = f"{kind}:{resolved}" if kind in ("search", "rollout") else resolved
        try:
            agent = make_agent(full, seed=seed)  # data-only files: no code runs
        except (ValueError, OSError):
            raise BadRequest(f"opponent {name!r}: this agent cannot be loaded here (the "
                             "server log and the operator know why)", 400) from None
        agent.name = name  # never the server's path
        return agent


def policy_hint(agent: Any, game: Game, name: str, top: int = 8) -> dict[str, Any]:
    """What a trained policy thinks of the deciding player's position: its probability of
    every legal action (softmax at temperature 1; they sum to 1), most probable first (the
    ``top`` first listed), and its value estimate (of the member it would play: for a
    population, the one drawn for this game; null where the network gives no finite number)."""
    import torch

    probs = agent.probabilities(game)
    legal = game.legal_action_ids()
    net = agent._current(game)[0]
    from machu_env.agents.policy_file import observation_version

    version = observation_version(net.config)
    obs = torch.as_tensor(game.observation(game.current_player, version)).unsqueeze(0)
    with torch.no_grad():
        value = float(net(obs)[1].reshape(-1)[0])
    ranked = sorted(legal, key=lambda a: -probs[a])
    # (JSON has no inf or NaN: a network that overflows gives no estimate, never a 500)
    return {"agent": name, "value": round(value, 4) if math.isfinite(value) else None,
            "legal_probability": round(float(probs[legal].sum()), 6),
            "actions": [{"id": int(a), "action": game.legal_actions()[legal.index(a)],
                         "p": round(float(probs[a]), 4)} for a in ranked[:top]],
            "others": max(0, len(legal) - top),
            "others_p": round(float(sum(probs[a] for a in ranked[top:])), 4)}
