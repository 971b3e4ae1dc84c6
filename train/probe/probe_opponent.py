"""The frozen agent a probe (and a ladder evaluation) plays against: a compiled heuristic inside
the batch kernels, a trained policy or population as one batched bank, or any other agent one
decision at a time through ``Game`` (``AgentBank``)."""

from __future__ import annotations

import numpy as np

from machu_env.agents import make_agent
from machu_env.core.game import Game
from machu_env.engine import pool as O
from machu_env.engine.flow import advance
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.train.ppo.bank import PolicyBank


class AgentBank:
    """Any ``Agent`` as the pool's frozen opponent: one ``agent.act(game)`` per waiting game
    (the env hands the bank the raw states: ``wants_states``)."""

    wants_states = True
    num_policies = 1

    def __init__(self, name: str, num_players: int, seed: int = 0, **kwargs) -> None:
        self.agent = make_agent(name, seed=seed, **kwargs)
        self.names = [name]
        self.num_players = num_players
        self._buf = np.zeros(NUM_ACTIONS, dtype=np.int32)

    def __call__(self, obs, masks, which, states) -> np.ndarray:
        out = np.empty(states.shape[0], dtype=np.int64)
        for k, s in enumerate(states):
            s = s.copy()
            n = advance(s, self._buf)
            game = Game._from_arrays(self.num_players, None, False, s, self._buf, n, [])
            out[k] = self.agent.act(game)
        return out


def opponent_for(name: str, num_players: int, seed: int = 0, trust_pickle: bool = False,
                 deterministic: bool | None = None):
    """(pool string, bank or None, the agent's net or None) for a probed agent's name. A
    trained policy or population plays as its file says (``deterministic``: argmax or sampling
    for every member instead); the bank's ``nets`` and ``weights`` are its members."""
    if name in O.COMPILED_NAMES:
        return f"{name}:1", None, None
    agent = make_agent(name, seed=seed, trust_pickle=trust_pickle)  # ValueError if unknown
    members = getattr(agent, "members", None)
    if members and all(hasattr(net, "mlp_extractor") for net, _, _ in members):
        temps = [t if deterministic is None else 0.0 if deterministic else 1.0
                 for _, t, _ in members]
        bank = PolicyBank([net for net, _, _ in members], temperatures=temps, seed=seed,
                          names=[name] * len(members), weights=[w for _, _, w in members])
        return "self:1", bank, members[0][0]
    return "self:1", AgentBank(name, num_players, seed=seed), None
