"""RLlib adapter (the ``rllib`` extra): the game as an RLlib ``MultiAgentEnv`` and an
action-masking ``RLModule`` for PPO with one policy shared by every seat.

    from ray.rllib.algorithms.ppo import PPOConfig
    from machu_env.envs.rllib import MachuPicchuMultiAgentEnv, ppo_config

    algo = ppo_config(num_players=2, num_env_runners=2).build_algo()
    algo.train()

``MachuPicchuMultiAgentEnv`` is turn-based: each ``reset``/``step`` returns an observation for
the one agent that decides next (``player_<i>``), a dict ``{"observations": float32[OBS_SIZE],
"action_mask": float32[NUM_ACTIONS]}`` (RLlib's convention for masked actions); at the end every
agent gets its terminal reward (``reward``: ``win``, ``rank`` or ``score``, as in the other envs)
and ``terminateds["__all__"]``. A game still running after ``max_decisions`` decisions is
truncated. An illegal or malformed action raises ``IllegalActionError`` naming the legal ones and
changes nothing.

The action spaces are ``Discrete(NUM_ACTIONS)`` whose ``sample()`` without a mask draws a *legal*
action of the current position (the env passes its mask): RLlib's env checker samples actions
that way, and so it runs on this env as it is, without being switched off.

The RLModule is ``machu_env.agents.rllib_policy.MaskedActorCritic`` (an agent's network, so it
lives with the agents; re-exported here): its weights export to a data-only agent file
(``export_policy``) that ``make_agent`` plays as ``rllib:<checkpoint folder>``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from machu_env._extras import install_hint

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError:  # pragma: no cover - exercised where the extra is missing
    raise ImportError("machu_env.envs.rllib needs the rllib extra: "
                      + install_hint("rllib")) from None

from machu_env.agents.rllib_policy import (  # noqa: F401  (the module and its files)
    MODULE_ID,
    POLICY_FILE,
    MaskedActorCritic,
    export_policy,
    policy_path,
)
from machu_env.core.checks import check_bool, check_decisions, check_int, check_seed
from machu_env.core.errors import IllegalActionError, ResetNeeded
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.reward_modes import check_reward_mode, terminal_rewards
from machu_env.engine.observation import OBS_HIGH, OBS_SIZE
from machu_env.rules.actions import NUM_ACTIONS, parse_action


class LegalActions(spaces.Discrete):
    """``Discrete(NUM_ACTIONS)`` whose ``sample()`` without a mask samples a legal action of
    the env's current position when this seat decides. Pickles (and copies) as a plain
    ``Discrete``: the env reference stays in the env's own process."""

    def __init__(self, env: MachuPicchuMultiAgentEnv, seat: int) -> None:
        super().__init__(NUM_ACTIONS)
        self._env, self._seat = env, seat

    def sample(self, mask=None, probability=None):
        game = self._env.game
        if mask is None and probability is None and game is not None and not game.is_over \
                and game.current_player == self._seat:
            mask = game.action_mask().astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return spaces.Discrete, (self.n,)


class MachuPicchuMultiAgentEnv(MultiAgentEnv):
    """The game for RLlib (see the module docstring). ``config``: ``num_players`` (2-5, default
    2), ``reward`` (``win``), ``max_decisions`` (5000), ``learning_game`` (False), ``seed``
    (the first reset's, if ``reset`` gets none)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        known = {"num_players", "reward", "max_decisions", "learning_game", "seed"}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(f"unknown MachuPicchuMultiAgentEnv option(s) {unknown}; known: "
                             f"{', '.join(sorted(known))}")
        self.num_players = check_int("num_players", config.get("num_players", 2), 2, 5)
        self.reward_mode = config.get("reward", "win")
        check_reward_mode(self.reward_mode)
        self.max_decisions = check_decisions("max_decisions",
                                             config.get("max_decisions", DEFAULT_MAX_DECISIONS))
        self.learning_game = check_bool("learning_game", config.get("learning_game", False))
        seed = config.get("seed")
        self._rng = np.random.default_rng(None if seed is None else check_seed("seed", seed))
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = list(self.possible_agents)
        obs_space = spaces.Dict({
            "observations": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: LegalActions(self, i) for i, a in enumerate(self.possible_agents)}
        self.game: Game | None = None

    def _observe(self) -> dict[str, dict[str, np.ndarray]]:
        p = self.game.current_player
        return {self.possible_agents[p]: {
            "observations": self.game.observation(p).astype(np.float32, copy=False),
            "action_mask": self.game.action_mask().astype(np.float32)}}

    def _final_observations(self) -> dict[str, dict[str, np.ndarray]]:
        no_action = np.zeros(NUM_ACTIONS, dtype=np.float32)
        return {a: {"observations": self.game.observation(p).astype(np.float32, copy=False),
                    "action_mask": no_action.copy()}
                for p, a in enumerate(self.possible_agents)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(check_seed("seed", seed))
        self.game = Game(self.num_players, int(self._rng.integers(2**62)),
                         learning_game=self.learning_game)
        self.agents = list(self.possible_agents)
        obs = self._observe()
        return obs, {a: {} for a in obs}

    def step(self, action_dict: dict[str, Any]):
        if self.game is None or self.game.is_over or \
                len(self.game.history) >= self.max_decisions:
            raise ResetNeeded("step() needs a running game (this one is over or was truncated "
                              f"at {self.max_decisions} decisions): call reset() first")
        agent = self.possible_agents[self.game.current_player]
        if set(action_dict) != {agent}:
            raise IllegalActionError(action_dict, self.game.legal_actions(),
                                     f"only {agent} decides now; got actions for "
                                     f"{sorted(action_dict)}")
        action = action_dict[agent]
        try:
            action = parse_action(action.item() if isinstance(action, np.ndarray) else action)
        except ValueError as e:
            raise IllegalActionError(action, self.game.legal_actions(), str(e)) from None
        self.game.play(action)  # raises IllegalActionError before any change
        over = self.game.is_over
        if over or len(self.game.history) >= self.max_decisions:  # every agent's last step
            rewards = (terminal_rewards(self.game.scores(), self.reward_mode) if over
                       else [0.0] * self.num_players)
            results = dict(zip(self.possible_agents, rewards, strict=True))
            return (self._final_observations(), results,
                    {"__all__": over}, {"__all__": not over}, {})
        obs = self._observe()
        return (obs, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {})


def ppo_config(num_players: int = 2, num_env_runners: int = 1, envs_per_runner: int = 1,
               layers: tuple[int, ...] = (256, 256), reward: str = "win", seed: int = 0,
               train_batch_size: int = 4000, minibatch_size: int = 500, num_epochs: int = 4,
               lr: float = 3e-4):
    """RLlib's ``PPOConfig`` for the game: one ``MaskedActorCritic`` shared by every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    check_int("num_env_runners", num_env_runners, 0, None)
    check_int("envs_per_runner", envs_per_runner, 1, None)
    module = RLModuleSpec(module_class=MaskedActorCritic,
                          model_config={"layers": list(layers), "seed": seed})
    return (PPOConfig()
            .environment(MachuPicchuMultiAgentEnv,
                         env_config={"num_players": num_players, "reward": reward})
            .multi_agent(policies={MODULE_ID},
                         policy_mapping_fn=lambda agent_id, episode, **kw: MODULE_ID)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
            .env_runners(num_env_runners=num_env_runners,
                         num_envs_per_env_runner=envs_per_runner)
            .training(train_batch_size_per_learner=train_batch_size,
                      minibatch_size=minibatch_size, num_epochs=num_epochs, lr=lr,
                      gamma=0.995, lambda_=0.95, entropy_coeff=0.01, vf_loss_coeff=0.5)
            .debugging(seed=seed))


try:
    from ray.rllib.callbacks.callbacks import RLlibCallback
except ImportError:  # pragma: no cover - older Ray
    from ray.rllib.algorithms.callbacks import DefaultCallbacks as RLlibCallback


class WinShare(RLlibCallback):
    """Logs every finished game's result as ``win_share`` (mean over RLlib's window) in the
    results and TensorBoard: the learner's win share against its opponents (the batch env's
    ``infos["won"]``); a game cut at ``max_learner_steps`` counts as not won."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        infos = episode.get_infos(-1) if hasattr(episode, "get_infos") else {}
        won = float(bool(infos.get("won", False))) if isinstance(infos, dict) else 0.0
        if metrics_logger is not None:
            metrics_logger.log_value("win_share", won, reduce="mean", window=1000)


VECTOR_ENV = "machu_env:MachuPicchu-v0"  # importing machu_env registers it (in every worker)


def vector_env_config(num_players: int = 2, opponents: str = "random:0.1,builder:0.3,gold:0.6",
                      reward: str = "win", max_learner_steps: int = 1000) -> dict[str, Any]:
    """The ``env_config`` of the batch-engine env for RLlib: the Gymnasium VectorEnv with dict
    observations and next-step autoreset (what RLlib's ``SingleAgentEnvRunner`` expects)."""
    return {"num_players": num_players, "opponents": opponents, "reward": reward,
            "max_learner_steps": max_learner_steps, "obs_format": "dict",
            "autoreset_mode": "next_step"}


def vector_ppo_config(num_players: int = 2, opponents: str = "random:0.1,builder:0.3,gold:0.6",
                      num_env_runners: int = 0, envs_per_runner: int = 128,
                      layers: tuple[int, ...] = (256, 256), reward: str = "win", seed: int = 0,
                      train_batch_size: int = 16384, minibatch_size: int = 4096,
                      num_epochs: int = 4, lr: float = 3e-4, eval_opponents: str = "gold:1",
                      eval_interval: int = 0, eval_games: int = 200):
    """RLlib's ``PPOConfig`` on the batch engine: each env runner steps ``envs_per_runner``
    games per call (``gym.make_vec`` of ``MachuPicchu-v0`` through its vector entry point),
    the opponents played inside the batch (``opponents``, a pool string as in ``machu
    train``); one ``MaskedActorCritic`` learns the learner seat. ``win_share`` (the
    ``WinShare`` callback) is in the results and TensorBoard; with ``eval_interval`` > 0,
    every that many iterations ``eval_games`` games are played against ``eval_opponents``
    (``results["evaluation"]["env_runners"]["win_share"]``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    check_int("num_env_runners", num_env_runners, 0, None)
    check_int("envs_per_runner", envs_per_runner, 1, None)
    module = RLModuleSpec(module_class=MaskedActorCritic,
                          model_config={"layers": list(layers), "seed": seed})
    config = (PPOConfig()
              .environment(VECTOR_ENV, env_config=vector_env_config(num_players, opponents,
                                                                    reward))
              .rl_module(rl_module_spec=module)
              .env_runners(num_env_runners=num_env_runners,
                           num_envs_per_env_runner=envs_per_runner,
                           gym_env_vectorize_mode="vector_entry_point",
                           rollout_fragment_length="auto")
              .callbacks(WinShare)
              .training(train_batch_size_per_learner=train_batch_size,
                        minibatch_size=minibatch_size, num_epochs=num_epochs, lr=lr,
                        gamma=0.995, lambda_=0.95, entropy_coeff=0.01, vf_loss_coeff=0.5)
              .debugging(seed=seed))
    if eval_interval:
        config = config.evaluation(
            evaluation_interval=eval_interval, evaluation_duration=eval_games,
            evaluation_duration_unit="episodes", evaluation_num_env_runners=0,
            evaluation_config={"env_config": vector_env_config(num_players, eval_opponents,
                                                               reward),
                               "explore": False})
    return config


