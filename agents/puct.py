"""``search:<policy>``: determinised PUCT guided by a trained policy (AlphaZero-style search).

Every simulation re-deals the cards the deciding player cannot see (``engine.redeal``, from the
agent's own seeded generator), then walks one tree shared by all determinisations (a node is
a sequence of actions from the root; at each node only the actions legal in the current deal
are considered). Selection is PUCT, ``Q + c * P * sqrt(N) / (1 + n)``, from the point of view
of the player deciding at the node; ``P`` is the policy's masked softmax for that player's
observation. A finished game is valued by its result (+1 winners, -1 the others); a new leaf by
``(1 - rollout_weight) * head + rollout_weight * play-out`` (AlphaGo's mixed leaf evaluation):
``head`` is the value head (the expected win reward of the leaf's decider; the other players
share the rest of the win chance evenly), ``play-out`` the result of the game played on from the
leaf with every player taking the policy's most probable action (``rollout.play_out``; the value
head after ``max_depth`` decisions). The default is play-outs only (``rollout_weight=1``): the
value head alone (``0``) was measured much weaker against the policy itself (see
docs/agents.md). Network calls are batched: ``batch`` simulations descend together (a virtual
loss keeps them apart), their leaves are evaluated in one forward pass and played out together.
The most visited root action is played; a policy at least ``confident`` of one action (0.95) is
followed without a search (``confident=1`` searches every decision).

The budget is ``seconds`` per decision (default 1.0; batches while another one still fits, at
least one), a fixed number of ``simulations`` (deterministic for a seed), or both: at most
``simulations``, and no batch that would end past ``seconds`` (deterministic as long as the
time cap does not bite; it keeps a slow machine within a per-decision limit). Only what the player
may know is used: the observation encodes no hidden card, and every lookahead runs on a
re-deal.
"""

from __future__ import annotations

import math
import time

import numpy as np

from machu_env.agents.masking import FLOAT32_MAX
from machu_env.agents.rollout import check_budget_seconds, head_values, play_out
from machu_env.core.game import Game
from machu_env.engine.flow import advance, step
from machu_env.engine.observation import encode
from machu_env.engine.redeal import redeal
from machu_env.engine.rng import seed_state
from machu_env.engine.scoring import SC_WINNER, final_scores
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS


class _Node:
    __slots__ = ("player", "logits", "N", "W", "children", "total")

    def __init__(self, player: int, logits: np.ndarray) -> None:
        self.player = player
        self.logits = logits  # (NUM_ACTIONS,) of the policy for this node's decider
        self.N = np.zeros(NUM_ACTIONS, np.float64)
        self.W = np.zeros(NUM_ACTIONS, np.float64)
        self.children: dict[int, _Node] = {}
        self.total = 0.0


class SearchAgent:
    """Determinised PUCT over a ``PolicyNet`` (see the module docstring)."""

    def __init__(self, net, seed: int = 0, seconds: float | None = None,
                 simulations: int | None = None,
                 c_puct: float = 1.5, batch: int = 16, rollout_weight: float = 1.0,
                 max_depth: int = 400, confident: float = 0.95, name: str = "search") -> None:
        if simulations is not None and (not isinstance(simulations, int) or simulations < 1):
            raise ValueError(f"simulations must be an integer >= 1, got {simulations!r}")
        seconds = check_budget_seconds(seconds, simulations)
        for label, v in (("batch", batch), ("max_depth", max_depth)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{label} must be an integer >= 1, got {v!r}")
        for label, v in (("rollout_weight", rollout_weight), ("confident", confident)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
                raise ValueError(f"{label} must be a number in [0, 1], got {v!r}")
        self.net, self.seconds, self.simulations = net, seconds, simulations
        self.c_puct, self.batch, self.name = float(c_puct), batch, name
        self.rollout_weight, self.max_depth = float(rollout_weight), max_depth
        self.confident = float(confident)
        self.rng = seed_state(seed)
        self._buf = np.zeros(NUM_ACTIONS, np.int32)
        self._scores = np.zeros((5, 6), np.int32)
        self._states = np.zeros((batch, L.STATE_SIZE), np.int32)
        self._bufs = np.zeros((batch, NUM_ACTIONS), np.int32)
        self._counts = np.zeros(batch, np.int32)
        self._obs = np.zeros((batch, int(net.config["obs_size"])), np.float32)  # v1 or v2
        self._masks = np.zeros((batch, NUM_ACTIONS), np.bool_)
        self._deadline: float | None = None

    # --- network --------------------------------------------------------------------------------
    def _evaluate(self, states: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(logits, values) for the decider of each state, in one forward pass."""
        import torch

        obs = np.empty((len(states), self._obs.shape[1]), np.float32)
        for k, s in enumerate(states):
            encode(s, s[L.DECIDER], obs[k])
        with torch.no_grad():
            logits, values = self.net(torch.from_numpy(obs))
        # any weights give finite priors and values (NaN counts as least likely / 0)
        logits = np.nan_to_num(logits.numpy().astype(np.float64), nan=-FLOAT32_MAX,
                               posinf=FLOAT32_MAX, neginf=-FLOAT32_MAX)
        values = np.nan_to_num(values[:, 0].numpy().astype(np.float64), nan=0.0,
                               posinf=FLOAT32_MAX, neginf=-FLOAT32_MAX)
        return logits, values

    def _leaf_values(self, states: list[np.ndarray], v: np.ndarray, n: int) -> np.ndarray:
        """Per-player values ``(leaves, n)`` of new leaves whose deciders expect win reward
        ``v``: the value head's estimate, mixed with a policy play-out's result by
        ``rollout_weight``."""
        deciders = np.array([s[L.DECIDER] for s in states])
        values = head_values(v, deciders, n)
        lam = self.rollout_weight
        if lam > 0:
            m = len(states)
            S, C, B = self._states[:m], self._counts[:m], self._bufs[:m]
            for j, s in enumerate(states):
                S[j] = s
                C[j] = advance(S[j], B[j])
            played = play_out(self.net, S, C, B, self._obs, self._masks, n, self.max_depth,
                              self._scores, self._deadline)
            values = (1 - lam) * values + lam * played
        return values

    def _terminal_values(self, s: np.ndarray, n: int) -> np.ndarray:
        final_scores(s, self._scores)
        return np.where(self._scores[:n, SC_WINNER] == 1, 1.0, -1.0)

    # --- search ---------------------------------------------------------------------------------
    def _select(self, node: _Node, legal: np.ndarray) -> int:
        logits = node.logits[legal]
        p = np.exp(logits - logits.max())
        p /= p.sum()
        n = node.N[legal]
        q = np.where(n > 0, node.W[legal] / np.maximum(n, 1), 0.0)
        u = q + self.c_puct * p * math.sqrt(node.total + 1) / (1 + n)
        return int(legal[int(np.argmax(u))])

    def _descend(self, root: _Node, s: np.ndarray, n_players: int):
        """One simulation's walk from the root on deal ``s``: (path, leaf state, terminal
        values or None). Applies a virtual loss along the path."""
        path = []
        node = root
        count = advance(s, self._buf)
        while True:
            legal = self._buf[:count].copy()
            a = self._select(node, legal)
            path.append((node, a))
            node.N[a] += 1
            node.W[a] -= 1  # virtual loss
            node.total += 1
            count = step(s, a, self._buf)
            if count == 0:
                return path, s, self._terminal_values(s, n_players)
            child = node.children.get(a)
            if child is None:
                return path, s, None
            node = child

    def act(self, game: Game) -> int:
        legal = np.array(game.legal_action_ids(), dtype=np.int32)
        if len(legal) == 1:
            return int(legal[0])
        p, n = game.current_player, game.num_players
        state = game.state.copy()
        logits, _ = self._evaluate([state])
        prior = np.exp(logits[0, legal] - logits[0, legal].max())
        if self.confident < 1 and prior.max() / prior.sum() >= self.confident:  # follow it
            return int(legal[int(np.argmax(prior))])
        root = _Node(p, logits[0])
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        self._deadline = deadline  # the play-outs stop there too
        done = 0
        while True:
            t0 = time.perf_counter()
            if self.simulations is not None:
                k = min(self.batch, self.simulations - done)
            else:
                k = self.batch
            walks = []
            for _ in range(k):
                s = state.copy()
                redeal(s, p, self.rng, 0)
                walks.append(self._descend(root, s, n))
            leaves = [(i, w) for i, w in enumerate(walks) if w[2] is None]
            if leaves:
                lg, vs = self._evaluate([w[1] for _, w in leaves])
                leaf_values = self._leaf_values([w[1] for _, w in leaves], vs, n)
            values = {}
            for j, (i, (path, s, _)) in enumerate(leaves):
                node, a = path[-1]
                if a not in node.children:
                    node.children[a] = _Node(int(s[L.DECIDER]), lg[j])
                values[i] = leaf_values[j]
            for i, (path, _, terminal) in enumerate(walks):
                v = terminal if terminal is not None else values[i]
                for node, a in path:
                    node.W[a] += 1 + v[node.player]  # undo the virtual loss, add the value
            done += k
            if self.simulations is not None and done >= self.simulations:
                break
            now = time.perf_counter()
            if deadline is not None and now + (now - t0) > deadline:  # no batch past the budget
                break
        return int(legal[int(np.argmax(root.N[legal]))])
