"""How ``machu train`` sizes itself to the machine: games in flight, threads and device.

The simulator's loops over games run on every core (numba's ``prange``), so each core needs
enough games per step to stay busy, while the learner's update keeps the size it has on two
cores (games x steps per rollout: ``ROLLOUT_ROWS``), so that one env step teaches what it does
there. The rule, for every setting left at 0 / ``auto``:

* threads: every core this process may use (its CPU affinity);
* games (``n_envs``): ``GAMES_PER_CORE`` per thread, a power of two in ``MIN_GAMES`` ..
  ``MAX_GAMES``; steps per rollout (``n_steps``): ``ROLLOUT_ROWS`` / games when the games are
  sized too, else the two-core default (128);
* device: a CUDA GPU where torch sees one, else the CPU;
* rollout workers: one, the learner's own rollout; with ``--ray``, one per CPU of the cluster
  (Ray actors, ``ray_workers``), the games sized to those CPUs instead of the threads.

On two cores this gives 128 games x 128 steps and 2 threads on the CPU: the settings every
published two-core figure was measured with. A setting given on the command line (or in a
recipe) is kept as given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

GAMES_PER_CORE = 64
MIN_GAMES, MAX_GAMES = 128, 4096
ROLLOUT_ROWS = 128 * 128  # games x steps per rollout: the update's size
MIN_STEPS = 8
DEFAULT_STEPS = 128  # steps per rollout when the games are given


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else the CPU
    count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def gpu_name() -> str | None:
    """The name of the CUDA GPU torch sees, or None."""
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


@dataclass(frozen=True)
class Sizing:
    """What a run uses, and whether each was chosen here (``sized``) or given."""

    n_envs: int
    n_steps: int
    threads: int
    device: str
    sized: tuple[str, ...]
    rollout_workers: int = 1
    on_ray: bool = False

    def words(self, cores: int, gpu: str | None) -> str:
        """The run's first line: what it picked and why."""
        machine = f"{cores} core{'s' if cores != 1 else ''}, " + (f"GPU {gpu}" if gpu else
                                                                 "no GPU")
        picked = (f"{self.n_envs} games x {self.n_steps} steps per rollout, "
                  f"{self.threads} thread{'s' if self.threads != 1 else ''}, {self.device}")
        if self.rollout_workers > 1 or self.on_ray:
            where = "Ray actors" if self.on_ray else "threads"
            picked += f", {self.rollout_workers} rollout workers ({where})"
        if not self.sized:
            return f"machu train: {picked} (as given; this machine: {machine})"
        options = ", ".join(f"--{name.replace('_', '-')}" for name in self.sized)
        return (f"machu train: {picked}, sized to this machine ({machine}: "
                f"{GAMES_PER_CORE} games a thread, {ROLLOUT_ROWS:,} rows an update); "
                f"{options} set them")


def size(n_envs: int, n_steps: int, threads: int, device: str, cores: int,
         gpu: str | None, rollout_workers: int = 1, ray_cpus: int | None = None) -> Sizing:
    """The sizing rule (module docstring) for the settings left at 0 / ``auto``;
    ``ray_cpus``: the CPUs of the Ray cluster the run uses (None: no Ray)."""
    sized = []
    if threads == 0:
        threads = cores
        sized.append("threads")
    if rollout_workers == 0:
        rollout_workers = ray_cpus or 1
        sized.append("rollout_workers")
    if n_envs == 0:
        busy = ray_cpus if ray_cpus else threads  # (the cores that step the games)
        games = max(MIN_GAMES, min(MAX_GAMES, GAMES_PER_CORE * busy))
        n_envs = 1 << (games.bit_length() - 1)  # a power of two: the update's rows divide
        sized.append("n_envs")
        if n_steps == 0:
            n_steps = max(MIN_STEPS, ROLLOUT_ROWS // n_envs)
            sized.append("n_steps")
    if n_steps == 0:
        n_steps = DEFAULT_STEPS
        sized.append("n_steps")
    if device == "auto":
        device = "cuda" if gpu else "cpu"
        sized.append("device")
    return Sizing(n_envs, n_steps, threads, device, tuple(sized), rollout_workers,
                  ray_cpus is not None)
