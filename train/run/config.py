"""A training run's settings: ``TrainConfig``, every ``machu train`` option, checked as a whole
(its history file: ``train.history``; the agent files it names: ``train.init_files``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from machu_env.agents import policy_file
from machu_env.core import files
from machu_env.core.opponent_pool import parse_pool
from machu_env.core.reward_modes import check_reward_mode
from machu_env.engine.pool import COMPILED_NAMES
from machu_env.train.ppo import sizing
from machu_env.train.ppo.ppo import (
    PPOSettings,
)
from machu_env.train.run.args import (  # noqa: F401  (re-exported)
    MAX_EVAL_GAMES,
    MAX_POOL,
    MAX_SACRIFICES,
    TrainArgs,
)
from machu_env.train.run.history import EVAL_OPPONENTS  # noqa: F401  (re-exported)
from machu_env.train.run.init_files import init_path
from machu_env.train.run.settings import from_mapping

DEFAULT_NET_ARCH = "shared:256,256"  # a new network's shape when ``net_arch`` is left empty
EVAL_EVERY, STOP_EVAL_EVERY = 500_000, 65_536  # (eval_every 0: see TrainConfig.eval_interval)
# a network's shape as written: ASCII digits, no signs, spaces or leading zeros
NET_ARCH = re.compile(r"(shared:)?[1-9][0-9]{0,5}(,[1-9][0-9]{0,5}){0,15}", re.ASCII)


@dataclass
class TrainConfig(TrainArgs, PPOSettings):
    """Everything a run depends on (saved as ``config.json``): the algorithm's ``PPOSettings``
    and the run's own, declared in ``args.TrainArgs``."""

    def check(self) -> None:
        """Clear errors for impossible settings (before anything is built): each its declared
        type and range (``PPOSettings.check``), then what the names must name."""
        super().check()
        if self.recipe and not (re.fullmatch(r"[a-z0-9][a-z0-9-]{0,40}", self.recipe) or (
                self.recipe.endswith(".json") and len(self.recipe) <= 300
                and self.recipe.isprintable())):
            raise ValueError(f"recipe must be a recipe's name or a .json recipe file, got "
                             f"{self.recipe!r:.100}")
        if self.machine_class and not (self.recipe and re.fullmatch(
                r"[a-z0-9][a-z0-9-]{0,39}", self.machine_class)):
            raise ValueError(f"machine_class must name one of a recipe's machine classes (with "
                             f"--recipe), got {self.machine_class!r:.60}")
        if self.eval_agents:
            from machu_env.train.probe.ladder import eval_agents

            eval_agents(self.eval_agents, self.players)
        if self.imitate and self.imitate not in COMPILED_NAMES:
            raise ValueError(f"imitate must be empty or a compiled heuristic "
                             f"({', '.join(COMPILED_NAMES)}), got {self.imitate!r}")
        self.layers()
        policy_file.check_size(self.network(), f"net_arch {self.arch()!r}")
        self.eval_names()
        self.frozen_paths()
        parse_pool(self.pool)
        check_reward_mode(self.reward)
        if self.n_envs and self.rollout_workers > self.n_envs:  # (0: sized, then checked)
            raise ValueError(f"rollout_workers ({self.rollout_workers}) must not exceed "
                             f"n_envs ({self.n_envs}): each worker steps some of the games")
        if self.rollout_workers > 1 and self.overlap:
            raise ValueError("--overlap and --rollout-workers above 1 do not combine: the "
                             "workers already step the games beside each other; choose one")
        if not re.fullmatch(r"auto|cpu|mps|cuda(:\d{1,3})?", self.device):
            raise ValueError(f"device must be auto, cpu, cuda, cuda:<n> or mps, "
                             f"got {self.device!r}")

    def goal_reached(self, row: dict[str, Any]) -> bool:
        """An evaluation ``row`` reaches a goal that ends the run: ``stop_at`` (the win share
        against gold) or ``stop_at_sacrifices`` (the learner's sacrifices a game against gold:
        a recipe's phase that ends once the temples are found)."""
        return (0 < self.stop_at <= row["win_vs_gold"]
                or 0 < self.stop_at_sacrifices <= row.get("sacrifices_per_game_vs_gold", 0.0))

    def size_to(self, cores: int, gpu: str | None,
                ray_cpus: int | None = None) -> sizing.Sizing:
        """Size the settings left at 0 / ``auto`` to a machine of ``cores`` cores and ``gpu``
        (and a Ray cluster of ``ray_cpus`` CPUs: ``train.sizing``), in place, and check the
        result (the rollout's rows against the minibatch, the workers against the games); what
        was picked."""
        fit = sizing.size(self.n_envs, self.n_steps, self.threads, self.device, cores, gpu,
                          self.rollout_workers, ray_cpus)
        self.n_envs, self.n_steps, self.threads, self.device = (fit.n_envs, fit.n_steps,
                                                                fit.threads, fit.device)
        self.rollout_workers = fit.rollout_workers
        self.check()
        return fit

    def goal_words(self) -> str:
        """The goal that ends the run, in words for the progress line ("" when none)."""
        return (f"{self.stop_at:.0%} against gold" if self.stop_at > 0 else
                f"{self.stop_at_sacrifices:g} sacrifices a game against gold"
                if self.stop_at_sacrifices > 0 else "")

    def exploiter_settings(self) -> PPOSettings:
        """A league exploiter's PPO settings: the learner's (``exploiter_ppo`` "learner"), or
        those of ``machu exploit``'s probe ("probe": clip 0.2, 4 epochs, a constant entropy bonus
        of 0.01 — a regularised learner's exploiters otherwise learn as slowly as it does) with
        the learner's rollout size and precision."""
        mine = self.ppo_settings()
        if self.exploiter_ppo == "learner":
            return mine
        return PPOSettings(n_envs=mine.n_envs, n_steps=mine.n_steps, batch_size=mine.batch_size,
                           precision=mine.precision, cut_as_loss=mine.cut_as_loss)

    def eval_interval(self) -> int:
        """Steps between evaluations: ``eval_every``, or when it is 0 ``STOP_EVAL_EVERY`` for a
        run that stops at a goal (``stop_at``: evaluated often enough to stop near it, as the
        time-to-strength figures were measured) and ``EVAL_EVERY`` otherwise."""
        goal = self.stop_at > 0 or self.stop_at_sacrifices > 0
        return self.eval_every or (STOP_EVAL_EVERY if goal else EVAL_EVERY)

    def arch(self) -> str:
        """``net_arch``, or when it is empty the default shape (``DEFAULT_NET_ARCH``; a run
        with ``--init`` resolves it to the init file's shape first: ``arch_of``)."""
        return self.net_arch or DEFAULT_NET_ARCH

    def layers(self) -> list[int]:
        """The hidden layer sizes of ``net_arch`` (``256,256``, or ``shared:256,256``)."""
        sizes = ([int(x) for x in self.arch().removeprefix("shared:").split(",")]
                 if NET_ARCH.fullmatch(self.arch()) else [])
        if (not sizes or min(sizes) < 1 or max(sizes) > policy_file.MAX_WIDTH
                or len(sizes) > policy_file.MAX_LAYERS):
            raise ValueError(f"net_arch must be 1..{policy_file.MAX_LAYERS} comma-separated "
                             f"layer sizes in 1..{policy_file.MAX_WIDTH}, like 256,256 (two "
                             "networks, policy and value) or shared:256,256 (one trunk both "
                             f"heads read); got {self.net_arch!r}")
        return sizes

    def network(self) -> dict:
        """The agent-file config of the run's network (``net_arch``, ``observation``)."""
        return policy_file.net_config(self.layers(), observation=self.observation or 1,
                                      shared=self.arch().startswith("shared:"))

    def eval_names(self) -> list[str]:
        """The heuristics evaluated at every checkpoint (``gold`` among them: the best
        checkpoint is the best against it), in ``EVAL_OPPONENTS`` order."""
        names = {x.strip() for x in self.eval_opponents.split(",") if x.strip()}
        if not names <= set(EVAL_OPPONENTS) or "gold" not in names:
            raise ValueError(f"eval_opponents must name gold and any of "
                             f"{', '.join(EVAL_OPPONENTS)} (comma-separated), got "
                             f"{self.eval_opponents!r}")
        return [n for n in EVAL_OPPONENTS if n in names]

    def frozen_paths(self) -> list[Path]:
        """The agent files ``frozen`` names (each checked to exist, at most 16)."""
        names = [x.strip() for x in self.frozen.split(",")] if self.frozen.strip() else []
        if len(names) > 16:
            raise ValueError(f"frozen names {len(names)} policies; at most 16")
        return [init_path(x, "frozen") for x in names]

    @classmethod
    def load(cls, path: Path) -> TrainConfig:
        """A run's saved settings, each checked for its type (a ``"2"`` where a number belongs
        is refused, naming the setting and the file)."""
        data = files.read_json(path, limit=1_000_000, links=False)
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a run config is a JSON object")
        values = from_mapping(cls, data, str(path))
        config = cls(**values)
        try:
            config.check()
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        return config
