"""Self-play training: masked PPO (``ppo.py``) on the batched ``LearnerBatch`` against a pool.

    machu train --players 2 --timesteps 20000000 --seed 0 --out runs/selfplay_2p
    machu train --league --players 2 --timesteps 20000000 --out runs/league_2p

A run folder holds ``config.json``, ``history.csv`` (a row per evaluation), ``curve.png``,
``tb/`` (TensorBoard), ``checkpoints/`` (``step_<N>.safetensors`` at every evaluation),
``latest.safetensors``, ``best.safetensors`` (best win share against ``gold``), ``snapshots/``
and ``summary.json`` (timings, throughput, the simulator's share). Every policy is an agent file
(``machu_env.agents.policy_file``: data only, ``policy:<path>``). ``--resume`` continues a run
from its last whole checkpoint (``checkpoints.py``) up to ``--timesteps``: it runs no code.

The opponent pool: each game draws, for every other seat, ``random``, ``builder``, ``gold`` or
one of the frozen snapshots of the learner (``self``, shared equally among them), with the
``--pool`` weights. A snapshot of the learner joins the pool every ``--snapshot-every`` steps
(the oldest leaves beyond ``--max-snapshots``); the initial policy is the first snapshot. All
snapshots are played in one batched forward pass (``bank.PolicyBank``).

League training (``--league``, after AlphaStar's leagues, scaled down): every ``--exploiter-every``
steps the main agent's training pauses while an *exploiter* (warm-started from the main agent, or
with ``--exploiter-init last`` from the newest exploiter: one line of exploiters that keeps
adapting, as AlphaStar's main exploiters between resets) trains ``--exploiter-steps`` steps against
the frozen current main agent only; it then joins the pool, where the exploiters share
``--exploiter-share`` of the ``self`` weight (the snapshots the rest), the oldest leaving beyond
``--max-exploiters``. So the main agent keeps meeting the strategies that beat it. An exploiter
faces the main agent's sampled play, or with ``--exploit-greedy`` its deterministic play (as
tournaments and ``machu exploit`` do; exploiters sample in the pool). Each evaluation also plays
the main agent against every pool member and writes ``league.json``: win shares and ratings.
``--frozen A,B`` keeps policies in the pool for the whole run beside the exploiters (sharing
``--exploiter-share`` with them; with or without ``--league``): the frozen exploiters of earlier
probes, so the main agent never forgets the races it once lost. Version-1 files join
a version-2 run with their input widened (they play as before).

``--init AGENT`` starts from a trained policy of the same shape (``ppo-2p-v1``, ``policy:<file>``)
instead of fresh weights. ``--head-start S``, a curriculum: in a share S of the training games
the learner starts holding a free priest card (``LearnerBatch``); evaluations play the rules.

Speed: the games in flight, the threads and the device are sized to the machine (``sizing``;
the first line says what it picked; sized threads make room for other work: ``threads``),
``--precision bf16`` (autocast), ``--threads``, ``--overlap`` (rollout beside update).
"""

from __future__ import annotations

import copy
import csv
import io
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from machu_env.agents import policy_file
from machu_env.core import files
from machu_env.core.heartbeat import beating
from machu_env.core.learner_batch import LearnerBatch
from machu_env.train.ppo import sizing
from machu_env.train.ppo.evaluate import win_share_and_habits
from machu_env.train.ppo.games import games_of
from machu_env.train.ppo.overlap import stepper
from machu_env.train.ppo.ppo import (
    PPO,
    check_precision,
    net_config,  # noqa: F401  (re-exported)
    new_net,
    set_threads,
    torch_device,
)
from machu_env.train.ppo.threads import ThreadGovernor
from machu_env.train.ppo.workers import EpisodeCounts, Spread
from machu_env.train.probe import ladder
from machu_env.train.probe.league import evaluate_members, install_pool, train_exploiter
from machu_env.train.run import checkpoints, run_folder
from machu_env.train.run.config import TrainConfig
from machu_env.train.run.history import (  # noqa: F401  (re-exported: the trainer's API)
    EVAL_OPPONENTS,
    plot_curve,
    read_history,
)
from machu_env.train.run.init_files import arch_of, init_path, observation_of
from machu_env.train.run.progress import Progress, busy_warning, run_summary, say_evaluation
from machu_env.train.run.settings import resumable

CHECKPOINT_SECONDS = 60.0  # a checkpoint at least this often, between evaluations too
EVAL_HEARTBEAT = 20.0  # seconds between the "still evaluating" lines


class Trainer:
    """One run: builds (or resumes) the learner and the pool, trains, evaluates, saves."""

    def __init__(self, config: TrainConfig, resume: bool = False, verbose: bool = True,
                 elapsed: float = 0.0, minutes: float | None = None) -> None:
        self.started = time.perf_counter()  # the history's wall_seconds count from here
        self.elapsed = elapsed  # seconds spent before this session (earlier sessions, phases)
        if resume:  # the run's own settings, but where and how long it runs (``resumable``)
            if not (saved_path := Path(config.out) / "config.json").exists():
                raise ValueError(f"nothing to resume: {saved_path} does not exist")
            saved = TrainConfig.load(saved_path)
            budget = saved.minutes
            for name in resumable(TrainConfig):
                setattr(saved, name, getattr(config, name))
            # (``minutes``: the budget given on resume, 0 removing it; else config's, if set)
            saved.minutes = minutes if minutes is not None else config.minutes or budget
            config = saved
        config.check()
        threads_given = config.threads  # (0: sized, then yielding to other work: threads.py)
        self.sizing_line = self._size(config, verbose)
        check_precision(config.precision)
        self.config = c = config
        self.out = Path(c.out)
        if self.out.exists() and not self.out.is_dir():
            raise ValueError(f"--out {self.out} is a file: give a folder for the run")

        self.device = torch_device(c.device)
        set_threads(c.threads, c.overlap)  # before any torch op (an OpenMP team spins)
        self.governor = ThreadGovernor(c.threads, set_threads) if not threads_given \
            and not c.overlap and not c.ray and c.rollout_workers <= 1 else None  # (sized)
        if not c.net_arch and not resume:  # --init's own shape, or the default one
            c.net_arch = arch_of(init_path(c.init)) if c.init else c.arch()
        if not c.observation:  # --init's own observation, or version 1
            c.observation = observation_of(init_path(c.init)) if c.init else 1
        self.config_net = c.network()
        # the starting policy is read (and its shape checked) before anything is written
        self._init_net = init_net = (self._load_net(init_path(c.init)) if c.init and not resume
                                     else None)
        self.frozen = [self._load_net(path).cpu().eval() for path in c.frozen_paths()]
        self.ladder_banks = ladder.opponents(ladder.eval_agents(c.eval_agents, c.players),
                                             c.players) if c.eval_agents else {}
        self.member_wins: dict[str, float] = {}  # the learner's win share per pool member
        self.rungs_before: frozenset[str] = frozenset()  # reached by earlier recipe phases
        if not resume and init_net is None and c.imitate:
            from machu_env.train.data.imitate import check_memory

            check_memory(c.imitate_games, self.config_net["obs_size"])
        run_folder.refuse_inputs_inside(self.out, c, resume)
        if resume:
            self._check_resumable()
        else:
            run_folder.check_new(self.out)  # a user's files are never removed or written over
        self.folder = run_folder.claim(self.out)
        if resume:  # (--resume: the run files there, as they are, are the run's: a copied
            self.folder.adopt(run_folder.is_run_file)  # folder, an earlier version's)
        try:
            self._build(resume, verbose)
        except BaseException:  # a failed or stopped start leaves nothing it wrote
            if not resume:
                self.folder.remove_written()
            raise

    def _build(self, resume: bool, verbose: bool) -> None:
        c = self.config
        init_net = self._init_net
        self.verbose = verbose
        self.progress = Progress(c.timesteps, enabled=False)  # (run() starts the real one)
        self.imitation: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []
        self.snapshots: list[tuple[int, Any]] = []  # (step, frozen net)
        self.exploiters: list[tuple[int, Any]] = []
        self.league_table: list[dict[str, Any]] = []
        self.env = games_of(c, self.config_net, say=lambda t: self.progress.say(t))
        if resume:
            self._resume()
        else:
            run_folder.clear_unfinished(self.folder)  # an earlier start that never checkpointed
            net = init_net if init_net is not None else \
                new_net(self.config_net, c.seed).to(self.device)
            if init_net is None and c.imitate:  # fresh weights: the heuristic's moves first
                from machu_env.train.data.imitate import head_start

                self.imitation = head_start(net, c, self.device, verbose)
            self.model = PPO(net, c.ppo_settings(), seed=c.seed)
            self.add_snapshot()
        files.write_json(self.out / "config.json", asdict(c))
        self.train_seconds = 0.0  # this session's training time (evaluations excluded)
        self.exploiter_seconds = 0.0
        self._steps_this_session = 0
        self._writer = None

    # --- building -------------------------------------------------------------------------------
    @staticmethod
    def _size(c: TrainConfig, verbose: bool) -> str:
        """The settings left at 0 / ``auto`` sized to this machine (``sizing``) and, with
        ``--ray``, to the cluster (``train()`` has joined it); the line that says so, printed
        first."""
        cores, gpu = sizing.usable_cores(), sizing.gpu_name()
        ray_cpus = None
        if c.ray:
            from machu_env.ray_backend import cluster_cpus, require_ray

            if not require_ray().is_initialized():
                raise ValueError("--ray: join the cluster first (machu_env.train.run.selfplay."
                                 "train does)")
            ray_cpus = cluster_cpus()
        line = c.size_to(cores, gpu, ray_cpus).words(cores, gpu)
        if verbose:
            print(line, flush=True)
        return line

    def _check_resumable(self) -> None:
        """Before any work: the checkpoint is whole and its network is this run's."""
        checkpoints.read_state(self.out)  # (whole, or a ValueError in words)
        self._load_net(self.out / checkpoints.LATEST, widen=False)
        if (self.out / "history.csv").exists():
            read_history(self.out / "history.csv")

    def _resume(self) -> None:
        """Rebuild the learner from the run's data-only files (no unpickling)."""
        c = self.config
        run_folder.clear_partial(self.out)
        steps, updates, self.elapsed = checkpoints.read_state(self.out)
        if self.verbose:
            print(f"resuming {self.out} from its last checkpoint: step {steps:,}, "
                  f"{self.elapsed / 60:.1f} min into the run", flush=True)
        # new games and new draws, not a replay of the run's first ones (still a function of
        # the seed and the step)
        self.model = PPO(self._load_net(self.out / checkpoints.LATEST, widen=False),
                         c.ppo_settings(), seed=c.seed + steps)
        checkpoints.load_optimizer(self.model.optimizer, self.out / checkpoints.OPTIMIZER,
                                   self.device)
        self.model.num_timesteps, self.model.n_updates = steps, updates
        self.env.seed(c.seed + steps)
        for folder, target in (("snapshots", self.snapshots), ("exploiters", self.exploiters)):
            for path in sorted((self.out / folder).glob(f"step_*{policy_file.SUFFIX}"),
                               key=lambda p: int(p.stem.split("_")[1])):
                target.append((int(path.stem.split("_")[1]), self._load_net(path, False)))
        self._install_pool()
        history = self.out / "history.csv"
        if history.exists():  # (an evaluation after the checkpoint is played again)
            self.history = [r for r in read_history(history) if r["timesteps"] <= steps]

    def _load_net(self, path: Path, widen: bool = True):
        """An agent file of this run's network shape, as a trainable ``PolicyNet``; with
        ``widen``, one reading a shorter observation too (its input widened: ``--init`` and
        ``--frozen``), never for the run's own files."""
        tensors, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
        narrow = {**config, "obs_size": self.config_net["obs_size"]}
        if narrow != self.config_net or config["obs_size"] > self.config_net["obs_size"] \
                or (not widen and config != self.config_net):
            raise ValueError(f"{path}: its network ({config}) is not this run's network "
                             f"(net_arch {self.config.arch()}, observation "
                             f"{self.config.observation})")
        net = new_net(config, 0)
        net.load_state_dict(tensors)
        if config["obs_size"] < self.config_net["obs_size"]:  # --init a v1 policy, train v2
            net = policy_file.widen_input(net, self.config.observation)
        return net.to(self.device)

    def _info(self) -> dict[str, Any]:
        c = self.config
        info = {"players": c.players, "num_timesteps": int(self.model.num_timesteps),
                "algorithm": "masked PPO (machu_env.train.ppo.ppo)", "reward": c.reward,
                "league": c.league, "run": str(self.out)}
        if c.recipe:  # (what rebuilds it: machu agents shows the command)
            info.update(recipe=Path(c.recipe).stem, seed=c.seed,
                        command=f"machu train --recipe {c.recipe} --seed {c.seed}")
        return info

    def _frozen(self):
        return copy.deepcopy(self.model.net).cpu().eval()

    def add_snapshot(self) -> None:
        """Freeze the learner's current policy into the pool (and save it)."""
        step, frozen = int(self.model.num_timesteps), self._frozen()
        self.snapshots.append((step, frozen))
        folder = self.out / "snapshots"
        policy_file.save(folder / f"step_{step}{policy_file.SUFFIX}", frozen.state_dict(),
                         self.config_net, self._info())
        while len(self.snapshots) > self.config.max_snapshots:
            old, _ = self.snapshots.pop(0)
            files.remove(folder / f"step_{old}{policy_file.SUFFIX}")
        self._install_pool()

    def add_exploiter(self) -> None:
        """League: train an exploiter against the frozen main agent; it joins the pool."""
        train_exploiter(self)

    def _install_pool(self) -> None:
        """The snapshots, exploiters and ``frozen`` policies as one bank (``league``)."""
        install_pool(self)

    # --- evaluating and saving ------------------------------------------------------------------
    def evaluate(self) -> dict[str, Any]:
        """Win share against each heuristic (and, in a league, each pool member); appended to
        the history, the CSV and the curve."""
        c = self.config
        t0 = time.perf_counter()
        with beating(EVAL_HEARTBEAT, lambda: self.progress.say(
                f"  still evaluating at step {int(self.model.num_timesteps):,} "
                f"({time.perf_counter() - t0:.0f} s)")):
            row = self._play_evaluation()
        row["eval_seconds"] = round(time.perf_counter() - t0, 2)
        row["wall_seconds"] = round(time.perf_counter() - self.started, 2)  # since the start
        row["elapsed_seconds"] = round(self.elapsed_now(), 2)  # since the run's first start
        self.history.append(row)
        self._write_history()
        self.plot()
        if self.verbose:
            say_evaluation(self.progress, self.history, [*c.eval_names(), *self.ladder_banks],
                           c.players, self.rungs_before)
        return row

    def _play_evaluation(self) -> dict[str, Any]:
        """The games of one evaluation: ``win_vs_<opponent>`` and the habits against gold."""
        c = self.config
        row: dict[str, Any] = {"timesteps": int(self.model.num_timesteps)}
        predict = self.model.predict
        for k, name in enumerate(EVAL_OPPONENTS):
            if name not in c.eval_names():
                continue
            if c.ray:  # chunks of games as Ray tasks (float32 copies of the learner)
                from machu_env.train.probe.exploit_eval import evaluate_exploiter

                row[f"win_vs_{name}"] = float(evaluate_exploiter(
                    self.model.net, name, c.players, c.eval_games, seed=1_000_003 * (k + 1),
                    ray=c.ray, workers=4).mean())
                continue
            row[f"win_vs_{name}"], habits = win_share_and_habits(
                predict, name, c.eval_games, c.players, seed=1_000_003 * (k + 1))
            row.update({f"{h}_vs_gold": v for h, v in habits.items() if name == "gold"})
        row.update(ladder.evaluate(predict, self.ladder_banks, c.players, c.eval_games,
                                   in_order=c.eval_agents == "ladder"))
        row["train_seconds"] = round(self.train_seconds, 2)
        if c.league:
            evaluate_members(self, row)
            self._install_pool()  # (the draws follow the new win shares)
        return row

    def _write_history(self) -> None:
        fields_ = list(dict.fromkeys(k for r in self.history for k in r))
        text = io.StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=fields_)
        writer.writeheader()
        writer.writerows(self.history)
        files.write_text(self.out / "history.csv", text.getvalue())

    def plot(self) -> Path:
        """The learning curve (``curve.png``): win share against each heuristic."""
        return plot_curve(self.history, self.out / "curve.png", self.config)

    def save(self, best: bool) -> None:
        """Checkpoint: agent files (step, latest, best) and what resuming needs besides, as a
        whole (``checkpoints.write``)."""
        checkpoints.write(self.out, int(self.model.num_timesteps), int(self.model.n_updates),
                          self.model.net.state_dict(), self.config_net, self._info(),
                          self.model.optimizer.state_dict(), best, self.elapsed_now())

    def elapsed_now(self) -> float:
        """Seconds since the run first started (earlier sessions and phases included)."""
        return self.elapsed + time.perf_counter() - self.started

    # --- the run --------------------------------------------------------------------------------
    def _log(self, values: dict[str, float]) -> None:
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(self.folder.library_folder(self.out / "tb")))
        for k, v in values.items():
            self._writer.add_scalar(k, v, int(self.model.num_timesteps))

    def run(self) -> dict[str, Any]:
        """Train up to ``timesteps`` steps in total; returns the summary (also saved)."""
        c, m = self.config, self.model
        self.progress = Progress(c.timesteps, int(m.num_timesteps), enabled=self.verbose,
                                 goal=c.goal_words(), seconds=c.minutes * 60,
                                 spent=self.elapsed_now())
        if warning := (busy_warning(c.threads) if self.verbose and not self.governor else None):
            self.progress.say(warning)
        if not self.history and c.eval_start:  # the starting policy is a checkpoint too
            self.progress.say(f"evaluating the starting policy ({c.eval_games:,} games against "
                              f"each of {', '.join([*c.eval_names(), *self.ladder_banks])}"
                              f"{', up the ladder' if c.eval_agents == 'ladder' else ''})")
            self._checkpoint()  # exists even when training never beats it (an --init run)
        last_save = time.perf_counter()
        every = c.eval_interval()
        next_eval = (m.num_timesteps // every + 1) * every
        next_snapshot = (m.num_timesteps // c.snapshot_every + 1) * c.snapshot_every
        next_exploiter = (m.num_timesteps // c.exploiter_every + 1) * c.exploiter_every
        start_steps = m.num_timesteps
        results = EpisodeCounts()  # games and wins per opponent (no loop over games)
        steps = (stepper(m, c.seed, c.threads, c.overlap) if isinstance(self.env, LearnerBatch)
                 else Spread(m, self.env))
        if m.num_timesteps < c.timesteps:
            steps.begin(self.env)
        while m.num_timesteps < c.timesteps:
            t0 = time.perf_counter()
            losses = steps.step(self.env, results, c.timesteps)
            self.train_seconds += time.perf_counter() - t0
            self._steps_this_session = m.num_timesteps - start_steps
            self.progress.update(int(m.num_timesteps))
            if self.governor is not None and (line := self.governor.check()):
                self.progress.say(line)
            self._log({**{f"rollout/win_vs_{k}": v for k, v in results.shares().items()},
                       **{f"train/{k}": v for k, v in losses.items()},
                       "time/env_steps_per_second": self._steps_this_session
                       / self.train_seconds,
                       "time/simulator_share": m.seconds["simulator"] / self.train_seconds})
            results.clear()
            if m.num_timesteps >= next_snapshot:
                self.add_snapshot()
                next_snapshot += c.snapshot_every
            if c.league and m.num_timesteps >= next_exploiter and m.num_timesteps < c.timesteps:
                self.add_exploiter()
                next_exploiter += c.exploiter_every
            if m.num_timesteps >= next_eval:
                self._checkpoint()
                last_save = time.perf_counter()
                next_eval += every
                if c.goal_reached(self.history[-1]):
                    break  # --stop-at(-sacrifices): strong enough
            elif time.perf_counter() - last_save >= CHECKPOINT_SECONDS:
                self.save(best=False)  # (by time too: a stopped run loses minutes, not hours)
                last_save = time.perf_counter()
            if 0 < c.minutes * 60 <= self.elapsed_now():
                break  # --minutes: the time budget is spent (a last checkpoint below)
        steps.close()
        if not self.history or self.history[-1]["timesteps"] != m.num_timesteps:
            self._checkpoint()
        self.progress.close()
        if self._writer is not None:
            self._writer.close()
        summary = self.summary()
        files.write_json(self.out / "summary.json", summary)
        return summary

    def _checkpoint(self) -> None:
        row = self.evaluate()
        best = max(r["win_vs_gold"] for r in self.history) == row["win_vs_gold"]
        self.save(best)
        self._log({f"eval/{k}": v for k, v in row.items() if k.startswith("win_vs")})

    def summary(self) -> dict[str, Any]:
        return run_summary(self)


def train(config: TrainConfig, resume: bool = False, verbose: bool = True,
          minutes: float | None = None) -> dict[str, Any]:
    """Run (or resume) a training run; returns its summary. With ``config.ray``, Ray is joined
    (or started) first, so that a missing extra or an unreachable cluster fails at once."""
    from machu_env.ray_backend import joined

    with joined(config.ray):
        return Trainer(config, resume=resume, verbose=verbose, minutes=minutes).run()
