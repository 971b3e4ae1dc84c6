"""``BatchEngine``: many games in one 2-D state array, advanced in parallel by numba (``prange``).

The same njit rule functions as ``Game`` (``engine.flow.step``), no second implementation. A
finished game restarts at once as a fresh game drawn from its own seed stream, so every row
always holds a pending decision. Results are deterministic for a given seed (each game draws from
its own generator, independent of the thread count).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from machu_env.core.checks import (
    MAX_ENVS,
    action_array,
    check_bool,
    check_int,
    check_seed,
    refuse_illegal,
)
from machu_env.core.game import Game
from machu_env.core.reward_modes import check_reward_mode
from machu_env.engine import batch as K
from machu_env.engine.observation import OBS_SIZE
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS


class BatchEngine:
    """``num_envs`` games of ``num_players`` players.

    Args:
        num_envs: number of games (rows).
        num_players: 2 to 5.
        seed: seeds every game's own stream (setups, restarts, random playouts).
        reward: terminal reward mode of ``step`` (``"win"``, ``"rank"``, ``"score"``).
        learning_game: the learning-game variant (R2.11).
    """

    def __init__(self, num_envs: int, num_players: int, seed: int = 0, *, reward: str = "win",
                 learning_game: bool = False, **game_options: Any) -> None:
        self.num_envs = check_int("num_envs", num_envs, 1, MAX_ENVS)
        self.num_players = check_int("num_players", num_players, 2, 5)
        check_seed("seed", seed)
        if game_options:
            raise ValueError(f"unsupported option(s) for the batch engine: "
                             f"{', '.join(sorted(game_options))}; allowed: reward, learning_game")
        self.learning_game = check_bool("learning_game", learning_game)
        self.reward_mode = check_reward_mode(reward)
        self.seed = int(seed)
        n = self.num_envs
        self.states = np.zeros((n, L.STATE_SIZE), dtype=np.int32)
        self._bufs = np.zeros((n, NUM_ACTIONS), dtype=np.int32)
        self._counts = np.zeros(n, dtype=np.int32)
        self._rngs = K.seed_streams(seed, n)
        self._scratch = np.zeros((n, 5, 6), dtype=np.int32)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        K.reset_all(self.states, self._bufs, self._counts, self._rngs, self.num_players,
                    self.learning_game)

    # --- read ---------------------------------------------------------------------------------
    @property
    def current_player(self) -> np.ndarray:
        """(N,) the player who decides now in each game."""
        return self.states[:, L.DECIDER].copy()

    @property
    def num_legal(self) -> np.ndarray:
        """(N,) how many legal actions each game's pending decision has (a read-only view,
        valid until the next ``step``)."""
        return _read_only(self._counts)

    def legal_ids(self) -> np.ndarray:
        """(N, NUM_ACTIONS) int32: row i starts with game i's legal ids (``num_legal[i]`` of
        them, ascending); the rest is unused. A read-only view, valid until the next ``step``:
        ``ids[rows, (u * num_legal).astype(int)]`` samples a uniform legal action per game."""
        return _read_only(self._bufs)

    def legal_mask(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the legal actions of every game."""
        K.legal_mask(self._bufs, self._counts, self._mask)
        return self._mask.copy()

    def observe(self) -> np.ndarray:
        """(N, OBS_SIZE) float32: each game's observation for its current player."""
        out = np.empty((self.num_envs, OBS_SIZE), dtype=np.float32)
        K.observe_deciders(self.states, out)
        return out

    def game(self, i: int) -> Game:
        """A ``Game`` copy of row ``i`` (for inspection and rendering)."""
        check_int("i", i, 0, self.num_envs - 1)
        return Game._from_arrays(self.num_players, None, self.learning_game, self.states[i],
                                 self._bufs[i], self._counts[i], [])

    # --- advance ------------------------------------------------------------------------------
    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One decision in every game: ``actions`` is an (N,) integer array of action ids.

        Returns ``(rewards, dones)``: rewards (N, num_players) float32, non-zero only for games
        that just ended (which restart at once), dones (N,) bool. An illegal action for any
        game raises ValueError naming those games, and nothing changes.
        """
        a = self._check_actions(actions)
        rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=np.bool_)
        K.step_all(self.states, self._bufs, self._counts, self._rngs, a, rewards, dones,
                   self._scratch, self.num_players, self.learning_game, self.reward_mode)
        return rewards, dones

    def random_playout(self, num_steps: int) -> int:
        """Play ``num_steps`` decisions in total (spread evenly over the games) with uniformly
        random legal actions, inside compiled code; returns the number played."""
        total = check_int("num_steps", num_steps, 0, None)
        steps = np.full(self.num_envs, total // self.num_envs, dtype=np.int64)
        steps[: total % self.num_envs] += 1
        stats = np.zeros((self.num_envs, 3), dtype=np.int64)
        K.random_playout(self.states, self._bufs, self._counts, self._rngs, steps,
                         self.num_players, self.learning_game, stats)
        self.last_playout_stats = stats.sum(axis=0)  # finished games, rescues, conquests
        return int(steps.sum())

    def _check_actions(self, actions: Any) -> np.ndarray:
        a = action_array(actions, self.num_envs)
        refuse_illegal(self._bufs, self._counts, a, "action",
                       "legal_mask() / legal_ids() give the legal actions")
        return a

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of game state per game (one row of ``states``)."""
        return self.states.itemsize * self.states.shape[1]


def _read_only(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v
