"""A Gymnasium ``VectorEnv`` on the batch engine: ``gym.make_vec("MachuPicchu-v0", num_envs=N)``.

    import gymnasium as gym
    import machu_env  # registers MachuPicchu-v0 (single env and vector entry point)

    envs = gym.make_vec("MachuPicchu-v0", num_envs=4096, num_players=3, opponents="gold:1")
    obs, infos = envs.reset(seed=0)
    while True:
        obs, rewards, terminated, truncated, infos = envs.step(envs.random_actions())
        masks = infos["action_mask"]  # (num_envs, 157) int8: the legal actions of the next step

All ``num_envs`` games live in one batch of flat int32 states and are stepped by the compiled
engine in parallel: no per-game Python objects (``gym.make_vec`` would otherwise wrap one single
env per game in a ``SyncVectorEnv``). The learner holds one seat per game (fixed with
``learner_seat``, or drawn for each new game); the other seats are played inside the batch by the
``opponents`` pool (the batch core ``machu_env/core/learner_batch.py``: ``random``,
``builder``, ``gold`` and ``racer`` in compiled code with weights, like ``"random:1"`` or
``"builder:1,gold:3"``;
``set_opponent_policies`` adds frozen policies, all asked in one batched call per opponent turn;
``opponents`` may also be such a batched policy ``(observations, masks) -> actions`` or a list of
them). The pool string is the one vocabulary of every env (``envs.named_opponents``).

Conventions (Gymnasium 1.x):

* ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP`` (Gymnasium's default): a game
  that ends returns its last observation (with ``infos["won"]``), and the next ``step`` ignores
  that slot's action and returns the new game's first observation (reward 0). With
  ``autoreset_mode="same_step"`` a game that ends is restarted in the same ``step``: the
  observation returned is the new game's first, the ended game's last is in
  ``infos["final_obs"]`` (an object array, ``None`` for the other games; ``infos["_final_obs"]``
  marks which), with ``infos["final_info"]["won"]``.
* ``infos["action_mask"]`` holds the legal actions of every game's next decision as int8 (the
  dtype of every env's mask, the one ``Discrete.sample(mask=)`` takes; as the masked policies of
  CleanRL, TorchRL and sb3-contrib need them); ``action_masks()`` gives them as bool.
* ``render_mode="rgb_array"``: ``render()`` returns one frame per game (the learner's view), a
  tuple as Gymnasium's ``SyncVectorEnv`` does.
* rewards are terminal (``reward="win"``, ``"rank"`` or ``"score"``:
  ``machu_env.core.reward_modes``); a game still running after ``max_decisions`` decisions
  (all players') or after ``max_learner_steps``
  of the learner's ends with ``truncated`` and reward 0.
* ``reset(seed=k)`` starts every game from its own stream of seed ``k``; ``reset()`` without a
  seed starts new games from the next streams.

When every opponent is compiled, a step is one fused compiled pass per game
(``LearnerBatch.advance_compiled``), equal to the general path; ``copy=False`` returns the env's
own buffers, as in Gymnasium's ``SyncVectorEnv``.

Bad input — an action that is not an id or not legal, a wrong shape, bad options — raises
``ValueError`` naming what was wrong and what is allowed, and changes no game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from machu_env.core.checks import MAX_ENVS, check_int, check_seed
from machu_env.core.errors import ResetNeeded
from machu_env.core.game import DEFAULT_MAX_DECISIONS
from machu_env.core.learner_batch import LearnerBatch
from machu_env.engine import batch as K
from machu_env.engine.observation import OBS_HIGH, OBS_SIZE
from machu_env.rules.actions import NUM_ACTIONS


class LegalActions(spaces.MultiDiscrete):
    """The batch's action space: ``MultiDiscrete([157] * num_envs)`` whose ``sample()``
    without a mask draws a *legal* action in every game (``random_actions``), as RLlib's
    runners do for random exploration. Pickles (and copies) as a plain ``MultiDiscrete``."""

    def __init__(self, env: MachuPicchuVectorEnv) -> None:
        super().__init__(np.full(env.num_envs, NUM_ACTIONS))
        self._env = env

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self._env.batch.started:
            return self._env.random_actions().astype(self.dtype)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return (spaces.MultiDiscrete, (self.nvec,))


class MachuPicchuVectorEnv(VectorEnv):
    """``num_envs`` games, one learner seat each, opponents played inside the batch.

    Args:
        num_envs: number of games (1 or more).
        num_players: 2 to 5.
        opponents: the opponent pool's weights (``"random:1"``, ``"gold:1"``,
            ``"random:0.2,gold:0.8"``; members ``random``, ``builder``, ``gold``, ``racer``),
            or a batched policy ``(observations, masks) -> actions`` (or a list of them, drawn
            equally) for every opponent seat.
        learner_seat: the learner's seat, or None to draw it for each new game.
        reward: ``"win"``, ``"rank"`` or ``"score"``.
        learning_game: the learning-game variant.
        max_decisions: a game still running after this many decisions ends truncated.
        max_learner_steps: so does a game in which the learner has decided this many times.
        seed: the seed of the first ``reset()`` without one.
        copy: as in Gymnasium's ``SyncVectorEnv``: True returns fresh observation and mask
            arrays; False returns the env's own buffers, overwritten by the next ``step`` or
            ``reset`` (faster: for loops that store them at once, such as a rollout buffer).
        autoreset_mode: ``"next_step"`` (default, Gymnasium's and RLlib's convention) or
            ``"same_step"`` (Gymnasium's ``AutoresetMode`` of either works too); see above.
        obs_format: ``"array"`` (default): observations ``(num_envs, OBS_SIZE)``;
            ``"dict"``: ``{"observations": ..., "action_mask": float32 (num_envs, 157)}``,
            RLlib's convention for masked actions (the masks stay in the infos too).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, num_envs: int = 64, num_players: int = 2, opponents: Any = "random:1",
                 learner_seat: int | None = None, reward: str = "win",
                 learning_game: bool = False, max_decisions: int = DEFAULT_MAX_DECISIONS,
                 max_learner_steps: int = DEFAULT_MAX_DECISIONS, seed: int = 0,
                 render_mode: str | None = None, copy: bool = True,
                 autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
                 obs_format: str = "array") -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array' (one frame per game), "
                             f"got {render_mode!r}")
        if not isinstance(copy, (bool, np.bool_)):
            raise ValueError(f"copy must be True or False, got {copy!r}")
        self.copy = bool(copy)
        modes = {"same_step": AutoresetMode.SAME_STEP, "next_step": AutoresetMode.NEXT_STEP}
        mode = next((m for m in modes.values() if autoreset_mode is m), None) \
            or modes.get(autoreset_mode if isinstance(autoreset_mode, str) else "")
        if mode is None:
            raise ValueError(f"autoreset_mode must be 'same_step' or 'next_step' (or "
                             f"gymnasium's AutoresetMode of either), got {autoreset_mode!r}")
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self._next_step = mode is AutoresetMode.NEXT_STEP
        if obs_format not in ("array", "dict"):
            raise ValueError(f"obs_format must be 'array' or 'dict', got {obs_format!r}")
        self.obs_format = obs_format
        policies = None
        if callable(opponents) or (isinstance(opponents, (list, tuple)) and opponents
                                   and all(map(callable, opponents))):
            policies = [opponents] if callable(opponents) else list(opponents)
            opponents = "self:1"
        elif not isinstance(opponents, str):
            raise ValueError(f"opponents is a pool string like 'random:1' or 'gold:1', a "
                             f"batched policy (observations, masks) -> actions or a list of "
                             f"them; got {opponents!r:.80}")
        self.batch = LearnerBatch(num_envs, num_players, seed=seed, pool=opponents,
                                  learner_seat=learner_seat, reward=reward,
                                  learning_game=learning_game,
                                  max_learner_steps=max_learner_steps,
                                  max_decisions=max_decisions)
        n = self.num_envs = self.batch.num_envs
        self.num_players = self.batch.num_players
        self.single_observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.observation_space = spaces.Box(0.0, OBS_HIGH, (n, OBS_SIZE), np.float32)
        if obs_format == "dict":
            self.single_observation_space = spaces.Dict({
                "observations": self.single_observation_space,
                "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)})
            self.observation_space = spaces.Dict({
                "observations": self.observation_space,
                "action_mask": spaces.Box(0.0, 1.0, (n, NUM_ACTIONS), np.float32)})
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.action_space = LegalActions(self)
        self.render_mode = render_mode
        if policies is not None:
            self.batch.set_snapshots(policies)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._mask_view: np.ndarray | None = None  # its int8 view, as the infos give it
        self._sample_rngs = K.seed_streams(check_seed("seed", seed), n, 2**20)
        self._sampled = np.zeros(n, dtype=np.int32)
        self._waiting = np.zeros(n, dtype=np.bool_)  # next_step: slots that ended last step

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
            self.batch.seed(int(seed))
            self._sample_rngs = K.seed_streams(int(seed), self.num_envs, 2**20)
        self.batch.reset()
        self._waiting[:] = False
        self.batch.observe(self._obs, self._mask)
        return self._outputs()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """One learner decision in every game (``actions``: legal ids, shape ``(num_envs,)``),
        the opponents' replies, and the restart of the games that ended."""
        if not self.batch.started:
            raise ResetNeeded("step() before reset(): call reset() first")
        waiting = self._waiting.copy()  # next_step: these slots start their new game now
        if waiting.any():  # their actions are ignored (any legal one stands in)
            actions = np.array(actions, copy=True) if hasattr(actions, "__len__") else actions
            if isinstance(actions, np.ndarray) and actions.shape == (self.num_envs,) \
                    and actions.dtype.kind in "iu":
                actions[waiting] = self.batch.first_legal(waiting)
        a = self.batch.checked_actions(actions)  # ValueError, nothing changed
        fused = self.batch.compiled_only
        if fused:  # every opponent compiled: one fused pass
            if self.copy:  # written by the pass itself: new arrays, no second pass to copy
                self._obs, self._mask = np.empty_like(self._obs), np.empty_like(self._mask)
            rewards, ended, cut, final_rows, won_rows = self.batch.advance_compiled_unchecked(
                a, self._obs, self._mask, ~waiting)  # (a: checked; the arrays: the env's)
            rewards, terminated, truncated = rewards.copy(), ended.copy(), cut.copy()
            done = np.flatnonzero(ended | cut)
            won_done = won_rows[done].astype(np.bool_)
        else:
            r = self.batch.advance_unchecked(a, np.flatnonzero(~waiting))  # (a: checked)
            self.batch.observe_unchecked(self._obs, self._mask)
            rewards = r.rewards
            terminated = np.zeros(self.num_envs, dtype=np.bool_)
            truncated = np.zeros(self.num_envs, dtype=np.bool_)
            terminated[r.ended] = True
            truncated[r.cut] = True
            done = np.concatenate([r.ended, r.cut])
            final_rows = np.zeros((self.num_envs, OBS_SIZE), dtype=np.float32)
            final_rows[r.ended] = self.batch.terminal(r.ended)
            final_rows[r.cut] = r.cut_obs
            won_done = np.concatenate([r.won, np.zeros(r.cut.size, dtype=np.bool_)])
        obs, infos = self._outputs(fresh=fused)
        marked = np.zeros(self.num_envs, dtype=np.bool_)
        marked[done] = True
        won = np.zeros(self.num_envs, dtype=np.bool_)
        won[done] = won_done
        if self._next_step:  # the ended games show their last observation this step
            self._waiting = marked
            if done.size:
                rows = obs["observations"] if self.obs_format == "dict" else obs
                if rows is self._obs:  # (copy=False: the buffer holds the new games)
                    rows = rows.copy()
                    obs = {**obs, "observations": rows} if self.obs_format == "dict" else rows
                rows[done] = final_rows[done]
                infos.update(won=won, _won=marked)
        elif done.size:
            final = np.full(self.num_envs, None, dtype=object)
            for i in done:
                final[i] = final_rows[i].copy()
            infos.update(final_obs=final, _final_obs=marked,
                         final_info={"won": won, "_won": marked},
                         _final_info=marked)
        return obs, rewards, terminated, truncated, infos

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (compiled; from the env's own
        sampling streams, seeded by ``reset(seed=...)``: no game changes)."""
        self.batch.random_legal(self._sample_rngs, self._sampled)
        return self._sampled.copy()

    def action_masks(self) -> np.ndarray:
        """(num_envs, 157) bool: the learner's legal actions in every game."""
        return self.batch.action_masks()

    def set_opponent_policies(self, policies: Any, weights: Any = None) -> None:
        """Frozen policies for the pool's ``self`` member (give the pool a ``self`` weight):
        batched callables ``(observations, masks) -> actions``, or a ``PolicyBank``."""
        self.batch.set_snapshots(policies, weights)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """``rgb_array``: one ``(H, W, 3)`` frame per game, what its learner may see."""
        if self.render_mode is None:
            return None
        if not self.batch.started:
            raise ResetNeeded("render() before reset(): call reset() first")
        from machu_env.views.render import render_rgb

        return tuple(render_rgb(self.batch.game(i), int(self.batch.seats[i]))
                     for i in range(self.num_envs))

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (no processes, no files)."""

    # --- internals ------------------------------------------------------------------------------
    def _outputs(self, fresh: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
        """The observations and the infos with the masks (copies unless ``copy=False`` or
        ``fresh``: the buffers were new this step)."""
        obs, mask = ((self._obs.copy(), self._mask.copy()) if self.copy and not fresh
                     else (self._obs, self._mask))
        if self._mask_view is None or self._mask_view.base is not mask:
            self._mask_view = mask.view(np.int8)  # (the same bytes as the bool buffer)
        infos = {"action_mask": self._mask_view,
                 "_action_mask": np.ones(self.num_envs, np.bool_)}
        if self.obs_format == "dict":
            return {"observations": obs, "action_mask": mask.astype(np.float32)}, infos
        return obs, infos


def make_vector_env(num_envs: int = 64, **kwargs: Any) -> MachuPicchuVectorEnv:
    """``gym.make_vec``'s vector entry point for ``MachuPicchu-v0``."""
    check_int("num_envs", num_envs, 1, MAX_ENVS)
    return MachuPicchuVectorEnv(num_envs=num_envs, **kwargs)
