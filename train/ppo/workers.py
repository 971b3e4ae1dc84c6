"""Rollout workers: the run's games split over several workers that each step their share with
a copy of the policy (``machu train --rollout-workers N``; with ``--ray``, Ray actors).

A worker owns a ``LearnerBatch`` of its share of the games, its own opponent bank and its own
sampling streams, and fills its columns of the learner's rollout. The learner gathers every
worker's columns, updates once on the whole rollout and sends the new weights to all of them
before the next one: synchronous data-parallel rollouts, as RLlib's and Sample Factory's
workers are, with no policy lag. The streams of worker ``k`` are a function of the run's seed
and ``k`` only, so a run gives the same games and the same weights with the workers on threads
of this process (``LocalWorkers``) or on a Ray cluster (``ray_workers.RayWorkers``).

One worker (the default without ``--ray``) is the learner's own rollout, as before: the
games of ``n_envs`` in one batch, the learner's streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from machu_env.core.learner_batch import LearnerBatch
from machu_env.train.ppo.ppo import PPO, PPOSettings, Rollout, new_net

SEED_STRIDE = 1_000_003  # worker k's games and draws: seed + SEED_STRIDE * (k + 1)
ROLLOUT_FIELDS = ("obs", "masks", "actions", "logp", "values", "rewards", "starts")


class EpisodeCounts(dict):
    """Games won and played per opponent label since the last ``clear`` (``label: [won,
    played]``): fed each step's ``StepResult``, or merged from a worker's counts."""

    def __call__(self, r) -> None:
        ended = r.opponents[: r.ended.size]  # (a cut game is neither won nor lost)
        won = np.bincount(ended, weights=r.won, minlength=len(r.labels))
        for k in np.flatnonzero(played := np.bincount(ended, minlength=len(r.labels))):
            self.add(r.labels[k], int(won[k]), int(played[k]))

    def add(self, label: str, won: int, played: int) -> None:
        entry = self.setdefault(label, [0, 0])
        entry[0], entry[1] = entry[0] + won, entry[1] + played

    def merge(self, other: dict[str, Sequence[int]]) -> None:
        for label, (won, played) in other.items():
            self.add(label, int(won), int(played))

    def shares(self) -> dict[str, float]:
        return {label: won / played for label, (won, played) in self.items()}


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker builds from (plain data: it travels to a Ray actor as it is)."""

    n_envs: int
    players: int
    seed: int
    pool: str
    reward: str
    observation: int
    head_start: float
    net_config: dict
    settings: dict  # PPOSettings' fields

    @classmethod
    def of(cls, config, net_config: dict) -> WorkerSpec:
        """The spec of a ``TrainConfig``'s run (all its games)."""
        settings = asdict(config.ppo_settings())
        return cls(config.n_envs, config.players, config.seed, config.pool, config.reward,
                   config.observation, config.head_start, dict(net_config), settings)


def shares(n_envs: int, workers: int) -> list[int]:
    """The games of each worker: ``n_envs`` split as evenly as it goes, the larger first."""
    if not 1 <= workers <= n_envs:
        raise ValueError(f"rollout_workers must be in [1, n_envs = {n_envs}], got {workers}")
    base, extra = divmod(n_envs, workers)
    return [base + (k < extra) for k in range(workers)]


def worker_seed(seed: int, index: int) -> int:
    """The seed of worker ``index``'s games and draws."""
    return (int(seed) + SEED_STRIDE * (index + 1)) % 2**32


class RolloutWorker:
    """A share of the run's games and a copy of the policy: collects its columns of a rollout.

    Args:
        spec: the run (``WorkerSpec`` as a dict); ``n_envs`` there is this worker's share.
        index: the worker's number (its streams: ``worker_seed``).
    """

    def __init__(self, spec: dict, index: int) -> None:
        import torch

        s = WorkerSpec(**spec)
        self.index, self.spec = index, s
        rows = s.n_envs * int(s.settings["n_steps"])
        settings = PPOSettings(**{**s.settings, "n_envs": s.n_envs, "batch_size": rows,
                                  "torch_compile": False})
        net = new_net(s.net_config, 0).eval().requires_grad_(False)
        self.ppo = PPO(net, settings, seed=worker_seed(s.seed, index))
        self.env = LearnerBatch(s.n_envs, s.players, seed=worker_seed(s.seed, index),
                                pool=s.pool, reward=s.reward, observation=s.observation,
                                head_start=s.head_start)
        self._torch = torch
        self._started = False

    def seed(self, seed: int) -> None:
        """New games and draws from ``seed`` (a resumed run's ``seed + step``)."""
        self.env.seed(worker_seed(seed, self.index))
        self.ppo.generator.manual_seed(worker_seed(seed, self.index))
        self._started = False

    def set_pool(self, pool: dict[str, Any]) -> None:
        """The frozen policies of the pool (``pool_payload``), with this worker's own draws."""
        from machu_env.train.ppo.bank import PolicyBank

        nets = []
        for state in pool["states"]:
            net = new_net(self.spec.net_config, 0)
            net.load_state_dict({k: self._torch.as_tensor(v) for k, v in state.items()})
            nets.append(net.eval())
        bank = PolicyBank(nets, seed=worker_seed(pool["seed"], self.index),
                          precision=self.spec.settings["precision"], names=pool["names"])
        self.env.set_snapshots(bank, weights=pool["weights"])

    def collect(self, weights: dict[str, Any], as_numpy: bool = False) -> dict[str, Any]:
        """One rollout of this worker's games with the policy ``weights``: its rollout tensors
        (numpy arrays with ``as_numpy``), the games won and played per opponent, and the
        seconds spent in the simulator and the policy."""
        m, B = self.ppo, self.ppo.buffer
        if not self._started:  # (the first rollout, or new games after ``seed``)
            self.env.reset()
            m.start(self.env)
            self._started = True
        else:
            B.carry_over()
        m.net.load_state_dict({k: self._torch.as_tensor(v) for k, v in weights.items()})
        m.seconds = dict.fromkeys(m.seconds, 0.0)
        counts = EpisodeCounts()
        m.collect(self.env, counts)
        arrays = {name: getattr(B, name) for name in ROLLOUT_FIELDS}
        if as_numpy:
            arrays = {name: t.numpy() for name, t in arrays.items()}
        return {"rollout": arrays, "counts": dict(counts), "seconds": dict(m.seconds)}


def pool_payload(bank, weights: Sequence[float] | None) -> dict[str, Any]:
    """A ``PolicyBank`` of frozen snapshots as plain data for the workers: the states (numpy),
    the names, the draw weights and the bank's seed."""
    return {"states": [{k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}
                       for net in bank.nets],
            "names": list(bank.names), "seed": int(bank.seed),
            "weights": None if weights is None else [float(w) for w in weights]}


def policy_weights(net) -> dict[str, np.ndarray]:
    """The learner's weights as numpy arrays (float32, on the CPU)."""
    return {k: v.detach().float().cpu().numpy() for k, v in net.state_dict().items()}


def gather(buffer: Rollout, parts: Sequence[dict[str, Any]], widths: Sequence[int]) -> None:
    """Copy each worker's rollout into its columns of the learner's ``buffer`` (the policy's
    tensors on the learner's device, the observations sent there)."""
    import torch

    start = 0
    for part, width in zip(parts, widths, strict=True):
        for name in ROLLOUT_FIELDS:  # (a Ray result is read-only: copied, never aliased)
            getattr(buffer, name)[:, start:start + width].copy_(
                torch.as_tensor(np.asarray(part["rollout"][name])))
        start += width
    buffer.send()


def _set_numba_threads(n: int) -> None:
    import numba

    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


class LocalWorkers:
    """Rollout workers on threads of this process (the engine's kernels and torch's passes
    release the GIL): ``threads`` numba threads shared among them."""

    def __init__(self, spec: WorkerSpec, workers: int, threads: int) -> None:
        self.widths = shares(spec.n_envs, workers)
        self.workers = [RolloutWorker(asdict(replace(spec, n_envs=w)), k)
                        for k, w in enumerate(self.widths)]
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="rollout-worker",
                                        initializer=_set_numba_threads,
                                        initargs=(max(1, threads // workers),))

    def set_snapshots(self, bank, weights: Sequence[float] | None = None) -> None:
        payload = pool_payload(bank, weights)
        for w in self.workers:
            w.set_pool(payload)

    def seed(self, seed: int) -> None:
        for w in self.workers:
            w.seed(seed)

    def collect(self, net, buffer: Rollout, counts: EpisodeCounts) -> dict[str, float]:
        """Every worker's rollout with ``net``'s weights, into ``buffer``; the slowest worker's
        seconds."""
        weights = policy_weights(net)
        parts = list(self._pool.map(lambda w: w.collect(weights), self.workers))
        return merge(parts, buffer, self.widths, counts)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def merge(parts: Sequence[dict[str, Any]], buffer: Rollout, widths: Sequence[int],
          counts: EpisodeCounts) -> dict[str, float]:
    """The workers' rollouts into ``buffer``, their games into ``counts``; the slowest
    worker's seconds (they ran side by side)."""
    gather(buffer, parts, widths)
    for part in parts:
        counts.merge(part["counts"])
    return {k: max(p["seconds"][k] for p in parts) for k in parts[0]["seconds"]}


class Spread:
    """The trainer's step with rollout workers: every worker's rollout, then one update."""

    pending = False

    def __init__(self, model: PPO, workers: LocalWorkers | Any) -> None:
        self.model, self.workers = model, workers

    def begin(self, env) -> None:  # (each worker starts its games on its first rollout)
        pass

    def step(self, env, on_episodes: EpisodeCounts, timesteps: int) -> dict[str, float]:
        m = self.model
        seconds = self.workers.collect(m.net, m.buffer, on_episodes)
        for k, v in seconds.items():
            m.seconds[k] += v
        m.num_timesteps += m.s.n_steps * m.s.n_envs
        m.progress = m.num_timesteps / timesteps  # (the entropy schedule)
        return m.update()

    def close(self) -> None:
        self.workers.close()
