"""The PettingZoo AEC environment ``machu_picchu_v0`` (a thin adapter over ``Game``).

Follows the PettingZoo classic-environment conventions: ``env()`` returns the env wrapped in
``TerminateIllegalWrapper`` (an illegal action ends the game with -1 for the offender and 0 for
the others), an action check and ``OrderEnforcingWrapper``; ``raw_env()`` is the unwrapped env.
Actions are ids (ints, numpy integers) or notation strings; anything else (``0.9``, ``True``,
``"0"``) raises ``IllegalActionError`` naming what is allowed, in both. ``render()`` shows the
public information (``render_player`` chooses a seat's view, ``"current"`` the deciding
agent's, or None everything).

``opponents`` (the pool string every env takes: ``"gold:1"``, ``"random:0.2,gold:0.8"``, or
policies ``game -> action``) makes it a game against built-in agents: only ``learner_seat``'s
agent (drawn each game when None) is in ``agents``; the other seats are played inside ``step``.

``agent_selection`` is whoever must decide now (production, sacrifices, summit returns and
night choices belong to their owners, not only to the player whose turn it is).

Nothing in the rules forces a player to stay and take a moon tile, so a game in which nobody
ever stays never ends; after ``max_decisions`` decisions the game is truncated (all agents
``truncated``, reward 0), as PettingZoo's ``max_cycles`` does elsewhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from machu_env.core.checks import check_decisions, check_game_options, check_int, check_seed_or_none
from machu_env.core.errors import IllegalActionError, OpponentError, ResetNeeded
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.reward_modes import check_reward_mode, terminal_rewards
from machu_env.engine.observation import OBS_HIGH, OBS_SIZE
from machu_env.envs.named_opponents import check_opponents, play_seats, seat_policies
from machu_env.rules.actions import NUM_ACTIONS, parse_action
from machu_env.views.render import check_render_player, render_rgb, render_text


def env(num_players: int = 3, render_mode: str | None = None, reward: str = "win",
        max_decisions: int = DEFAULT_MAX_DECISIONS, render_player: int | str | None = "public",
        observation_key: str = "observation", opponents: Any = None,
        learner_seat: int | None = None, **game_options: Any) -> AECEnv:
    """The wrapped AEC env (see module docstring). ``game_options`` go to ``Game``
    (``start_player``, ``hands``, ``deck``, ``learning_game``); the seed is ``reset``'s.
    ``observation_key``: the observation's key beside ``action_mask`` (PettingZoo's
    ``observation``; ``"observations"`` for RLlib's stock ``ActionMaskingTorchRLModule``).
    ``opponents``/``learner_seat``: see the module docstring."""
    e = raw_env(num_players, render_mode, reward, max_decisions, render_player,
                observation_key=observation_key, opponents=opponents,
                learner_seat=learner_seat, **game_options)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = ActionCheckWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class ActionCheckWrapper(wrappers.BaseWrapper):
    """In place of PettingZoo's ``AssertOutOfBoundsWrapper``: a live agent's action must be an
    action id or a notation string (converted to its id), else ``IllegalActionError`` naming
    what is allowed and nothing changes; an id that is not legal now goes on to
    ``TerminateIllegalWrapper``."""

    def step(self, action) -> None:
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            try:
                action = parse_action(action)
            except ValueError as e:
                legal = self.unwrapped.game.legal_actions()
                raise IllegalActionError(action, legal, str(e)) from None
        super().step(action)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming convention)
    """The unwrapped AEC env."""

    metadata = {"name": "machu_picchu_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int = 3, render_mode: str | None = None,
                 reward: str = "win", max_decisions: int = DEFAULT_MAX_DECISIONS,
                 render_player: int | str | None = "public",
                 observation_key: str = "observation", opponents: Any = None,
                 learner_seat: int | None = None, **game_options: Any) -> None:
        super().__init__()
        if observation_key not in ("observation", "observations"):
            raise ValueError(f"observation_key must be 'observation' (PettingZoo's) or "
                             f"'observations' (RLlib's masking modules), got "
                             f"{observation_key!r}")
        self.observation_key = observation_key
        self.num_players = check_int("num_players", num_players, 2, 5)
        self._opponents = check_opponents(opponents, self.num_players)
        if learner_seat is not None:
            if opponents is None:
                raise ValueError("learner_seat needs opponents (a pool string like 'gold:1'): "
                                 "without them every seat is an agent")
            check_int("learner_seat", learner_seat, 0, self.num_players - 1)
        self.learner_seat = learner_seat
        self._policies: dict[int, Any] = {}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array'; got "
                             f"{render_mode!r}")
        self.render_mode = render_mode
        check_reward_mode(reward)
        self.reward_mode = reward
        self.max_decisions = check_decisions("max_decisions", max_decisions)
        self.render_player = check_render_player(render_player, self.num_players, "current")
        check_game_options(game_options, "the machu_picchu_v0 env")
        Game(self.num_players, 0, **game_options)  # validate the options now
        self.game_options = game_options
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            observation_key: spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.game: Game | None = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        check_seed_or_none("seed", seed)  # as every other env: an int in 0..2**64-1, or None
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(2**62))
        self.game = Game(self.num_players, game_seed, **self.game_options)
        self.agents = list(self.possible_agents)
        if self._opponents is not None:  # one learner seat; the others are played here
            seat = (int(self._rng.integers(self.num_players)) if self.learner_seat is None
                    else self.learner_seat)
            self.agents = [self.possible_agents[seat]]
            others = [p for p in range(self.num_players) if p != seat]
            self._policies = seat_policies(self._opponents, others, self._rng)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._play_opponents()
        self._after_move()

    def _require_game(self, what: str) -> Game:
        if self.game is None:
            raise ResetNeeded(f"{what} before reset(): call reset() first")
        return self.game

    def last(self, observe: bool = True):
        self._require_game("last()")
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_game("observe()")
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        p = self.agent_name_mapping[agent]
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.game.current_player == p:
            mask = self.game.action_mask()
        return {self.observation_key: self.game.observation(p), "action_mask": mask}

    def step(self, action: int | str | None) -> None:
        """Play the selected agent's action: an id or notation string (None once it is done);
        ``IllegalActionError`` for anything else or an illegal move, and nothing changes."""
        self._require_game("step()")
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        agent = self.agent_selection
        saved = self.game._snapshot()
        self.game.play(action)  # checks the action; raises before any change
        try:
            self._play_opponents()
        except OpponentError:
            self.game._restore(saved)  # the agent decides again, as before this step
            raise
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _after_move(self) -> None:
        """Rewards and flags once the game is over or cut; else the next agent to decide."""
        game = self.game
        if game.is_over:
            rewards = terminal_rewards(game.scores(), self.reward_mode)
            for a in self.agents:
                self.rewards[a] = rewards[self.agent_name_mapping[a]]
            self.terminations = dict.fromkeys(self.agents, True)
        elif len(game.history) >= self.max_decisions:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.current_player]

    def _play_opponents(self) -> None:
        """The built-in opponents decide until an agent does (or the game ends or is cut)."""
        play_seats(self.game, self._policies, self.max_decisions)

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the board as text; ``human``: printed; ``rgb_array``: the SVG board
        (``machu_env.views.svg``) as an ``(H, W, 3)`` uint8 array of a fixed shape per player count.
        Each shows what ``render_player`` may see."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode (use 'ansi', 'human' "
                                  "or 'rgb_array')")
            return None
        game = self._require_game("render()")
        who = self.render_player
        if who == "current":  # the deciding agent's view; the public one once the game is over
            who = "public" if game.is_over else game.current_player
        if self.render_mode == "rgb_array":
            return render_rgb(game, who)
        text = render_text(game, who)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
