"""The Gymnasium single-agent env ``MachuPicchu-v0`` (a thin adapter over ``Game``).

The learner holds one seat (fixed, or drawn each episode); the other seats are played by
opponents: named agents by weight (``opponents="gold:1"``, ``"random:0.2,gold:0.8"``: the one
vocabulary of every env, ``envs.named_opponents``; drawn per seat for each episode) or any
callable ``policy(game) -> action`` (an action id or notation string); by default uniformly
random legal actions. Observations are the engine's ``observation`` for the
learner; ``action_masks()`` returns the learner's legal-action mask (what sb3-contrib's
MaskablePPO asks for) and ``info["action_mask"]`` carries it too. Rewards are terminal only
(``machu_env.core.reward_modes``).

An illegal action (one that is not legal now, or not an action at all: ``0.7``, ``True``,
``None``, an array) either ends the episode with reward -1 (``illegal_action="terminate"``, the
default, as in PettingZoo's classic games) or raises ``IllegalActionError`` leaving the game
unchanged (``illegal_action="raise"``); an ended episode refuses ``step`` until ``reset()``. An
opponent policy that fails or answers an illegal action raises ``OpponentError`` naming its
seat, and the learner's action that led to it is undone. ``render()`` shows what the learner
may see (``render_player`` chooses another view).

Nothing in the rules forces anyone to stay and take a moon tile, so a game where nobody stays
never ends: after ``max_decisions`` decisions (all players') the episode is truncated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from machu_env.core.checks import check_decisions, check_game_options, check_int
from machu_env.core.errors import IllegalActionError, OpponentError, ResetNeeded
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.reward_modes import check_reward_mode, terminal_rewards
from machu_env.engine.observation import OBS_HIGH, OBS_SIZE
from machu_env.envs.named_opponents import (
    Policy,
    check_opponents,
    play_seats,
    random_policy,
    seat_policies,
)
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.views.render import check_render_player, render_rgb, render_text

__all__ = ["MachuPicchuGymEnv", "Policy", "random_policy"]


class MachuPicchuGymEnv(gym.Env):
    """Single-agent env: the learner against opponent policies.

    Args:
        num_players: 2 to 5.
        learner_seat: the learner's seat, or None to draw it each episode.
        opponents: a pool string of named agents (``"gold:1"``, ``"random:0.2,gold:0.8"``;
            members random, builder, gold, racer: one drawn per seat each episode), one policy
            for every other seat, or a list with one per opponent (in seat order, skipping the
            learner); default: random legal actions.
        reward: ``"win"``, ``"rank"`` or ``"score"`` (``machu_env.core.reward_modes``).
        illegal_action: ``"terminate"`` (reward -1, episode over) or ``"raise"``.
        render_mode: None, ``"ansi"``, ``"human"`` (text) or ``"rgb_array"`` (the SVG board).
        render_player: whose view ``render()`` shows: ``"learner"`` (default), a seat,
            ``"public"`` (no one's cards) or None (everything, cards included).
        max_decisions: truncate the episode after this many decisions of all players.
        game_options: passed to ``Game`` (``learning_game``, ``start_player``, ``hands``,
            ``deck``); the seed is ``reset(seed=...)``'s.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        learner_seat: int | None = None,
        opponents: str | Policy | Sequence[Policy] | None = None,
        reward: str = "win",
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        max_decisions: int = DEFAULT_MAX_DECISIONS,
        render_player: int | str | None = "learner",
        **game_options: Any,
    ) -> None:
        self.num_players = check_int("num_players", num_players, 2, 5)
        if learner_seat is not None:
            check_int("learner_seat", learner_seat, 0, num_players - 1)
        self.learner_seat = learner_seat
        self._opponents = check_opponents(opponents, self.num_players)
        check_reward_mode(reward)
        self.reward_mode = reward
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise'; "
                             f"got {illegal_action!r}")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array'; got "
                             f"{render_mode!r}")
        self.render_mode = render_mode
        self.render_player = check_render_player(render_player, self.num_players, "learner")
        self.max_decisions = check_decisions("max_decisions", max_decisions)
        check_game_options(game_options, "MachuPicchuGymEnv")
        Game(self.num_players, 0, **game_options)  # validate the options now
        self.game_options = game_options
        self.observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Game | None = None
        self.seat = 0
        self._policies: list[Policy | None] = []
        self._ended = True  # no episode yet: step() needs reset()

    # --- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        self._ended = True
        self.seat = (int(rng.integers(self.num_players)) if self.learner_seat is None
                     else self.learner_seat)
        self.game = Game(self.num_players, int(rng.integers(2**62)), **self.game_options)
        self._policies = self._seat_policies(int(rng.integers(2**62)))
        self._play_opponents()  # (an OpponentError here leaves no episode to step)
        self._ended = False
        return self._obs(), self._info()

    def step(self, action):
        game = self.game
        if game is None:
            raise ResetNeeded("step() before reset(): call reset() first")
        if self._ended:
            raise ResetNeeded("step() on an ended episode: call reset() first")
        saved = game._snapshot()
        try:
            game.play(action)  # IllegalActionError for a non-action too, before any change
        except IllegalActionError as e:
            return self._illegal(e)
        try:
            self._play_opponents()
        except OpponentError:
            game._restore(saved)  # the learner decides again, as before this step
            raise
        reward = 0.0
        if game.is_over:
            reward = terminal_rewards(game.scores(), self.reward_mode)[self.seat]
        truncated = self._truncated()
        self._ended = game.is_over or truncated
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, game.is_over, truncated, self._info()

    def _illegal(self, error: IllegalActionError):
        if self.illegal_action == "raise":
            raise error
        self._ended = True
        return self._obs(), -1.0, True, False, self._info(illegal=True)

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask (bool), for sb3-contrib's MaskablePPO."""
        if self.game is None:
            raise ResetNeeded("action_masks() before reset(): call reset() first")
        if self._ended or self.game.current_player != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.action_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the board as text; ``human``: printed; ``rgb_array``: the SVG board as an
        ``(H, W, 3)`` uint8 array (fixed shape per player count). Each shows what
        ``render_player`` may see."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode (use 'ansi', 'human' or "
                            "'rgb_array')")
            return None
        if self.game is None:
            raise ResetNeeded("render() before reset(): call reset() first")
        who = self.seat if self.render_player == "learner" else self.render_player
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, who)
        text = render_text(self.game, who)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # --- internals ----------------------------------------------------------------------------
    def _seat_policies(self, seed: int) -> list[Policy | None]:
        others = [p for p in range(self.num_players) if p != self.seat]
        if self._opponents is None:  # (as before: one random policy of this seed)
            chosen = dict.fromkeys(others, random_policy(seed))
        else:
            chosen = seat_policies(self._opponents, others, np.random.default_rng(seed))
        return [chosen.get(p) for p in range(self.num_players)]

    def _truncated(self) -> bool:
        return not self.game.is_over and len(self.game.history) >= self.max_decisions

    def _play_opponents(self) -> None:
        """Opponents decide until the learner does (or the game ends or is cut)."""
        play_seats(self.game, {p: f for p, f in enumerate(self._policies) if f is not None},
                   self.max_decisions)

    def _obs(self) -> np.ndarray:
        return self.game.observation(self.seat)

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        """The same keys at reset and at every step (Minari's DataCollector and other
        recorders need one structure): the mask, the seat, whether the action was illegal."""
        return {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat,
                "illegal_action": illegal}
