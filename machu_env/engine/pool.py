"""Compiled kernels for training against an opponent pool, over the batch engine's arrays.

Every game ``i`` has one learner seat ``seats[i]`` and, for every seat, an opponent kind
``kinds[i, seat]``: ``RANDOM``, ``BUILDER``, ``GOLD`` and ``RACER`` are played here in compiled
code (the heuristics are ``engine.lookahead.choose``, the same function the heuristic agents call,
on a re-deal of the cards the deciding seat cannot see: ``choose_fair``); kinds
``>= FIRST_POLICY`` are frozen policies that Python plays in batches. A new game
draws its learner seat and every opponent kind from the game's own generator, so a run depends
only on its seed, never on the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from machu_env.engine import batch as K
from machu_env.engine.flow import step
from machu_env.engine.lookahead import BUILDER_WEIGHTS, GOLD_WEIGHTS, RACER_WEIGHTS, choose_fair
from machu_env.engine.observation import encode
from machu_env.engine.rng import below
from machu_env.engine.scoring import SC_WINNER
from machu_env.rules import layout as L

RANDOM, BUILDER, GOLD, RACER = 0, 1, 2, 3
FIRST_POLICY = 4  # kinds 4, 5, ... are the frozen snapshots 0, 1, ...
COMPILED_NAMES = ("random", "builder", "gold", "racer")
HEURISTIC_WEIGHTS = np.stack([BUILDER_WEIGHTS, GOLD_WEIGHTS, RACER_WEIGHTS])  # row kind - 1
PROB_SCALE = 1 << 30  # pool probabilities are integers out of this


@njit(cache=True)
def _opponent_action(s, legal, n, kind, rngs, i, weights, noise):
    """The compiled opponent ``kind``'s choice among ``legal[:n]`` in game i."""
    if kind == RANDOM:
        return legal[below(rngs, i, n)]
    for k in range(n):  # tie-breaking noise, as the agents' own (seeded per game here)
        noise[k] = below(rngs, i, 1 << 20) * 1e-12
    return choose_fair(s, legal[:n], weights[kind - 1], noise, rngs, i)


@njit(cache=True)
def _compiled_until_stop(states, bufs, counts, rngs, seats, kinds, weights, noise, i):
    """Compiled opponents move in game i until the learner or a policy opponent decides, or
    the game ends."""
    s = states[i]
    while counts[i] > 0:
        p = s[L.DECIDER]
        if p == seats[i] or kinds[i, p] >= FIRST_POLICY:
            return
        a = _opponent_action(s, bufs[i], counts[i], kinds[i, p], rngs, i, weights, noise[i])
        counts[i] = step(s, a, bufs[i])


@njit(cache=True, parallel=True, nogil=True)
def compiled_until_stop(states, bufs, counts, rngs, seats, kinds, weights, noise, idx):
    for j in prange(idx.shape[0]):
        _compiled_until_stop(states, bufs, counts, rngs, seats, kinds, weights, noise, idx[j])


@njit(cache=True, parallel=True, nogil=True)
def opponent_turns(states, bufs, counts, rngs, seats, kinds, weights, noise, idx, actions,
                   flags, obs, mask, rows, which):
    """One round of opponents' moves in the games ``idx``, written in place for the frozen
    policies: first, where ``actions`` is not empty, the policy opponent's ``actions[j]`` in
    game ``idx[j]``; then the compiled opponents move until the learner or a policy opponent
    decides (or the game ends). The games now waiting on a policy opponent come out in the
    order of ``idx``: ``rows[k]`` (the game), ``which[k]`` (its policy: kind - FIRST_POLICY),
    ``obs[k]`` and ``mask[k]`` (the deciding seat's observation and legal actions). Returns
    their number. ``flags``: scratch, one per game of ``idx`` at least."""
    m = idx.shape[0]
    stepped = actions.shape[0] > 0
    for j in prange(m):
        i = idx[j]
        if stepped:
            counts[i] = step(states[i], actions[j], bufs[i])
        _compiled_until_stop(states, bufs, counts, rngs, seats, kinds, weights, noise, i)
        flags[j] = counts[i] > 0 and states[i, L.DECIDER] != seats[i]
    n = 0
    for j in range(m):  # (in order; rows may be idx itself: n <= j)
        if flags[j]:
            rows[n] = idx[j]
            n += 1
    for k in prange(n):
        i = rows[k]
        p = states[i, L.DECIDER]
        which[k] = kinds[i, p] - FIRST_POLICY
        encode(states[i], p, obs[k])
        mask[k, :] = False
        for t in range(counts[i]):
            mask[k, bufs[i, t]] = True
    return n


@njit(cache=True)
def _draw_kind(rngs, i, cum):
    """A kind drawn with the cumulative integer probabilities ``cum`` (last = PROB_SCALE)."""
    r = below(rngs, i, PROB_SCALE)
    for k in range(cum.shape[0]):
        if r < cum[k]:
            return k
    return cum.shape[0] - 1


@njit(cache=True)
def _head_start(s, p, rngs, i, head_start):
    """A training curriculum, never a rule: with probability ``head_start / PROB_SCALE`` the
    learner seat ``p`` starts holding one priest card (Condor, Puma or Virgin, drawn at random),
    taken from its row (R4.4) without payment, so that a learner meets the temples' sacrifices
    (R4.2.1) that it would otherwise have to buy its way into first. No draw at 0: runs
    without it are unchanged."""
    if head_start <= 0 or below(rngs, i, PROB_SCALE) >= head_start:
        return
    k = below(rngs, i, 3)
    s[L.PLAYER_BASE + p * L.PLAYER_SIZE + L.P_PRIESTS + k] += 1
    s[L.PRIESTS_TAKEN + k] += 1


@njit(cache=True)
def _new_game(states, bufs, counts, rngs, seats, kinds, cum, i, fixed_seat, num_players,
              learning, head_start):
    K._new_game(states, bufs, counts, rngs, i, num_players, learning)
    seats[i] = fixed_seat if fixed_seat >= 0 else below(rngs, i, num_players)
    for p in range(num_players):
        kinds[i, p] = -1 if p == seats[i] else _draw_kind(rngs, i, cum)
    _head_start(states[i], seats[i], rngs, i, head_start)


@njit(cache=True, parallel=True, nogil=True)
def new_games(states, bufs, counts, rngs, seats, kinds, cum, idx, fixed_seat, num_players,
              learning, head_start):
    """Restart the games ``idx``: a new setup, learner seat and opponents (and the learner's
    head start, ``_head_start``)."""
    for j in prange(idx.shape[0]):
        _new_game(states, bufs, counts, rngs, seats, kinds, cum, idx[j], fixed_seat,
                  num_players, learning, head_start)


@njit(cache=True, parallel=True, nogil=True)
def finish_games(states, seats, idx, scratch, score_rows, mode, rewards, terminal_obs, won):
    """Terminal reward, observation and win flag of the learner in the finished games ``idx``."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        K._finish(states, i, scratch, mode, score_rows[i])
        rewards[i] = score_rows[i, seats[i]]
        encode(states[i], seats[i], terminal_obs[i])
        won[i] = scratch[i, seats[i], SC_WINNER]


@njit(cache=True, parallel=True, nogil=True)
def step_learners(states, bufs, counts, rngs, seats, kinds, weights, noise, cum, actions,
                  learner_steps, max_learner_steps, max_decisions, fixed_seat, num_players,
                  learning, head_start, scratch, score_rows, mode, rewards, ended, cut,
                  final_obs, won, obs, mask, active):
    """A whole step of a batch whose opponents are all compiled, in one pass per game: the
    learner's action, the opponents' replies, the end (reward, last observation, win) or the
    truncation of the game and its restart, then the learner's next observation and legal
    mask. The same draws in the same order per game as the step in ``LearnerBatch.advance``.
    A game with ``active[i]`` False is not stepped (its observation and mask are written)."""
    for i in prange(states.shape[0]):
        rewards[i] = 0.0
        ended[i] = False
        cut[i] = False
        won[i] = 0
        if not active[i]:
            encode(states[i], seats[i], obs[i])
            mask[i, :] = False
            for k in range(counts[i]):
                mask[i, bufs[i, k]] = True
            continue
        counts[i] = step(states[i], actions[i], bufs[i])
        learner_steps[i] += 1
        _compiled_until_stop(states, bufs, counts, rngs, seats, kinds, weights, noise, i)
        ended[i] = counts[i] == 0
        cut[i] = not ended[i] and (learner_steps[i] >= max_learner_steps
                                   or states[i, L.DECISIONS] >= max_decisions)
        if ended[i]:
            K._finish(states, i, scratch, mode, score_rows[i])
            rewards[i] = score_rows[i, seats[i]]
            won[i] = scratch[i, seats[i], SC_WINNER]
        if ended[i] or cut[i]:
            encode(states[i], seats[i], final_obs[i])
            counts[i] = 0
            while counts[i] == 0:  # a game the opponents end alone is started again
                _new_game(states, bufs, counts, rngs, seats, kinds, cum, i, fixed_seat,
                          num_players, learning, head_start)
                learner_steps[i] = 0
                _compiled_until_stop(states, bufs, counts, rngs, seats, kinds, weights, noise,
                                     i)
        encode(states[i], seats[i], obs[i])
        mask[i, :] = False
        for k in range(counts[i]):
            mask[i, bufs[i, k]] = True
