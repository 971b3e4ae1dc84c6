"""Kernels over many games at once: ``states`` is (N, STATE_SIZE), ``bufs`` (N, NUM_ACTIONS) the
legal-action lists, ``counts`` (N,) their lengths, ``rngs`` (N,) one generator per game.

Each game's setups and random choices come from its own generator, so results depend only on
the seed, never on how games are spread over threads. Loops over games use ``prange``; the
kernels release the GIL (``nogil``), so a trainer's update runs beside a rollout thread.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from machu_env.engine.flow import advance, step
from machu_env.engine.observation import encode
from machu_env.engine.rewards import terminal_rewards
from machu_env.engine.rng import below
from machu_env.engine.scoring import final_scores
from machu_env.engine.setup import init_state
from machu_env.rules import layout as L


@njit(cache=True, inline="always")
def _new_game(states, bufs, counts, rngs, i, num_players, learning):
    init_state(states[i], num_players, rngs[i : i + 1], -1, learning)
    counts[i] = advance(states[i], bufs[i])


@njit(cache=True, parallel=True, nogil=True)
def reset_all(states, bufs, counts, rngs, num_players, learning):
    for i in prange(states.shape[0]):
        _new_game(states, bufs, counts, rngs, i, num_players, learning)


@njit(cache=True, parallel=True, nogil=True)
def illegal_games(bufs, counts, actions, bad):
    """``bad[i] = 1`` where ``actions[i]`` is not legal in game i."""
    for i in prange(bufs.shape[0]):
        ok = 0
        for k in range(counts[i]):
            if bufs[i, k] == actions[i]:
                ok = 1
                break
        bad[i] = 1 - ok


@njit(cache=True, parallel=True, nogil=True)
def legal_mask(bufs, counts, mask):
    for i in prange(bufs.shape[0]):
        mask[i, :] = False
        for k in range(counts[i]):
            mask[i, bufs[i, k]] = True


@njit(cache=True, parallel=True, nogil=True)
def observe_deciders(states, out):
    for i in prange(states.shape[0]):
        encode(states[i], states[i, L.DECIDER], out[i])


@njit(cache=True, parallel=True, nogil=True)
def observe_seats(states, seats, out):
    for i in prange(states.shape[0]):
        encode(states[i], seats[i], out[i])


@njit(cache=True)
def _finish(states, i, scratch, mode, rewards_row):
    """Terminal rewards of finished game i into ``rewards_row``."""
    n = states[i, L.NUM_PLAYERS]
    final_scores(states[i], scratch[i])
    terminal_rewards(scratch[i], n, mode, rewards_row)


@njit(cache=True, parallel=True, nogil=True)
def step_all(states, bufs, counts, rngs, actions, rewards, dones, scratch, num_players, learning,
             mode):
    """One decision in every game; finished games get their terminal rewards and restart."""
    for i in prange(states.shape[0]):
        rewards[i, :] = 0.0
        counts[i] = step(states[i], actions[i], bufs[i])
        dones[i] = counts[i] == 0
        if dones[i]:
            _finish(states, i, scratch, mode, rewards[i])
            _new_game(states, bufs, counts, rngs, i, num_players, learning)


@njit(cache=True, parallel=True, nogil=True)
def random_playout(states, bufs, counts, rngs, steps, num_players, learning, stats):
    """Game i plays ``steps[i]`` random legal decisions (restarting finished games);
    ``stats[i]`` counts its finished games, rescue and conquest endings."""
    for i in prange(states.shape[0]):
        s = states[i]
        for _ in range(steps[i]):
            counts[i] = step(s, bufs[i, below(rngs, i, counts[i])], bufs[i])
            if counts[i] == 0:
                stats[i, 0] += 1
                stats[i, s[L.END_KIND]] += 1
                _new_game(states, bufs, counts, rngs, i, num_players, learning)


@njit(cache=True, parallel=True, nogil=True)
def step_some(states, bufs, counts, idx, actions):
    """One decision in the games ``idx`` (no restart)."""
    for j in prange(idx.shape[0]):
        i = idx[j]
        counts[i] = step(states[i], actions[j], bufs[i])


@njit(cache=True, parallel=True, nogil=True)
def random_legal(bufs, counts, rngs, out):
    """A uniformly random legal action id of every game into ``out`` (``rngs``: one stream per
    game, not the games' own: sampling actions changes no game)."""
    for i in prange(bufs.shape[0]):
        out[i] = bufs[i, below(rngs, i, counts[i])] if counts[i] > 0 else 0


def seed_streams(seed: int, n: int, stream: int = 0) -> np.ndarray:
    """One generator state per game: ``n`` independent 64-bit draws of PCG64 seeded by numpy's
    ``SeedSequence(seed, spawn_key=(stream,))`` (``stream`` numbers the resets of a VecEnv).

    Each game then runs its own splitmix64 sequence from a random point of the 2**64 cycle; two
    games' sequences overlap with a chance of about (draws per game) / 2**64, and neighbouring
    games are unrelated (tested in ``tests/engine/test_randomness.py``).
    """
    seq = np.random.SeedSequence(int(seed), spawn_key=(int(stream),))
    return np.random.PCG64(seq).random_raw(int(n)).astype(np.uint64)
