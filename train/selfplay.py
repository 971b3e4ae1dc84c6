"""Self-play training: MaskablePPO on the batched ``PoolVecEnv`` against an opponent pool.

    machu train --players 2 --timesteps 20000000 --seed 0 --out runs/selfplay_2p

A run folder holds ``config.json``, ``history.csv`` (one row per evaluation), ``curve.png``
(the learning curve), ``tb/`` (TensorBoard: ``tensorboard --logdir OUT/tb``), ``checkpoints/``
(``step_<N>.safetensors`` at every evaluation), ``latest.safetensors``, ``best.safetensors``
(best win share against the strongest heuristic, ``gold``), ``snapshots/`` (the frozen
opponents) and ``summary.json`` (timings, throughput, the simulator's share of the training
time). Every policy is an agent file (``machu_env.agents.policy_file``: data only, usable as
``policy:<path>``). ``--resume`` continues a run from ``latest.safetensors``, the optimizer's
state ``latest_optimizer.pt`` (tensors, read with ``torch.load(weights_only=True)``),
``latest.json`` and the snapshots, up to ``--timesteps`` in total: nothing it reads can run
code.

The opponent pool: each game draws, for every other seat, ``random``, ``builder``, ``gold`` or
one of the frozen snapshots of the learner (``self``, shared equally among them), with the
``--pool`` weights. A snapshot of the learner joins the pool every ``--snapshot-every`` steps
(the oldest leaves beyond ``--max-snapshots``); the initial policy is the first snapshot.
"""

from __future__ import annotations

import copy
import csv
import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from machu_env.agents import policy_file
from machu_env.checks import check_int
from machu_env.rewards import check_reward_mode

from .evaluate import model_predict, win_share
from .pool_env import PoolVecEnv, parse_pool

EVAL_OPPONENTS = ("random", "builder", "gold")


@dataclass
class TrainConfig:
    """Everything a run depends on (saved as ``config.json``). The defaults are the settings of
    the shipped 2-player run (which set ``timesteps`` to 10M; the 3-player run used
    ``reward="score"``)."""

    players: int = 2
    timesteps: int = 20_000_000
    seed: int = 0
    out: str = "runs/selfplay"
    n_envs: int = 128
    n_steps: int = 128
    batch_size: int = 4096
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    net_arch: str = "256,256"
    pool: str = "random:0.05,builder:0.25,gold:0.45,self:0.25"
    reward: str = "win"
    snapshot_every: int = 1_000_000
    max_snapshots: int = 8
    eval_every: int = 500_000
    eval_games: int = 400
    device: str = "auto"

    def check(self) -> None:
        """Clear errors for impossible settings (before anything is built)."""
        check_int("players", self.players, 2, 5)
        check_int("seed", self.seed, 0, 2**32 - 1)
        positive = ("timesteps", "n_envs", "n_steps", "batch_size", "n_epochs",
                    "snapshot_every", "max_snapshots", "eval_every", "eval_games")
        for name in positive:
            check_int(name, getattr(self, name), 1, None)
        for name in ("learning_rate", "gamma", "gae_lambda", "clip_range", "ent_coef",
                     "vf_coef"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not np.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        for name in ("net_arch", "pool", "reward", "device", "out"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a string, got {getattr(self, name)!r}")
        if self.n_envs * self.n_steps % self.batch_size:
            raise ValueError(f"batch_size ({self.batch_size}) must divide n_envs * n_steps "
                             f"({self.n_envs * self.n_steps})")
        for name in ("learning_rate", "clip_range"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("gamma", "gae_lambda"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in (0, 1], got {getattr(self, name)}")
        self.layers()
        parse_pool(self.pool)
        check_reward_mode(self.reward)
        if self.device not in ("auto", "cpu", "mps") and not self.device.startswith("cuda"):
            raise ValueError(f"device must be auto, cpu, cuda, cuda:<n> or mps, "
                             f"got {self.device!r}")

    def layers(self) -> list[int]:
        try:
            sizes = [int(x) for x in self.net_arch.split(",")]
        except ValueError:
            sizes = []
        if not sizes or min(sizes) < 1:
            raise ValueError(f"net_arch must be comma-separated layer sizes like 256,256, "
                             f"got {self.net_arch!r}")
        return sizes

    @classmethod
    def load(cls, path: Path) -> TrainConfig:
        """A run's saved settings, each checked for its type (a ``"2"`` where a number belongs
        is refused, naming the setting and the file)."""
        try:
            data = json.loads(path.read_text()[:1_000_000])
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise ValueError(f"{path}: not a readable run config ({e})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a run config is a JSON object")
        values = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            v, kind = data[f.name], type(f.default)
            ok = (isinstance(v, kind) and not isinstance(v, bool) if kind is not float
                  else isinstance(v, (int, float)) and not isinstance(v, bool))
            if not ok:
                raise ValueError(f"{path}: setting {f.name!r} must be a {kind.__name__}, got "
                                 f"{v!r}")
            values[f.name] = kind(v)
        config = cls(**values)
        try:
            config.check()
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        return config


class FrozenPolicy:
    """A frozen copy of the learner's policy as a batched opponent: samples its masked policy."""

    def __init__(self, policy) -> None:
        self.policy = copy.deepcopy(policy)
        self.policy.optimizer = None
        self.policy.set_training_mode(False)

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            obs_t = torch.as_tensor(obs, device=self.policy.device)
            dist = self.policy.get_distribution(obs_t, action_masks=masks)
            return dist.get_actions(deterministic=False).cpu().numpy()


def _timed_env(env: PoolVecEnv) -> PoolVecEnv:
    """Count the seconds spent in the simulator (steps, resets, masks, observations), apart
    from the frozen snapshots' inference, which is policy work."""
    env.sim_seconds = 0.0
    env.snapshot_seconds = 0.0
    for name in ("step_wait", "reset", "action_masks"):
        inner = getattr(env, name)

        def timed(*args, _inner=inner, **kwargs):
            t0 = time.perf_counter()
            before = env.snapshot_seconds
            try:
                return _inner(*args, **kwargs)
            finally:
                env.sim_seconds += time.perf_counter() - t0 - (env.snapshot_seconds - before)

        setattr(env, name, timed)
    return env


def _timed_snapshot(env: PoolVecEnv, policy: FrozenPolicy):
    def call(obs, masks):
        t0 = time.perf_counter()
        try:
            return policy(obs, masks)
        finally:
            env.snapshot_seconds += time.perf_counter() - t0

    return call


class Trainer:
    """One run: builds (or resumes) the model and the pool, trains, evaluates, saves."""

    def __init__(self, config: TrainConfig, resume: bool = False, verbose: bool = True) -> None:
        if resume:  # the run's own settings; only the total steps and the device may change
            saved_path = Path(config.out) / "config.json"
            if not saved_path.exists():
                raise ValueError(f"nothing to resume: {saved_path} does not exist")
            saved = TrainConfig.load(saved_path)
            saved.timesteps, saved.device, saved.out = config.timesteps, config.device, config.out
            config = saved
        config.check()
        self.config = c = config
        self.out = Path(c.out)
        if self.out.exists() and not self.out.is_dir():
            raise ValueError(f"--out {self.out} is a file: give a folder for the run")
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"cannot create the run folder {self.out}: {e.strerror}") from None
        self.verbose = verbose
        self.history: list[dict[str, Any]] = []
        self.snapshots: list[tuple[int, FrozenPolicy]] = []
        self.env = _timed_env(PoolVecEnv(c.n_envs, c.players, seed=c.seed, pool=c.pool,
                                         reward=c.reward))
        if resume:
            self._resume()
        else:
            if (self.out / f"latest{policy_file.SUFFIX}").exists():
                raise ValueError(f"{self.out} already holds a run; use --resume to continue it "
                                 "or choose another --out")
            for stale in (self.out / "snapshots").glob(f"step_*{policy_file.SUFFIX}"):
                stale.unlink()  # from an earlier run here that never reached a checkpoint
            self.model = self._new_model()
            self.add_snapshot()
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(json.dumps(asdict(c), indent=2))
        self.train_seconds = 0.0  # this session's training time (evaluations excluded)
        self._steps_this_session = 0

    # --- building -------------------------------------------------------------------------------
    def _new_model(self):
        from sb3_contrib import MaskablePPO

        c = self.config
        layers = c.layers()
        return MaskablePPO(
            "MlpPolicy", self.env, n_steps=c.n_steps, batch_size=c.batch_size,
            n_epochs=c.n_epochs, learning_rate=c.learning_rate, gamma=c.gamma,
            gae_lambda=c.gae_lambda, clip_range=c.clip_range, ent_coef=c.ent_coef,
            vf_coef=c.vf_coef, seed=c.seed, device=c.device, verbose=0,
            tensorboard_log=str(self.out / "tb"),
            policy_kwargs={"net_arch": {"pi": layers, "vf": layers}})

    def _resume(self) -> None:
        """Rebuild the model from the run's data-only files (no unpickling)."""
        import torch

        latest, opt_path, state_path = (self.out / f"latest{s}" for s in
                                        (policy_file.SUFFIX, "_optimizer.pt", ".json"))
        for path in (latest, opt_path, state_path):
            if not path.exists():
                raise ValueError(f"nothing to resume: {path} does not exist")
        try:
            state = json.loads(state_path.read_text())
            steps, updates = int(state["num_timesteps"]), int(state["n_updates"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{state_path}: not a run state ({e})") from None
        self.model = self._new_model()
        self._load_policy(self.model.policy, latest)
        try:
            optimizer = torch.load(opt_path, map_location=self.model.device, weights_only=True)
            self.model.policy.optimizer.load_state_dict(optimizer)
        except Exception as e:  # torch refuses anything but tensors and plain containers
            raise ValueError(f"{opt_path}: not an optimizer state of this run ({e})") from None
        self.model.num_timesteps, self.model._n_updates = steps, updates
        # new games, not a replay of the run's first ones (still a function of seed and step)
        self.env.seed(self.config.seed + steps)
        for path in sorted((self.out / "snapshots").glob(f"step_*{policy_file.SUFFIX}"),
                           key=lambda p: int(p.stem.split("_")[1])):
            frozen = FrozenPolicy(self.model.policy)
            self._load_policy(frozen.policy, path)
            self.snapshots.append((int(path.stem.split("_")[1]), frozen))
        self._install_snapshots()
        history = self.out / "history.csv"
        if history.exists():
            with history.open() as f:
                self.history = [{k: int(v) if k == "timesteps" else float(v)
                                 for k, v in row.items()} for row in csv.DictReader(f)]

    def _load_policy(self, policy, path: Path) -> None:
        """Load an agent file's weights into an sb3 policy of this run's shape."""
        tensors, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
        if config != policy_file.sb3_config(policy):
            raise ValueError(f"{path}: its network ({config}) is not this run's "
                             f"(--net-arch {self.config.net_arch})")
        policy.load_state_dict({k: v.to(policy.device) for k, v in tensors.items()})

    def _info(self) -> dict[str, Any]:
        c = self.config
        return {"players": c.players, "num_timesteps": int(self.model.num_timesteps),
                "algorithm": "MaskablePPO (sb3-contrib)", "reward": c.reward,
                "run": str(self.out)}

    def add_snapshot(self) -> None:
        """Freeze the learner's current policy into the pool (and save it)."""
        step = int(self.model.num_timesteps)
        frozen = FrozenPolicy(self.model.policy)
        self.snapshots.append((step, frozen))
        folder = self.out / "snapshots"
        policy_file.save_sb3_policy(folder / f"step_{step}{policy_file.SUFFIX}", frozen.policy,
                                    self._info())
        while len(self.snapshots) > self.config.max_snapshots:
            old, _ = self.snapshots.pop(0)
            (folder / f"step_{old}{policy_file.SUFFIX}").unlink(missing_ok=True)
        self._install_snapshots()

    def _install_snapshots(self) -> None:
        self.env.set_snapshots([_timed_snapshot(self.env, f) for _, f in self.snapshots])

    # --- evaluating and saving ------------------------------------------------------------------
    def evaluate(self) -> dict[str, Any]:
        """Win share against each heuristic; appended to the history, the CSV and the curve."""
        c = self.config
        t0 = time.perf_counter()
        row: dict[str, Any] = {"timesteps": int(self.model.num_timesteps)}
        predict = model_predict(self.model)
        for k, name in enumerate(EVAL_OPPONENTS):
            row[f"win_vs_{name}"] = win_share(predict, name, c.eval_games, c.players,
                                              seed=1_000_003 * (k + 1))
        row["train_seconds"] = round(self.train_seconds, 2)
        row["eval_seconds"] = round(time.perf_counter() - t0, 2)
        self.history.append(row)
        self._write_history()
        self.plot()
        if self.verbose:
            print(f"{row['timesteps']:>12,} steps  " + "  ".join(
                f"vs {n} {row[f'win_vs_{n}']:.1%}" for n in EVAL_OPPONENTS), flush=True)
        return row

    def _write_history(self) -> None:
        with (self.out / "history.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(self.history[0]))
            writer.writeheader()
            writer.writerows(self.history)

    def plot(self) -> Path:
        """The learning curve: win share against each heuristic over training steps."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        steps = [r["timesteps"] for r in self.history]
        fig, ax = plt.subplots(figsize=(7, 4))
        for name in EVAL_OPPONENTS:
            ax.plot(steps, [r[f"win_vs_{name}"] for r in self.history], marker="o", ms=3,
                    label=f"vs {name}")
        ax.axhline(1 / self.config.players, color="grey", lw=0.8, ls="--", label="break-even")
        ax.set(xlabel="training steps (learner decisions)", ylabel="win share", ylim=(0, 1),
               title=f"MaskablePPO self-play, {self.config.players} players, "
                     f"{self.config.eval_games} games per point")
        ax.legend(loc="lower right")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = self.out / "curve.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def save(self, best: bool) -> None:
        """Checkpoint: agent files (step, latest, best) and what resuming needs besides."""
        import torch

        step = int(self.model.num_timesteps)
        info = self._info()
        s = policy_file.SUFFIX
        policy = self.model.policy
        policy_file.save_sb3_policy(self.out / "checkpoints" / f"step_{step}{s}", policy, info)
        policy_file.save_sb3_policy(self.out / f"latest{s}", policy, info)
        torch.save(policy.optimizer.state_dict(), self.out / "latest_optimizer.pt")
        (self.out / "latest.json").write_text(json.dumps(
            {"num_timesteps": step, "n_updates": int(self.model._n_updates)}))
        if best:
            policy_file.save_sb3_policy(self.out / f"best{s}", policy, info)

    # --- the run --------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        """Train up to ``timesteps`` steps in total; returns the summary (also saved)."""
        c = self.config
        remaining = c.timesteps - int(self.model.num_timesteps)
        if not self.history:
            self.evaluate()
        if remaining > 0:
            self.model.learn(total_timesteps=remaining, callback=_Callback(self),
                             reset_num_timesteps=False, tb_log_name="ppo")
        if self.history[-1]["timesteps"] != self.model.num_timesteps:
            self._checkpoint()
        summary = self.summary()
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2))
        return summary

    def _checkpoint(self) -> None:
        row = self.evaluate()
        best = max(r["win_vs_gold"] for r in self.history) == row["win_vs_gold"]
        self.save(best)

    def summary(self) -> dict[str, Any]:
        env = self.env
        steps = int(self.model.num_timesteps)
        last = self.history[-1]
        return {
            "timesteps": steps,
            "train_seconds": round(self.train_seconds, 1),
            "steps_per_second": round(self._steps_this_session / self.train_seconds, 1)
            if self.train_seconds else None,
            "simulator_seconds": round(env.sim_seconds, 1),
            "simulator_share": round(env.sim_seconds / self.train_seconds, 4)
            if self.train_seconds else None,
            "snapshot_inference_seconds": round(env.snapshot_seconds, 1),
            "device": str(self.model.device),
            "final_eval": last,
            "best_win_vs_gold": max(r["win_vs_gold"] for r in self.history),
        }


def _callback_base():
    from stable_baselines3.common.callbacks import BaseCallback

    return BaseCallback


class _Callback(_callback_base()):
    """Per-opponent win shares of the rollouts, snapshots, evaluations, checkpoints, timing.

    A snapshot is taken at the end of a rollout (the policy that collected it, as it was);
    evaluations and checkpoints at the start of the next rollout, after the update, so that a
    checkpoint holds everything learnt from the steps it is named after. Their time is not
    counted as training time."""

    def __init__(self, trainer: Trainer) -> None:
        super().__init__()
        self.trainer = trainer
        self.results: dict[str, list[int]] = {}
        self._start_steps = 0
        self._t0 = 0.0
        self._paused = 0.0

    def _on_training_start(self) -> None:
        self._start_steps = self.num_timesteps
        c = self.trainer.config
        self._next_eval = (self.num_timesteps // c.eval_every + 1) * c.eval_every
        self._next_snapshot = (self.num_timesteps // c.snapshot_every + 1) * c.snapshot_every
        self._base = self.trainer.train_seconds
        self._t0 = time.perf_counter()

    def _clock(self) -> None:
        t = self.trainer
        t.train_seconds = self._base + time.perf_counter() - self._t0 - self._paused
        t._steps_this_session = self.num_timesteps - self._start_steps

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done:
                won = self.results.setdefault(info["opponent"], [0, 0])
                won[0] += info["won"]
                won[1] += 1
        return True

    def _on_rollout_end(self) -> None:
        t = self.trainer
        for name, (won, played) in self.results.items():
            self.logger.record(f"rollout/win_vs_{name}", won / played)
        self.results.clear()
        self._clock()
        if t.train_seconds:
            self.logger.record("time/env_steps_per_second",
                               t._steps_this_session / t.train_seconds)
            self.logger.record("time/simulator_share", t.env.sim_seconds / t.train_seconds)
        if self.num_timesteps >= self._next_snapshot:
            pause = time.perf_counter()
            t.add_snapshot()
            self._next_snapshot += t.config.snapshot_every
            self._paused += time.perf_counter() - pause

    def _on_rollout_start(self) -> None:
        t = self.trainer
        if self.num_timesteps >= self._next_eval:
            self._clock()
            pause = time.perf_counter()
            t._checkpoint()
            for name in EVAL_OPPONENTS:
                self.logger.record(f"eval/win_vs_{name}", t.history[-1][f"win_vs_{name}"])
            self._next_eval += t.config.eval_every
            self._paused += time.perf_counter() - pause

    def _on_training_end(self) -> None:
        self._clock()


def train(config: TrainConfig, resume: bool = False, verbose: bool = True) -> dict[str, Any]:
    """Run (or resume) a training run; returns its summary."""
    return Trainer(config, resume=resume, verbose=verbose).run()
