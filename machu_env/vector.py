"""A Gymnasium ``VectorEnv`` on the batch engine: ``gym.make_vec("MachuPicchu-v0", num_envs=N)``.

    import gymnasium as gym
    import machu_env  # registers MachuPicchu-v0 (single env and vector entry point)

    envs = gym.make_vec("MachuPicchu-v0", num_envs=4096, num_players=3, opponents="gold:1")
    obs, infos = envs.reset(seed=0)
    while True:
        obs, rewards, terminated, truncated, infos = envs.step(envs.random_actions())
        masks = infos["action_mask"]  # (num_envs, 157) bool: the legal actions of the next step

All ``num_envs`` games live in one batch of flat int32 states and are stepped by the compiled
engine in parallel: no per-game Python objects (``gym.make_vec`` would otherwise wrap one
single env per game in a ``SyncVectorEnv``). The learner holds one seat per game (fixed with
``learner_seat``, or drawn for each new game); the other seats are played inside the batch by
the ``opponents`` pool (``train/pool_env.py``: ``random``, ``builder`` and ``gold`` in compiled
code with weights, like ``"random:1"`` or ``"builder:1,gold:3"``; ``set_opponent_policies``
adds frozen policies, all asked in one batched call per opponent turn).

Conventions (Gymnasium 1.x):

* ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``: a game that ends is restarted
  in the same ``step``; the observation returned is the new game's first, and the ended game's
  last observation is in ``infos["final_obs"]`` (an object array, ``None`` for the other games;
  ``infos["_final_obs"]`` marks which), with ``infos["final_info"]["won"]``.
* ``infos["action_mask"]`` holds the legal actions of every game's next decision (as the masked
  policies of CleanRL, TorchRL and sb3-contrib need them).
* rewards are terminal (``reward="win"``, ``"rank"`` or ``"score"``: ``machu_env.rewards``); a game
  still running after ``max_decisions`` decisions (all players') or after ``max_learner_steps``
  of the learner's ends with ``truncated`` and reward 0.
* ``reset(seed=k)`` starts every game from its own stream of seed ``k``; ``reset()`` without a
  seed starts new games from the next streams.

Bad input — an action that is not an id or not legal, a wrong shape, bad options — raises
``ValueError`` naming what was wrong and what is allowed, and changes no game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .actions import NUM_ACTIONS
from .checks import MAX_ENVS, check_int, check_seed
from .engine import batch as K
from .engine.observation import OBS_HIGH, OBS_SIZE
from .errors import ResetNeeded
from .game import DEFAULT_MAX_DECISIONS


class MachuPicchuVectorEnv(VectorEnv):
    """``num_envs`` games, one learner seat each, opponents played inside the batch.

    Args:
        num_envs: number of games (1 or more).
        num_players: 2 to 5.
        opponents: the opponent pool's weights (``"random:1"``, ``"gold:1"``,
            ``"random:0.2,gold:0.8"``; members ``random``, ``builder``, ``gold``).
        learner_seat: the learner's seat, or None to draw it for each new game.
        reward: ``"win"``, ``"rank"`` or ``"score"``.
        learning_game: the learning-game variant.
        max_decisions: a game still running after this many decisions ends truncated.
        max_learner_steps: so does a game in which the learner has decided this many times.
        seed: the seed of the first ``reset()`` without one.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 64, num_players: int = 2, opponents: str = "random:1",
                 learner_seat: int | None = None, reward: str = "win",
                 learning_game: bool = False, max_decisions: int = DEFAULT_MAX_DECISIONS,
                 max_learner_steps: int = DEFAULT_MAX_DECISIONS, seed: int = 0,
                 render_mode: str | None = None) -> None:
        from .train.pool_env import PoolVecEnv

        if render_mode is not None:
            raise ValueError(f"the vector env renders nothing (render_mode None), got "
                             f"{render_mode!r}; render a game with MachuPicchu-v0 or the SVG "
                             "board")
        if not isinstance(opponents, str):
            raise ValueError(f"opponents is a pool string like 'random:1' or 'gold:1', got "
                             f"{opponents!r}")
        self._core = PoolVecEnv(num_envs, num_players, seed=seed, pool=opponents,
                                learner_seat=learner_seat, reward=reward,
                                learning_game=learning_game,
                                max_learner_steps=max_learner_steps, max_decisions=max_decisions)
        n = self.num_envs = self._core.num_envs
        self.num_players = self._core.num_players
        self.single_observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = spaces.Box(0.0, OBS_HIGH, (n, OBS_SIZE), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(n, NUM_ACTIONS))
        self.render_mode = None
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._sample_rngs = K.seed_streams(check_seed("seed", seed), n, 2**20)
        self._sampled = np.zeros(n, dtype=np.int32)
        self._started = False

    # --- Gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New games in every slot (from seed ``seed``'s streams when given)."""
        if options:
            raise ValueError(f"reset() takes no options, got {options!r}")
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
                raise ValueError(f"seed must be one int (every game draws its own stream from "
                                 f"it) or None, got {seed!r}")
            self._core.seed(int(seed))
            self._sample_rngs = K.seed_streams(int(seed), self.num_envs, 2**20)
        self._core.reset()
        self._started = True
        return self._observe(), self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """One learner decision in every game (``actions``: legal ids, shape ``(num_envs,)``),
        the opponents' replies, and the restart of the games that ended."""
        if not self._started:
            raise ResetNeeded("step() before reset(): call reset() first")
        a = self._core._checked_actions(actions)  # ValueError, nothing changed
        r = self._core.advance(a)
        terminated = np.zeros(self.num_envs, dtype=np.bool_)
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        terminated[r.ended] = True
        truncated[r.cut] = True
        obs = self._observe()
        infos = self._infos()
        done = np.concatenate([r.ended, r.cut])
        if done.size:
            final = np.full(self.num_envs, None, dtype=object)
            for i in r.ended:
                final[i] = self._core._terminal[i].copy()
            for k, i in enumerate(r.cut):
                final[i] = r.cut_obs[k]
            marked = np.zeros(self.num_envs, dtype=np.bool_)
            marked[done] = True
            won = np.zeros(self.num_envs, dtype=np.bool_)
            won[r.ended] = r.won
            infos.update(final_obs=final, _final_obs=marked,
                         final_info={"won": won, "_won": marked},
                         _final_info=marked)
        return obs, r.rewards, terminated, truncated, infos

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (compiled; from the env's own
        sampling streams, seeded by ``reset(seed=...)``: no game changes)."""
        K.random_legal(self._core._bufs, self._core._counts, self._sample_rngs, self._sampled)
        return self._sampled.copy()

    def action_masks(self) -> np.ndarray:
        """(num_envs, 157) bool: the learner's legal actions in every game."""
        return self._core.action_masks()

    def set_opponent_policies(self, policies: Any, weights: Any = None) -> None:
        """Frozen policies for the pool's ``self`` member (give the pool a ``self`` weight):
        batched callables ``(observations, masks) -> actions``, or a ``PolicyBank``."""
        self._core.set_snapshots(policies, weights)

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (no processes, no files)."""

    # --- internals ------------------------------------------------------------------------------
    def _observe(self) -> np.ndarray:
        self._core.observe(self._obs, self._mask)
        return self._obs.copy()

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(),
                "_action_mask": np.ones(self.num_envs, dtype=np.bool_)}


def make_vector_env(num_envs: int = 64, **kwargs: Any) -> MachuPicchuVectorEnv:
    """``gym.make_vec``'s vector entry point for ``MachuPicchu-v0``."""
    check_int("num_envs", num_envs, 1, MAX_ENVS)
    return MachuPicchuVectorEnv(num_envs=num_envs, **kwargs)
