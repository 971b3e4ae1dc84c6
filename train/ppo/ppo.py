"""Masked PPO written directly on the batch engine (``LearnerBatch.advance`` / ``observe``).

The algorithm is sb3-contrib's MaskablePPO with its defaults (clipped surrogate, GAE, value
loss without clipping, per-minibatch advantage normalisation, gradient norm clipped at 0.5,
Adam with eps 1e-5, orthogonal initialisation with gains sqrt(2) / 0.01 / 1), on the same
network (``policy_file.PolicyNet``: a file of this trainer is an agent file as it stands).
What makes it faster than running MaskablePPO on the VecEnv:

* the rollout buffer is a set of preallocated tensors; the engine writes each step's
  observations and legal masks straight into them (no per-step copies, no info dicts);
* the frozen opponents are one ``PolicyBank`` (one batched forward pass per opponent turn);
* ``precision="bf16"`` runs the forward and backward passes under bfloat16 autocast (the
  weights, the optimizer and the losses stay float32) where the CPU supports it;
* the torch thread count is a setting (on a loaded 2-core machine 1 thread can beat 2).

Regularisation (after magnetic mirror descent, Sokota et al. 2022): besides the
entropy bonus (``ent_coef``, decayed linearly to ``ent_coef_final`` over the run when that is
>= 0), ``magnet_coef`` adds a reverse KL, KL(pi || magnet), over the legal actions. The magnet
is a frozen copy of the policy, reset to the current policy every ``magnet_every`` updates
(``magnet_every=0``: the uniform policy over the legal actions, where the term is the entropy
bonus up to a constant). MMD's second term, a KL to the previous policy, is PPO's clipping here.

A game cut at the decision limit is a time limit: its last reward is bootstrapped from the value
of its last observation. ``cut_as_loss`` makes it a loss (-1) instead, for learners that would
otherwise learn to stall (``machu train --cut-as-loss``, ``machu exploit --cut-as-loss``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, fields

import numpy as np

from machu_env.agents.masking import masked_logits as play_logits
from machu_env.agents.policy_file import net_config, new_net  # noqa: F401  (re-exported)
from machu_env.train.ppo.rollout_buffer import Rollout, gae, rollout_bytes  # noqa: F401  (re-exported)
from machu_env.train.run.args import MAX_THREADS, PPOArgs  # noqa: F401  (MAX_THREADS re-exported)
from machu_env.train.run.settings import check_declared, choices_of

MAX_LAG_WEIGHT = 2.0  # decoupled PPO: the cap of a sample's proximal / behaviour probability


def memory_for_rollouts() -> int:
    """Half the machine's memory (8 GiB where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def torch_device(name: str):
    """The torch device ``auto`` (a CUDA GPU if torch sees one), ``cpu``, ``cuda[:n]`` or
    ``mps`` names; ValueError for a GPU this torch does not see."""
    import torch

    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {name}: this torch sees no CUDA GPU (use cpu or auto)")
    if name == "mps" and not torch.backends.mps.is_available():
        raise ValueError("device mps: this torch sees no Apple GPU (use cpu or auto)")
    return torch.device("cuda" if name == "auto" and torch.cuda.is_available()
                        else "cpu" if name == "auto" else name)


@dataclass
class PPOSettings(PPOArgs):
    """The algorithm's settings (sb3-contrib MaskablePPO's meaning; the trainer's
    ``TrainConfig`` extends them), declared in ``args.PPOArgs``."""

    def check(self) -> None:
        """Clear errors for impossible settings, naming the setting and what is allowed: each
        its declared type and range (``settings.check_declared``), then how they combine."""
        check_declared(self)
        need, room = rollout_bytes(self.n_steps, self.n_envs), memory_for_rollouts()
        if need > room:
            raise ValueError(f"n_envs x n_steps = {self.n_envs} x {self.n_steps} needs a rollout "
                             f"buffer of {need / 2**30:.1f} GiB; this machine allows "
                             f"{room / 2**30:.1f} GiB (half its memory): lower n_envs or "
                             "n_steps")
        if self.n_envs * self.n_steps % self.batch_size:
            raise ValueError(f"batch_size ({self.batch_size}) must divide n_envs * n_steps "
                             f"({self.n_envs * self.n_steps})")
        # (each setting's range and choices are its declaration's: args.PPOArgs)

    def ppo_settings(self) -> PPOSettings:
        """Just the algorithm's settings (a ``TrainConfig`` holds more)."""
        return PPOSettings(**{f.name: getattr(self, f.name) for f in fields(PPOSettings)})


def set_threads(threads: int, overlap: bool = False) -> None:
    """Use ``threads`` threads for torch and for the engine's numba kernels (0: leave both at
    their defaults). Two processes on a 2-core machine, each with numba's default of one
    thread per core, train 7x slower than with one thread each (research/log.md). ``overlap``
    (overlap.py: the update and a rollout thread at once): torch gets half of them."""
    import numba
    import torch

    if threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    if threads or overlap:
        total = threads or torch.get_num_threads()
        torch.set_num_threads(max(1, total // 2) if overlap else total)


def bf16_supported() -> bool:
    """Whether this CPU has native bfloat16 arithmetic (AVX-512 BF16 or AMX)."""
    try:
        import torch

        return bool(torch.backends.mkldnn.is_available()
                    and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def check_precision(precision: str) -> None:
    """``fp32``, or ``bf16`` on a CPU that has bfloat16 arithmetic; ValueError in words."""
    if precision not in choices_of(PPOArgs, "precision"):
        raise ValueError(f"precision must be one of {', '.join(choices_of(PPOArgs, 'precision'))}"
                         f", got {precision!r}")
    if precision == "bf16" and not bf16_supported():
        raise ValueError("precision bf16 needs a CPU with bfloat16 arithmetic (AVX-512 BF16 or "
                         "AMX); this one has none: use fp32")


def masked_logits(logits, masks):
    """The loss's masking: illegal logits -1e8, finite, as sb3's ``MaskableCategorical`` (the
    entropy of a -inf logit is NaN). Playing uses ``masking.masked_logits`` (-inf)."""
    import torch

    return torch.where(masks, logits, torch.tensor(-1e8, dtype=logits.dtype))


def policy_terms(logits, masks):
    """(probabilities, log-probabilities, entropy per row) of the masked policy, as the loss
    reads them. The probabilities come from the fused softmax, not from ``exp`` of the
    log-probabilities: on a CPU an elementwise ``exp`` of the masked -1e8 entries takes a slow
    path (about 5x the whole loss's time)."""
    import torch

    logits = masked_logits(logits.float(), masks)
    logp_all = torch.log_softmax(logits, dim=1)
    probs = torch.softmax(logits, dim=1)
    return probs, logp_all, -(probs * logp_all).sum(1)


class PPO:
    """The learner: a ``PolicyNet``, its optimizer, rollout collection and the update."""

    def __init__(self, net, settings: PPOSettings, seed: int = 0) -> None:
        import torch

        settings.check()
        check_precision(settings.precision)
        if not settings.n_envs or not settings.n_steps:
            raise ValueError("n_envs and n_steps must be sized before training (0 is sized by "
                             "machu train and machu exploit; give numbers to PPO itself)")
        self.net = net
        # torch.compile (inductor: a C++ compiler on the CPU) for the update's passes only
        self.update_net = torch.compile(net) if settings.torch_compile else net
        self.device = next(net.parameters()).device
        self.s = settings
        self.optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate, eps=1e-5)
        self.generator = torch.Generator().manual_seed(int(seed))  # (the minibatches' order)
        self.buffer = self.new_rollout()
        # the rollout's policy and sampling stream (on the device: the actions are drawn where
        # the logits are): the learner's own, or (overlap.py) a copy synchronised after each
        # update and a stream of its own
        self.actor_net = net
        self.rollout_generator = self.generator if self.device.type == "cpu" \
            else self.sampling_stream(seed)
        self.decoupled = False  # (overlap.py) the data is one update old: decoupled PPO
        self.num_timesteps = 0
        self.n_updates = 0
        self.progress = 0.0  # the run's share done (the trainer sets it): the entropy schedule
        self.magnet = None  # a frozen copy of the net (magnet_every > 0), reset in update()
        self.seconds = {"rollout_policy": 0.0, "simulator": 0.0, "update": 0.0}

    def new_rollout(self, mirror: bool = False) -> Rollout:
        """A rollout buffer of this learner's shape, its policy's tensors on its device."""
        return Rollout(self.s.n_steps, self.s.n_envs, int(self.net.config["obs_size"]),
                       self.device, mirror)

    def sampling_stream(self, seed: int):
        """A stream of draws on the learner's device, seeded with ``seed``."""
        import torch

        return torch.Generator(device=self.device).manual_seed(int(seed))

    def _autocast(self):
        import torch

        return torch.autocast("cpu", torch.bfloat16, enabled=self.s.precision == "bf16")

    def start(self, env) -> None:
        """Observe the env's first games (after its reset)."""
        env.observe_unchecked(self.buffer.obs_np[0], self.buffer.masks_np[0])
        self.buffer.starts[0] = 1.0
        self.buffer.send(0)

    def _policy(self, obs, masks):
        """Actions drawn from the masked policy (Gumbel-max), their log-probabilities and the
        values, on the device of ``obs`` and ``masks``."""
        import torch

        with torch.no_grad(), self._autocast():
            logits, values = self.actor_net(obs)
        logits = play_logits(logits.float(), masks)
        u = torch.rand(logits.shape, generator=self.rollout_generator,
                       device=logits.device).clamp_(1e-20, 1.0)
        actions = torch.argmax(logits - torch.log(-torch.log(u)), dim=1)
        logp = torch.log_softmax(logits, dim=1).gather(1, actions[:, None])[:, 0]
        return actions, logp, values.float()[:, 0]

    def _values(self, obs):
        import torch

        with torch.no_grad(), self._autocast():
            return self.actor_net(torch.as_tensor(obs).to(self.device))[1].float()[:, 0]

    def collect(self, env, on_episodes=None, buffer: Rollout | None = None) -> None:
        """One rollout of ``n_steps`` learner steps in every game of ``env`` (into ``buffer``,
        by default the learner's). ``on_episodes`` gets each step's ``StepResult`` (for win
        statistics)."""
        B, g = self.buffer if buffer is None else buffer, self.s.gamma
        for t in range(self.s.n_steps):
            t0 = time.perf_counter()
            actions, logp, values = self._policy(B.obs_in[t], B.masks_in[t])
            B.actions[t], B.logp[t], B.values[t] = actions, logp, values
            chosen = actions.cpu().numpy().astype(np.int32)  # (the step's one wait on a GPU)
            t1 = time.perf_counter()
            r = env.advance_unchecked(chosen)
            env.observe_unchecked(B.obs_np[t + 1], B.masks_np[t + 1])
            t2 = time.perf_counter()
            B.send(t + 1)
            rewards = torch_from(r.rewards)
            if r.cut.size and self.s.cut_as_loss:  # stalling to the limit is no way out
                rewards[r.cut] -= 1.0
            elif r.cut.size:  # truncated games: bootstrap from their last observation
                rewards[r.cut] += g * self._values(r.cut_obs).cpu()
            B.rewards[t] = rewards
            B.starts[t + 1] = torch_from(r.dones.astype(np.float32))
            if on_episodes is not None:
                on_episodes(r)
            self.seconds["rollout_policy"] += t1 - t0 + time.perf_counter() - t2
            self.seconds["simulator"] += t2 - t1
        t0 = time.perf_counter()
        B.values[-1] = self._values(B.obs_in[-1])
        self.seconds["rollout_policy"] += time.perf_counter() - t0
        self.num_timesteps += self.s.n_steps * self.s.n_envs

    def advantages(self):
        """GAE(lambda) advantages and returns of the buffer, on the device of its values."""
        import torch

        B, s = self.buffer, self.s
        values = B.values.float().cpu()  # (on the CPU the tensor itself; a GPU's: one copy)
        adv = np.empty(tuple(B.rewards.shape), dtype=np.float32)
        gae(B.rewards.numpy(), B.starts.numpy(), values.numpy(), np.float32(s.gamma),
            np.float32(s.gamma * s.gae_lambda), adv)
        adv = torch.from_numpy(adv).to(B.values.device)
        return adv, adv + B.values[:-1]

    def ent_coef_now(self) -> float:
        """The entropy coefficient at ``progress`` (the schedule, or ``ent_coef``)."""
        s = self.s
        if s.ent_coef_final < 0:
            return s.ent_coef
        return s.ent_coef + (s.ent_coef_final - s.ent_coef) * min(max(self.progress, 0.0), 1.0)

    def learning_rate_now(self) -> float:
        """The learning rate at ``progress`` (the linear schedule, or ``learning_rate``)."""
        s = self.s
        if s.learning_rate_final < 0:
            return s.learning_rate
        share = min(max(self.progress, 0.0), 1.0)
        return s.learning_rate + (s.learning_rate_final - s.learning_rate) * share

    def _reset_magnet(self) -> None:
        import copy

        if self.s.magnet_coef > 0 and self.s.magnet_every > 0 \
                and (self.magnet is None or self.n_updates // self.s.n_epochs
                     % self.s.magnet_every == 0):
            self.magnet = copy.deepcopy(self.net).eval().requires_grad_(False)

    def _magnet_kl(self, pi, logp_all, obs, masks):
        """KL(pi || magnet) per row, over the legal actions (``pi``: the policy's
        probabilities, ``logp_all`` their logarithms)."""
        import torch

        if self.magnet is None:  # uniform over the legal actions
            log_mu = -torch.log(masks.sum(1, keepdim=True).float())
        else:
            with torch.no_grad(), self._autocast():
                mu_logits = self.magnet(obs)[0]
            log_mu = torch.log_softmax(masked_logits(mu_logits.float(), masks), dim=1)
        return (pi * torch.where(masks, logp_all - log_mu, torch.zeros_like(logp_all))).sum(1)

    def update(self, between=None) -> dict[str, float]:
        """``n_epochs`` passes of minibatch PPO over the buffer; returns loss statistics.
        ``between`` (overlap.py), if given, is called before each minibatch."""
        import torch

        t0 = time.perf_counter()
        self._reset_magnet()
        ent_coef = self.ent_coef_now()
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate_now()
        B, s = self.buffer, self.s
        adv, returns = self.advantages()
        T, N = s.n_steps, s.n_envs
        dev = self.device
        obs = B.obs_in[:T].reshape(T * N, -1).to(dev)  # (already there: no copy)
        masks = B.masks_in[:T].reshape(T * N, -1).to(dev)
        actions, old_logp = B.actions.reshape(-1).to(dev), B.logp.reshape(-1).to(dev)
        adv, returns = adv.reshape(-1).to(dev), returns.reshape(-1).to(dev)
        # decoupled PPO (Hilton et al. 2022, "Batch size-invariance for policy optimization"):
        # data played by an older policy (--overlap) is clipped around a proximal policy and
        # reweighted by proximal / behaviour probabilities. The proximal policy of a sample is
        # the one that first sees it in this update (its first epoch's minibatch): no pass of
        # its own over the buffer, which would lengthen overlap's critical path by a sixth
        prox_logp = old_logp.clone() if self.decoupled else old_logp
        weights = torch.ones_like(old_logp) if self.decoupled else None
        names = ["policy_loss", "value_loss", "entropy", "clip_fraction", "approx_kl"] + (
            ["magnet_kl"] if s.magnet_coef > 0 else [])
        # the statistics add up on the device: one read at the end, not a wait per minibatch
        sums = torch.zeros(len(names), device=dev)
        n = 0
        for epoch in range(s.n_epochs):
            order = torch.randperm(T * N, generator=self.generator).to(dev)
            for start in range(0, T * N, s.batch_size):
                idx = order[start : start + s.batch_size]
                if between is not None:
                    between()
                with self._autocast():
                    logits, values = self.update_net(obs[idx])
                probs, logp_all, entropy = policy_terms(logits, masks[idx])
                logp = logp_all.gather(1, actions[idx, None])[:, 0]
                if weights is not None and epoch == 0:  # (the first visit: the proximal policy)
                    prox_logp[idx] = logp.detach()
                    weights[idx] = torch.exp(logp.detach() - old_logp[idx]).clamp_(
                        max=MAX_LAG_WEIGHT)
                a = adv[idx]
                if a.numel() > 1:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                ratio = torch.exp(logp - prox_logp[idx])  # (the masks' -1e8 stay finite)
                clipped = torch.clamp(ratio, 1 - s.clip_range, 1 + s.clip_range)
                surrogate = torch.min(a * ratio, a * clipped)
                if weights is not None:
                    surrogate = surrogate * weights[idx]
                policy_loss = -surrogate.mean()
                value_loss = torch.nn.functional.mse_loss(returns[idx], values.float()[:, 0])
                entropy_loss = -entropy.mean()
                loss = policy_loss + ent_coef * entropy_loss + s.vf_coef * value_loss
                if s.magnet_coef > 0:
                    magnet_kl = self._magnet_kl(probs, logp_all, obs[idx], masks[idx]).mean()
                    loss = loss + s.magnet_coef * magnet_kl
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), s.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():  # (approx_kl: sb3's estimator of KL(old || new))
                    log_ratio = logp.detach() - prox_logp[idx]
                    sums += torch.stack([x.float() for x in (
                        policy_loss, value_loss, -entropy_loss,
                        ((ratio - 1).abs() > s.clip_range).float().mean(),
                        ((log_ratio.exp() - 1) - log_ratio).mean(),
                        *([magnet_kl] if s.magnet_coef > 0 else []))])
                n += 1
        self.n_updates += s.n_epochs
        B.carry_over()
        self.seconds["update"] += time.perf_counter() - t0
        totals = zip(names, sums.tolist(), strict=True)
        return {**{k: v / n for k, v in totals}, "ent_coef": ent_coef}

    def predict(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The most probable legal action of every row (deterministic play)."""
        import torch

        obs = obs[:, :self.net.config["obs_size"]]  # (a version-2 observation holds version 1)
        with torch.no_grad(), self._autocast():
            logits = self.net(torch.as_tensor(obs).to(self.device))[0].float().cpu()
        return play_logits(logits, torch.as_tensor(masks)).argmax(1).numpy()


def torch_from(array: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(array))
