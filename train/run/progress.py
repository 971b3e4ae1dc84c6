"""What a training run shows while it trains: a progress bar in a terminal (steps, env steps/s,
time left, the last evaluation), plain periodic lines elsewhere (a log file, CI), and a word
when the machine is already busy (two torch threads on a loaded 2-core machine can run several
times slower than one)."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO


def machine_load(samples: int = 5) -> tuple[float, int] | None:
    """(how many CPUs' worth of other work runs now, CPUs), where the system tells: on Linux
    the median of a few readings of the runnable tasks in ``/proc/loadavg`` less the reader
    itself (the 1-minute load average still counts work of this run that has just ended, a
    recipe's probes say), elsewhere the 1-minute load average."""
    cpus = os.cpu_count() or 1
    try:
        runnable = []
        for _ in range(samples):
            with open("/proc/loadavg") as f:
                runnable.append(int(f.read().split()[3].split("/")[0]) - 1)
            time.sleep(0.05)
        return float(sorted(runnable)[len(runnable) // 2]), cpus
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0], cpus
    except (OSError, AttributeError):
        return None


def busy_warning(threads: int) -> str | None:
    """A line for a run starting on a machine whose CPUs are already taken, else None."""
    load = machine_load()
    if load is None or threads == 1:
        return None
    avg, cpus = load
    if avg < max(1.0, cpus - 0.5):
        return None
    return (f"the machine is busy (other work takes {avg:.1f} of {cpus} CPUs): this run will "
            "be slower; with other work running, --threads 1 is often faster")


class Progress:
    """The run's progress: ``update`` after every PPO update, ``say`` for a line (an
    evaluation), ``close`` at the end. A bar on ``stream`` (stderr) where it is a terminal,
    else a line on stdout every ``every`` seconds."""

    def __init__(self, total: int, done: int = 0, enabled: bool = True,
                 stream: TextIO | None = None, every: float = 10.0, goal: str = "",
                 seconds: float = 0.0, spent: float = 0.0) -> None:
        """``total``/``done``: the run's steps, all and before this session; ``seconds``/
        ``spent``: its time budget (0: none), all and used before this session."""
        self.total, self.enabled, self.every, self.goal = total, enabled, every, goal
        self.t0 = self.last_line = time.perf_counter()
        self.spent = spent if seconds > 0 else 0.0
        self.deadline = self.t0 + seconds - spent if seconds > 0 else None  # (--minutes)
        self.stream = stream or sys.stderr
        self.start_steps, self.last_eval = done, "-"
        self.bar = None
        # a time budget (no goal): the bar counts its minutes, a total fixed for the run across
        # its sessions (the steps it will reach depend on the rate); else the steps
        self.budget = seconds if seconds > 0 and not goal else 0.0
        if enabled and self.stream.isatty():
            from tqdm import tqdm

            # a goal may end the run at any evaluation: no total to count to (and no ETA to
            # the --timesteps it may never reach)
            if self.budget:
                self.bar = tqdm(total=round(self.budget), initial=min(round(spent),
                                round(self.budget)), unit="s", file=self.stream,
                                dynamic_ncols=True, desc="machu train (time budget)")
            else:
                self.bar = tqdm(total=None if goal else total, initial=min(done, total),
                                unit="step", unit_scale=True, file=self.stream,
                                dynamic_ncols=True, desc="machu train" + (
                                    f" (until {goal}, at most {total:,} steps)" if goal else ""))

    def bound(self, steps: int, rate: float) -> int:
        """The step the run will end at, as far as one can tell now: ``total``, or sooner
        where the time budget ends it at the current rate."""
        if self.deadline is None or rate <= 0:
            return self.total
        left = max(0.0, self.deadline - time.perf_counter())
        return max(steps, min(self.total, int(steps + rate * left)))

    def update(self, steps: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        rate = (steps - self.start_steps) / max(now - self.t0, 1e-9)
        if self.bar is not None:
            if self.budget:
                self.bar.set_postfix_str(f"{steps:,} steps, {rate:,.0f} steps/s, last eval: "
                                         f"{self.last_eval}", refresh=False)
                self.bar.update(min(round(self.spent + now - self.t0), self.bar.total)
                                - self.bar.n)
            else:
                self.bar.set_postfix_str(f"last eval: {self.last_eval}", refresh=False)
                self.bar.update(min(steps, self.total) - self.bar.n)
        elif now - self.last_line >= self.every:
            of = (f" (until {self.goal}, at most {self.total:,}) steps" if self.goal else
                  f" steps, {(self.spent + now - self.t0) / 60:.1f} of {self.budget / 60:.0f} min"
                  if self.budget else f" / {self.total:,} steps")
            print(f"{steps:>12,}{of}  {rate:,.0f} steps/s  "
                  f"{self.time_left(steps, rate)}  last eval: {self.last_eval}", flush=True)
            self.last_line = now

    def time_left(self, steps: int, rate: float) -> str:
        """Words for the time to the last step (never negative); with a goal, an upper bound:
        the run may stop at any evaluation."""
        if rate <= 0 and self.deadline is None:
            return "time left unknown"
        left = max(0.0, (self.total - steps) / rate) if rate > 0 else float("inf")
        if self.deadline is not None:  # the time budget ends it first
            left = min(left, max(0.0, self.deadline - time.perf_counter()))
        text = (f"{left:.0f} s" if left < 120 else f"{left / 60:.0f} min" if left < 7200
                else f"{left / 3600:.1f} h")
        return f"at most {text} left (or at {self.goal})" if self.goal else f"about {text} left"

    def say(self, text: str) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def say_evaluation(progress: Progress, history: list[dict], shown: list[str],
                   players: int, earlier: frozenset[str] = frozenset()) -> None:
    """The last evaluation's line (win share against each opponent measured), and a line for
    each rung of the strength ladder (``ladder.py``) it reaches first (``earlier``: the rungs
    an earlier phase of a recipe reached)."""
    from machu_env.train.probe.ladder import reached

    row = history[-1]
    measured = [n for n in shown if row[f"win_vs_{n}"] == row[f"win_vs_{n}"]]  # (not NaN)
    progress.say(f"{row['timesteps']:>12,} steps  " + "  ".join(
        f"vs {n} {row[f'win_vs_{n}']:.1%}" for n in measured)
        + (f"  sacrifices/game {row['sacrifices_per_game_vs_gold']:.1f}"
           if "sacrifices_per_game_vs_gold" in row else "")
        + f"  ({row['elapsed_seconds']:.0f} s)")
    progress.last_eval = f"gold {row['win_vs_gold']:.1%}"
    before = {n for r in history[:-1] for n in reached(r, players)} | earlier
    for name in reached(row, players):
        if name not in before:
            progress.say(f"rung reached: {row[f'win_vs_{name}']:.1%} against {name} after "
                         f"{row['elapsed_seconds'] / 60:.1f} min ({row['timesteps']:,} steps)")


def run_summary(trainer) -> dict:
    """A run's ``summary.json``: its steps, throughput, where the time went (simulator, the
    learner's rollout policy, updates, exploiters, evaluations) and its evaluations."""
    import torch

    m, history = trainer.model, trainer.history
    secs = trainer.train_seconds
    return {
        "timesteps": int(m.num_timesteps),
        "train_seconds": round(secs, 1),
        "steps_per_second": round(trainer._steps_this_session / secs, 1) if secs else None,
        "simulator_seconds": round(m.seconds["simulator"], 1),
        "simulator_share": round(m.seconds["simulator"] / secs, 4) if secs else None,
        "rollout_policy_seconds": round(m.seconds["rollout_policy"], 1),
        "update_seconds": round(m.seconds["update"], 1),
        "exploiter_seconds": round(trainer.exploiter_seconds, 1),
        "eval_seconds": round(sum(r.get("eval_seconds", 0.0) for r in history), 1),
        "wall_seconds": round(time.perf_counter() - trainer.started, 1),
        "device": str(trainer.device),
        "precision": trainer.config.precision,
        "torch_threads": torch.get_num_threads(),
        "rollout_workers": trainer.config.rollout_workers,
        "rollout_workers_lost": getattr(trainer.env, "lost", 0),
        "final_eval": history[-1],
        "best_win_vs_gold": max(r["win_vs_gold"] for r in history),
        "imitation": trainer.imitation,
    }
