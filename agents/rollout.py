"""``rollout:<policy>``: Monte Carlo policy improvement by determinised policy rollouts.

At each decision the policy's masked softmax ranks the legal actions; the most probable ones
(the smallest set holding ``cover`` of the probability, at most ``candidates``) are compared.
Each comparison round re-deals, ``deals`` times, the cards the deciding player cannot see
(``engine.redeal``, from the agent's own seeded generator); every candidate is played on every
deal (common random numbers: the candidates are compared on the same deals), and then every
player, the decider included, plays the policy's most probable legal action — the way the
policy plays in tournaments — until the game ends (+1 to the winners, -1 to the others) or
``max_depth`` decisions have passed (then the value head estimates the result). The candidate
with the best mean result is played; ties go to the more probable one. A confident policy
(one candidate) is followed without a rollout.

All rollouts of a round advance together: one batched forward pass per decision depth, the
engine's compiled ``step`` and ``encode`` for the rows. The budget is a number of rounds,
``seconds`` per decision (rounds while another one still fits, at least one), or both (at most
that many rounds, none that would end past ``seconds``). Only what the
player may know is used: the observation encodes no hidden card, and every rollout runs on a
re-deal.

This is Tesauro and Galperin's on-line policy improvement (1996): against the policy itself it
is an improvement step, since the rollouts model the other players as that policy plays.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from machu_env.agents.base import check_seconds
from machu_env.agents.masking import FLOAT32_MAX, masked_argmax
from machu_env.agents.policy_file import observation_version
from machu_env.core.game import Game
from machu_env.engine.flow import step
from machu_env.engine.observation import encode
from machu_env.engine.redeal import redeal
from machu_env.engine.rng import seed_state
from machu_env.engine.scoring import SC_WINNER, final_scores
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS


@njit(cache=True)
def _start_rows(state, p, candidates, deals, rng, states, counts, bufs):
    """Row ``d * k + j``: deal ``d`` of ``state`` (a re-deal for ``p``) after candidate ``j``."""
    k = candidates.shape[0]
    t = np.empty_like(state)
    for d in range(deals):
        t[:] = state
        redeal(t, p, rng, 0)
        for j in range(k):
            i = d * k + j
            states[i, :] = t
            counts[i] = step(states[i], candidates[j], bufs[i])


@njit(cache=True)
def _observe_rows(states, counts, bufs, rows, obs, masks):
    """The decider's observation and legal mask of each row in ``rows``."""
    for j in range(rows.shape[0]):
        i = rows[j]
        encode(states[i], states[i, L.DECIDER], obs[j])
        masks[j, :] = False
        for k in range(counts[i]):
            masks[j, bufs[i, k]] = True


@njit(cache=True)
def _step_rows(states, counts, bufs, rows, actions):
    for j in range(rows.shape[0]):
        i = rows[j]
        counts[i] = step(states[i], actions[j], bufs[i])


@njit(cache=True)
def _results(states, rows, n, scores, out):
    """Each finished row of ``rows``: +1 to its winners, -1 to the other players."""
    for j in range(rows.shape[0]):
        final_scores(states[rows[j]], scores)
        for q in range(n):
            out[j, q] = 1.0 if scores[q, SC_WINNER] == 1 else -1.0


def head_values(v: np.ndarray, deciders: np.ndarray, n: int) -> np.ndarray:
    """Per-player values ``(rows, n)`` from the value head's estimate ``v`` of each row's
    decider (its expected win reward); the other players share the rest of the win chance
    evenly."""
    p_win = np.clip((v + 1) / 2, 0, 1)
    out = np.repeat((2 * (1 - p_win) / (n - 1) - 1)[:, None], n, axis=1)
    out[np.arange(len(v)), deciders] = v
    return out


def forward(net, obs: np.ndarray):
    """(logits tensor, values array) of ``net`` for a batch of observations."""
    import torch

    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs))
    values = values[:, 0].numpy().astype(np.float64)
    return logits, np.nan_to_num(values, nan=0.0, posinf=FLOAT32_MAX, neginf=-FLOAT32_MAX)


def play_out(net, S: np.ndarray, C: np.ndarray, B: np.ndarray, obs: np.ndarray,
             masks: np.ndarray, n: int, max_depth: int, scores: np.ndarray,
             deadline: float | None = None) -> np.ndarray:
    """Plays every row of ``S`` (``C`` legal counts, ``B`` legal actions) on, every player
    taking the policy's most probable legal action, all rows advancing together (one batched
    forward pass per decision); returns per-player results ``(rows, n)``: +1 winners, -1 the
    others, or the value head's estimate (``head_values``) for a row still running after
    ``max_depth`` decisions or at ``deadline`` (a ``time.perf_counter()`` value: the time
    budget holds even for a policy whose games run long). ``obs`` and ``masks`` are scratch
    buffers of at least as many rows.
    """
    import torch

    rows = S.shape[0]
    result = np.zeros((rows, n))
    start = S[:, L.DECISIONS].copy()
    active = np.flatnonzero(C > 0)
    done = np.flatnonzero(C == 0)
    if done.size:
        result[done] = _finished(S, done, n, scores)
    while active.size:
        late = deadline is not None and time.perf_counter() > deadline
        cut = active if late else active[S[active, L.DECISIONS] - start[active] >= max_depth]
        if cut.size:
            m = cut.size
            _observe_rows(S, C, B, cut, obs[:m], masks[:m])
            _, v = forward(net, obs[:m])
            result[cut] = head_values(v, S[cut, L.DECIDER], n)
            active = np.setdiff1d(active, cut, assume_unique=True)
            if not active.size:
                break
        m = active.size
        _observe_rows(S, C, B, active, obs[:m], masks[:m])
        logits, _ = forward(net, obs[:m])
        actions = masked_argmax(logits, torch.from_numpy(masks[:m])).numpy()
        _step_rows(S, C, B, active, actions.astype(np.int32))
        finished = active[C[active] == 0]
        if finished.size:
            result[finished] = _finished(S, finished, n, scores)
            active = active[C[active] > 0]
    return result


def _finished(S: np.ndarray, rows: np.ndarray, n: int, scores: np.ndarray) -> np.ndarray:
    out = np.empty((rows.size, n))
    _results(S, rows, n, scores, out)
    return out


def check_budget_seconds(seconds, count) -> float | None:
    """The time budget of a search agent: ``seconds`` (a number > 0), or 1.0 when neither it
    nor a count budget (``count``: simulations, rounds) is given, else None (count only)."""
    if seconds is None:
        return 1.0 if count is None else None
    return check_seconds(seconds)


class RolloutAgent:
    """Determinised policy rollouts at the root over a ``PolicyNet`` (see the module
    docstring).

    Args:
        net: the policy (``PolicyNet``), used for the ranking, the rollouts and the value cut.
        seed: the re-deals' generator.
        seconds: time budget per decision (1.0 when neither budget is given; at least one
            round; with ``rounds`` too, a cap: no round that would end past it).
        rounds: a fixed number of rounds per decision (deterministic for a seed).
        deals: re-deals per round (each candidate is rolled out once per deal).
        candidates: the most actions compared; ``cover``: the probability they must hold.
        max_depth: decisions per rollout before the value head estimates the result.
    """

    def __init__(self, net, seed: int = 0, seconds: float | None = None,
                 rounds: int | None = None,
                 deals: int = 16, candidates: int = 4, cover: float = 0.95,
                 max_depth: int = 400, name: str = "rollout") -> None:
        for label, v, lo in (("deals", deals, 1), ("candidates", candidates, 1),
                             ("max_depth", max_depth, 1)):
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ValueError(f"{label} must be an integer >= {lo}, got {v!r}")
        if rounds is not None and (not isinstance(rounds, int) or rounds < 1):
            raise ValueError(f"rounds must be an integer >= 1, got {rounds!r}")
        seconds = check_budget_seconds(seconds, rounds)
        if not (isinstance(cover, (int, float)) and 0 < cover <= 1):
            raise ValueError(f"cover must be in (0, 1], got {cover!r}")
        self.net, self.seconds, self.rounds, self.name = net, seconds, rounds, name
        self.deals, self.candidates, self.cover = deals, candidates, float(cover)
        self.max_depth = max_depth
        self.rng = seed_state(seed)
        rows = deals * candidates
        self._states = np.zeros((rows, L.STATE_SIZE), np.int32)
        self._bufs = np.zeros((rows, NUM_ACTIONS), np.int32)
        self._counts = np.zeros(rows, np.int32)
        self._obs = np.zeros((rows, int(net.config["obs_size"])), np.float32)  # v1 or v2
        self._masks = np.zeros((rows, NUM_ACTIONS), np.bool_)
        self._scores = np.zeros((5, 6), np.int32)

    def ranked(self, game: Game) -> np.ndarray:
        """The candidate actions, most probable first."""
        import torch

        version = observation_version(self.net.config)
        obs = torch.from_numpy(game.observation(game.current_player, version)[None])
        mask = torch.from_numpy(game.action_mask().astype(bool)[None])
        with torch.no_grad():
            every = self.net.probabilities(obs, mask)[0].numpy()
        legal = np.array(game.legal_action_ids(), dtype=np.int64)
        probs = every[legal].astype(np.float64)
        order = np.argsort(-probs, kind="stable")
        k = 1 + int(np.searchsorted(np.cumsum(probs[order]), self.cover - 1e-9))
        return legal[order[:min(k, self.candidates, len(legal))]].astype(np.int32)

    def _round(self, state: np.ndarray, p: int, n: int, cands: np.ndarray,
               deadline: float | None = None) -> np.ndarray:
        """One round: the sum over ``deals`` re-deals of each candidate's rollout result."""
        k, deals = len(cands), self.deals
        rows = k * deals
        S, C, B = self._states[:rows], self._counts[:rows], self._bufs[:rows]
        _start_rows(state, p, cands, deals, self.rng, S, C, B)
        result = play_out(self.net, S, C, B, self._obs, self._masks, n, self.max_depth,
                          self._scores, deadline)
        return result[:, p].reshape(deals, k).sum(0)

    def act(self, game: Game) -> int:
        legal = game.legal_action_ids()
        if len(legal) == 1:
            return int(legal[0])
        cands = self.ranked(game)
        if len(cands) == 1:
            return int(cands[0])
        p, n = game.current_player, game.num_players
        state = game.state.copy()
        total = np.zeros(len(cands))
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        done = 0
        while True:
            t0 = time.perf_counter()
            total += self._round(state, p, n, cands, deadline)
            done += 1
            if self.rounds is not None and done >= self.rounds:
                break
            now = time.perf_counter()
            if deadline is not None and now + (now - t0) > deadline:  # no round past the budget
                break
        return int(cands[int(np.argmax(total))])  # first of equal maxima: the more probable
