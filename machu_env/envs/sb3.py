"""A Stable-Baselines3 ``VecEnv`` over the batch core (``core.learner_batch.LearnerBatch``).

The learner holds one seat per game (fixed, or drawn for each new game); the other seats are
played inside the batch by an opponent pool: compiled ``random`` (default), ``builder``,
``gold`` and ``racer``, and frozen batched policies ``policy(observations, action_masks) ->
actions`` (for instance a frozen SB3 model's ``predict``). ``action_masks()`` serves
sb3-contrib's MaskablePPO. Rewards are terminal (``machu_env.core.reward_modes``); a finished
game's last observation is in ``infos[i]["terminal_observation"]`` with ``"won"`` and
``"opponent"`` (whom the learner met), and the game restarts at once, as SB3 expects. A game
still running after ``max_decisions`` decisions (all players') or ``max_learner_steps`` of the
learner's ends truncated: ``dones[i]`` with ``infos[i]["TimeLimit.truncated"]`` True and
reward 0. Needs the ``train`` extra (SB3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from machu_env._extras import install_hint

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError:
    raise ImportError("MachuPicchuVecEnv is Stable-Baselines3's VecEnv and needs SB3: "
                      f"{install_hint('train')}") from None

from machu_env.core.errors import ResetNeeded
from machu_env.core.game import DEFAULT_MAX_DECISIONS
from machu_env.core.learner_batch import LearnerBatch
from machu_env.core.opponent_pool import BatchPolicy
from machu_env.engine.observation import OBS_HIGH
from machu_env.rules.actions import NUM_ACTIONS


class MachuPicchuVecEnv(VecEnv):
    """``num_envs`` games, one learner seat each.

    Args:
        num_envs: number of games.
        num_players: 2 to 5.
        seed: seeds every game's own stream.
        learner_seat: the learner's seat, or None to draw it for each new game.
        opponent: a batched policy for every opponent seat (the pool's ``self`` member), or
            None.
        reward: ``"win"``, ``"rank"`` or ``"score"``.
        learning_game: the learning-game variant.
        max_decisions: a game still running after this many decisions ends truncated.
        observation: the observation version, 1 (``OBS_SIZE``), 2 (``OBS_V2_SIZE``: with
            the race for the gold majority, ``engine.observation.RACE_FIELDS``) or 3
            (``OBS_V3_SIZE``: with the history summary, ``HISTORY_FIELDS``).
        pool: the opponent pool's weights (``"random:1"``, ``"gold:1,self:1"``...; members
            ``random``, ``builder``, ``gold``, ``racer``, ``self``). Default: ``"self:1"``
            with an ``opponent``, ``"random:1"`` without.
        max_learner_steps: a game in which the learner has decided this many times ends
            truncated (default: no limit but ``max_decisions``).
        head_start: the share of new games in which the learner starts with a free priest
            card (a training curriculum; 0: the rules).
    """

    def __init__(self, num_envs: int, num_players: int = 2, seed: int = 0,
                 learner_seat: int | None = None, opponent: BatchPolicy | None = None,
                 reward: str = "win", learning_game: bool = False,
                 max_decisions: int = DEFAULT_MAX_DECISIONS, observation: int = 1,
                 pool: Mapping[str, float] | str | None = None,
                 max_learner_steps: int | None = None, head_start: float = 0.0) -> None:
        if opponent is not None and not callable(opponent):
            raise ValueError("opponent must be None or a callable "
                             "(observations, action_masks) -> actions")
        if pool is None:
            pool = "random:1" if opponent is None else "self:1"
        self.batch = LearnerBatch(num_envs, num_players, seed, pool, learner_seat, reward,
                                  learning_game,
                                  max_decisions if max_learner_steps is None else max_learner_steps,
                                  max_decisions, observation, head_start)
        if opponent is not None:
            self.batch.set_snapshots([opponent], labels=["the opponent policy"])
        self.num_players = self.batch.num_players
        self.render_mode = None
        space = spaces.Box(0.0, OBS_HIGH, (self.batch.obs_size,), np.float32)
        super().__init__(self.batch.num_envs, space, spaces.Discrete(NUM_ACTIONS))
        self._actions: np.ndarray | None = None

    @property
    def states(self) -> np.ndarray:
        """(N, STATE_SIZE) int32: every game's state (the batch core's array)."""
        return self.batch.states

    @property
    def seats(self) -> np.ndarray:
        """(N,) int32: the learner's seat in every game."""
        return self.batch.seats

    def set_snapshots(self, snapshots: Sequence[BatchPolicy] | Any,
                      weights: Sequence[float] | None = None) -> None:
        """The frozen policies of the pool's ``self`` member (``LearnerBatch.set_snapshots``)."""
        self.batch.set_snapshots(snapshots, weights)

    # --- VecEnv API -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        self._actions = None
        self.batch.reset()
        return self.batch.observations()

    def step_async(self, actions: np.ndarray) -> None:
        """Check the learner's actions (an integer array of shape (num_envs,), each legal);
        a refusal raises ValueError and changes nothing."""
        if not self.batch.started:
            raise ResetNeeded("step() before reset(): call reset() first")
        self._actions = self.batch.checked_actions(actions)

    def step_wait(self):
        if self._actions is None:
            raise ResetNeeded("step_wait() without pending actions: call step_async(actions) "
                              "first (or step(actions))")
        a, self._actions = self._actions, None
        r = self.batch.advance_unchecked(a)  # (checked in step_async)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended_obs = self.batch.terminal(r.ended)
        for k, i in enumerate(r.ended):
            infos[i] = {"terminal_observation": ended_obs[k], "TimeLimit.truncated": False,
                        "opponent": r.labels[r.opponents[k]], "won": bool(r.won[k])}
        for k, i in enumerate(r.cut):
            infos[i] = {"terminal_observation": r.cut_obs[k], "TimeLimit.truncated": True,
                        "opponent": r.labels[r.opponents[r.ended.size + k]], "won": False}
        return self.batch.observations(), r.rewards, r.dones, infos

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: the learner's legal actions in every game."""
        return self.batch.action_masks()

    def close(self) -> None:
        """Nothing to release (no processes, no files)."""

    def seed(self, seed: int | None = None) -> Sequence[None]:
        """The seed of the next ``reset()`` (and of the resets after it)."""
        if seed is not None:
            self.batch.seed(seed)
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

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)
