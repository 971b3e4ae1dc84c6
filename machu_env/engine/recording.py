"""Compiled kernels that play many games with agents at every seat and record every decision
(``machu dataset``): the decider's observation and legal actions before each decision, then the
compiled heuristics' choices (the same ``_opponent_action`` as the training pool's)."""

from __future__ import annotations

from numba import njit, prange

from machu_env.engine.flow import step
from machu_env.engine.observation import encode
from machu_env.engine.pool import _opponent_action
from machu_env.rules import layout as L


@njit(cache=True, parallel=True)
def record_deciders(states, bufs, counts, idx, lengths, obs, masks, seats, rows, first_row):
    """For the games ``idx``: the decider's observation into ``obs[j]`` (the version
    its length says) and legal actions into ``masks[j]``; its seat and the row number
    ``first_row + j`` at the game's step ``lengths[i]``."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        t = lengths[i]
        p = states[i, L.DECIDER]
        encode(states[i], p, obs[j])
        masks[j, :] = 0
        for k in range(counts[i]):
            masks[j, bufs[i, k]] = 1
        seats[i, t] = p
        rows[i, t] = first_row + j


@njit(cache=True, parallel=True)
def compiled_choices(states, bufs, counts, rngs, kinds, weights, noise, idx, out):
    """The compiled agents' actions (``kinds[i, decider]``: random, builder, gold, racer) in
    the games ``idx``, into ``out[j]``; each game draws from its own generator."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        s = states[i]
        out[j] = _opponent_action(s, bufs[i], counts[i], kinds[i, s[L.DECIDER]], rngs, i,
                                  weights, noise[i])


@njit(cache=True, parallel=True)
def step_recorded(states, bufs, counts, idx, actions, lengths, recorded):
    """Play ``actions[j]`` in game ``idx[j]`` and note it at the game's current row."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        recorded[i, lengths[i]] = actions[j]
        lengths[i] += 1
        counts[i] = step(states[i], actions[j], bufs[i])


@njit(cache=True, parallel=True)
def final_observations(states, num_players, out):
    """Every seat's observation of every game's last state (``out``: (N, players, size))."""
    for i in prange(states.shape[0]):
        for p in range(num_players):
            encode(states[i], p, out[i, p])
