"""A Stable-Baselines3 ``VecEnv`` over the batch engine: the fastest way to train on this game.

The learner holds one seat per game (fixed, or drawn for each new game); the other seats are
played inside the batch: by uniformly random legal actions in compiled code (default), or by a
batched opponent policy ``policy(observations, action_masks) -> actions`` (for instance a
frozen SB3 model's ``predict``). ``action_masks()`` serves sb3-contrib's MaskablePPO.
Rewards are terminal (``machu_env.rewards``); a finished game's last observation is in
``infos[i]["terminal_observation"]`` and the game restarts at once, as SB3 expects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from . import layout as L
from .actions import NUM_ACTIONS
from .engine import batch as K
from .engine.observation import OBS_HIGH, OBS_SIZE
from .game import _check_int
from .rewards import check_reward_mode

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


class MachuPicchuVecEnv(VecEnv):
    """``num_envs`` games, one learner seat each.

    Args:
        num_envs: number of games.
        num_players: 2 to 5.
        seed: seeds every game's own stream.
        learner_seat: the learner's seat, or None to draw it for each new game.
        opponent: None for random opponents (compiled), or a batched policy.
        reward: ``"win"``, ``"rank"`` or ``"score"``.
        learning_game: the learning-game variant.
    """

    def __init__(self, num_envs: int, num_players: int = 2, seed: int = 0,
                 learner_seat: int | None = None, opponent: BatchPolicy | None = None,
                 reward: str = "win", learning_game: bool = False) -> None:
        n = _check_int("num_envs", num_envs, 1, None)
        self.num_players = _check_int("num_players", num_players, 2, 5)
        self.fixed_seat = -1 if learner_seat is None else _check_int(
            "learner_seat", learner_seat, 0, num_players - 1)
        if opponent is not None and not callable(opponent):
            raise ValueError("opponent must be None (random) or a callable "
                             "(observations, action_masks) -> actions")
        self.opponent = opponent
        self.mode = check_reward_mode(reward)
        self.learning_game = bool(learning_game)
        observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.render_mode = None
        super().__init__(n, observation_space, spaces.Discrete(NUM_ACTIONS))
        self._seed = int(seed)
        self.states = np.zeros((n, L.STATE_SIZE), dtype=np.int32)
        self._bufs = np.zeros((n, NUM_ACTIONS), dtype=np.int32)
        self._counts = np.zeros(n, dtype=np.int32)
        self.seats = np.zeros(n, dtype=np.int32)
        self._scratch = np.zeros((n, 5, 6), dtype=np.int32)
        self._score_rows = np.zeros((n, 5), dtype=np.float64)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._terminal = np.zeros((n, OBS_SIZE), dtype=np.float32)  # reused every step
        self._actions: np.ndarray | None = None
        self._rngs = K.seed_streams(self._seed, n)

    # --- VecEnv API -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        self._rngs = K.seed_streams(self._seed, self.num_envs)
        K.learner_reset_all(self.states, self._bufs, self._counts, self._rngs, self.seats,
                            self.fixed_seat, self.num_players, self.learning_game,
                            self.opponent is None)
        if self.opponent is not None:
            self._play_policy_opponents(np.arange(self.num_envs))
        self._seed += 1  # a later reset() starts other games
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int32)

    def step_wait(self):
        a = self._checked_actions()
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=np.bool_)
        terminal = self._terminal  # rows are written only for finished games, copied below
        if self.opponent is None:
            K.learner_step_all(self.states, self._bufs, self._counts, self._rngs, self.seats, a,
                               rewards, dones, terminal, self._scratch, self._score_rows,
                               self.fixed_seat, self.num_players, self.learning_game, self.mode)
        else:
            self._step_with_policy(a, rewards, dones, terminal)
        obs = self._observe()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {"terminal_observation": terminal[i].copy(), "TimeLimit.truncated": False}
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the learner's legal actions in every game."""
        K.legal_mask(self._bufs, self._counts, self._mask)
        return self._mask.copy()

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> Sequence[None]:
        if seed is not None:
            self._seed = int(seed)
        return [None] * self.num_envs

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
        raise AttributeError(f"MachuPicchuVecEnv has no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    # --- internals ------------------------------------------------------------------------------
    def _checked_actions(self) -> np.ndarray:
        """The learner's pending actions; ValueError naming the games where one is illegal
        (before anything changes)."""
        a = self._actions
        bad = np.zeros(self.num_envs, dtype=np.int8)
        K.illegal_games(self._bufs, self._counts, a, bad)
        if bad.any():
            games = np.flatnonzero(bad)[:10].tolist()
            raise ValueError(f"illegal learner action in game(s) {games}: use action_masks()")
        return a

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def _observe(self) -> np.ndarray:
        out = np.empty((self.num_envs, OBS_SIZE), dtype=np.float32)
        K.observe_seats(self.states, self.seats, out)
        return out

    def _play_policy_opponents(self, games: np.ndarray) -> None:
        """Let the batched opponent policy move in ``games`` until the learner decides (or the
        game ends)."""
        while True:
            waiting = games[(self._counts[games] > 0)
                            & (self.states[games, L.DECIDER] != self.seats[games])]
            if waiting.size == 0:
                return
            obs = np.empty((waiting.size, OBS_SIZE), dtype=np.float32)
            K.observe_deciders(self.states[waiting], obs)
            mask = np.zeros((waiting.size, NUM_ACTIONS), dtype=np.bool_)
            K.legal_mask(self._bufs[waiting], self._counts[waiting], mask)
            actions = np.asarray(self.opponent(obs, mask)).reshape(-1).astype(np.int32)
            if not mask[np.arange(waiting.size), actions].all():
                raise ValueError("the opponent policy chose an illegal action")
            K.step_some(self.states, self._bufs, self._counts, waiting.astype(np.int64),
                        actions)

    def _step_with_policy(self, a, rewards, dones, terminal) -> None:
        every = np.arange(self.num_envs)
        K.step_some(self.states, self._bufs, self._counts, every, a)
        self._play_policy_opponents(every)
        for i in np.flatnonzero(self._counts == 0):
            K._finish(self.states, i, self._scratch, self.mode, self._score_rows[i])
            rewards[i] = self._score_rows[i, self.seats[i]]
            dones[i] = True
            K.observe_seats(self.states[i : i + 1], self.seats[i : i + 1], terminal[i : i + 1])
            K._learner_new_game(self.states, self._bufs, self._counts, self._rngs, self.seats,
                                i, self.fixed_seat, self.num_players, self.learning_game, False)
            self._play_policy_opponents(np.array([i]))
