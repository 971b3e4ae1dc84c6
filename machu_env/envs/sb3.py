"""A Stable-Baselines3 ``VecEnv`` over the batch engine: the fastest way to train on this game.
(Without SB3 installed the class still works, on a minimal base: the batch core of the
Gymnasium ``VectorEnv``, ``machu_env.envs.vector``.)

The learner holds one seat per game (fixed, or drawn for each new game); the other seats are
played inside the batch: by uniformly random legal actions in compiled code (default), or by a
batched opponent policy ``policy(observations, action_masks) -> actions`` (for instance a
frozen SB3 model's ``predict``). ``action_masks()`` serves sb3-contrib's MaskablePPO.
Rewards are terminal (``machu_env.core.reward_modes``); a finished game's last observation is in
``infos[i]["terminal_observation"]`` and the game restarts at once, as SB3 expects. A game
still running after ``max_decisions`` decisions (all players', as every other layer counts)
ends truncated: ``dones[i]`` with ``infos[i]["TimeLimit.truncated"]`` True and reward 0.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError:  # the core install (SB3 is the train extra): the batch core still works,
    class VecEnv:  # under the Gymnasium VectorEnv (machu_env.envs.vector)
        """The part of SB3's ``VecEnv`` interface the batch envs rely on."""

        def __init__(self, num_envs: int, observation_space, action_space) -> None:
            self.num_envs = num_envs
            self.observation_space = observation_space
            self.action_space = action_space

        def step(self, actions):
            self.step_async(actions)
            return self.step_wait()

from machu_env.core.checks import MAX_ENVS, check_bool, check_decisions, check_int, check_seed
from machu_env.core.errors import OpponentError, ResetNeeded
from machu_env.core.game import DEFAULT_MAX_DECISIONS
from machu_env.core.reward_modes import check_reward_mode
from machu_env.engine import batch as K
from machu_env.engine.observation import OBS_HIGH, OBS_SIZES
from machu_env.envs.batch_engine import action_array, refuse_illegal
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS

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
        max_decisions: a game still running after this many decisions ends truncated.
        observation: the observation version, 1 (``OBS_SIZE``), 2 (``OBS_V2_SIZE``: with
            the race for the gold majority, ``engine.observation.RACE_FIELDS``) or 3
            (``OBS_V3_SIZE``: with the history summary, ``HISTORY_FIELDS``).
    """

    def __init__(self, num_envs: int, num_players: int = 2, seed: int = 0,
                 learner_seat: int | None = None, opponent: BatchPolicy | None = None,
                 reward: str = "win", learning_game: bool = False,
                 max_decisions: int = DEFAULT_MAX_DECISIONS, observation: int = 1) -> None:
        n = check_int("num_envs", num_envs, 1, MAX_ENVS)
        if isinstance(observation, bool) or observation not in OBS_SIZES:
            raise ValueError(f"observation must be 1, 2 or 3 (the version), got {observation!r}")
        self.obs_size = OBS_SIZES[observation]
        self.max_decisions = check_decisions("max_decisions", max_decisions)
        self.num_players = check_int("num_players", num_players, 2, 5)
        self.fixed_seat = -1 if learner_seat is None else check_int(
            "learner_seat", learner_seat, 0, num_players - 1)
        if opponent is not None and not callable(opponent):
            raise ValueError("opponent must be None (random) or a callable "
                             "(observations, action_masks) -> actions")
        self.opponent = opponent
        self.mode = check_reward_mode(reward)
        self.learning_game = check_bool("learning_game", learning_game)
        seed = check_seed("seed", seed)
        observation_space = spaces.Box(0.0, OBS_HIGH, (self.obs_size,), np.float32)
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
        self._terminal = np.zeros((n, self.obs_size), dtype=np.float32)  # reused every step
        self._actions: np.ndarray | None = None
        self._resets = 0  # numbers the seed streams: every reset() starts other games
        self._started = False
        self._rngs = K.seed_streams(self._seed, n)
        self._backup: list[np.ndarray] = []

    # --- VecEnv API -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        self._new_streams()
        K.learner_reset_all(self.states, self._bufs, self._counts, self._rngs, self.seats,
                            self.fixed_seat, self.num_players, self.learning_game,
                            self.opponent is None)
        if self.opponent is not None:
            self._play_policy_opponents(np.arange(self.num_envs))
        self._started = True
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        """Check the learner's actions (an integer array of shape (num_envs,), each legal);
        a refusal raises ValueError and changes nothing."""
        if not self._started:
            raise ResetNeeded("step() before reset(): call reset() first")
        self._actions = self._checked_actions(actions)

    def step_wait(self):
        a = self._pop_actions()
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=np.bool_)
        terminal = self._terminal  # rows are written only for finished games, copied below
        if self.opponent is None:
            K.learner_step_all(self.states, self._bufs, self._counts, self._rngs, self.seats, a,
                               rewards, dones, terminal, self._scratch, self._score_rows,
                               self.fixed_seat, self.num_players, self.learning_game, self.mode)
        else:
            with self._undo_on_error():
                self._step_with_policy(a, rewards, dones, terminal)
        cut = np.flatnonzero(~dones & (self.states[:, L.DECISIONS] >= self.max_decisions))
        for i in cut:
            self._truncate(i, terminal)
        dones[cut] = True
        obs = self._observe()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {"terminal_observation": terminal[i].copy(), "TimeLimit.truncated": False}
        for i in cut:
            infos[i]["TimeLimit.truncated"] = True
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the learner's legal actions in every game."""
        K.legal_mask(self._bufs, self._counts, self._mask)
        return self._mask.copy()

    def close(self) -> None:
        pass

    def seed(self, seed: int | None = None) -> Sequence[None]:
        """The seed of the next ``reset()`` (and of the resets after it)."""
        if seed is not None:
            self._seed = check_seed("seed", seed)
            self._resets = 0
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
    def _truncate(self, i: int, terminal: np.ndarray) -> None:
        """End game i as truncated (its last observation into ``terminal[i]``); a new game."""
        K.observe_seats(self.states[i : i + 1], self.seats[i : i + 1], terminal[i : i + 1])
        K._learner_new_game(self.states, self._bufs, self._counts, self._rngs, self.seats, i,
                            self.fixed_seat, self.num_players, self.learning_game,
                            self.opponent is None)
        if self.opponent is not None:
            self._play_policy_opponents(np.array([i]))

    def _new_streams(self) -> None:
        """Fresh seed streams for a reset (numbered, so every reset starts other games)."""
        self._started = False
        self._actions = None
        self._rngs = K.seed_streams(self._seed, self.num_envs, self._resets)
        self._resets += 1

    def _pop_actions(self) -> np.ndarray:
        """The actions checked by ``step_async``; ResetNeeded if there are none."""
        if self._actions is None:
            raise ResetNeeded("step_wait() without pending actions: call step_async(actions) "
                              "first (or step(actions))")
        a, self._actions = self._actions, None
        return a

    def _checked_actions(self, actions: Any) -> np.ndarray:
        """The learner's actions as int32; ValueError naming the games where one is not an
        action id or not legal (nothing changes)."""
        a = action_array(actions, self.num_envs, "actions")
        refuse_illegal(self._bufs, self._counts, a, "learner action", "use action_masks()")
        return a

    def _state_arrays(self) -> list[np.ndarray]:
        """Every array a step changes (restored when an opponent policy fails)."""
        return [self.states, self._bufs, self._counts, self._rngs, self.seats]

    @contextlib.contextmanager
    def _undo_on_error(self) -> Iterator[None]:
        """On an exception inside the block, put every game back as it was (buffers reused)."""
        arrays = self._state_arrays()
        if [b.shape for b in self._backup] != [a.shape for a in arrays]:
            self._backup = [a.copy() for a in arrays]
        else:
            for saved, a in zip(self._backup, arrays, strict=True):
                np.copyto(saved, a)
        try:
            yield
        except BaseException:
            for saved, a in zip(self._backup, arrays, strict=True):
                np.copyto(a, saved)
            raise

    def _policy_actions(self, policy: BatchPolicy, name: str, games: np.ndarray,
                        obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Ask a batched opponent policy and check its answer (shape, ids, legality);
        OpponentError naming it otherwise."""
        seats = self.states[games, L.DECIDER]
        try:
            out = np.asarray(policy(obs, mask))
        except Exception as e:
            raise OpponentError(f"{name} raised {type(e).__name__}: {e} (no game was "
                                "changed)") from e
        try:
            actions = action_array(out, games.size, f"{name}'s answer")
        except ValueError as e:
            raise OpponentError(f"{e} (asked for {games.size} decisions; no game was "
                                "changed)") from None
        bad = np.flatnonzero(~mask[np.arange(games.size), actions])
        if bad.size:
            shown = ", ".join(f"game {games[k]} seat {seats[k]}: {actions[k]}"
                              for k in bad[:10])
            raise OpponentError(f"{name} chose illegal actions in {bad.size} game(s): {shown} "
                                "(no game was changed)")
        return actions

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def _observe(self) -> np.ndarray:
        out = np.empty((self.num_envs, self.obs_size), dtype=np.float32)
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
            obs = np.empty((waiting.size, self.obs_size), dtype=np.float32)
            K.observe_deciders(self.states[waiting], obs)
            mask = np.zeros((waiting.size, NUM_ACTIONS), dtype=np.bool_)
            K.legal_mask(self._bufs[waiting], self._counts[waiting], mask)
            actions = self._policy_actions(self.opponent, "the opponent policy", waiting, obs,
                                           mask)
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
