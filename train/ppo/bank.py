"""Frozen opponents played in one batched forward pass: a ``PolicyBank``.

During a training step the learner's games wait on many frozen policies at once (the run's
snapshots, exploiters, a probed agent). Evaluating each in its own small batch costs one
round trip through the env per policy (observations, masks, checks); the bank answers every
waiting game in one call: it stacks the actors' weights into ``(K, in, out)`` tensors, runs
one chain of matrix products per member present, masks the illegal actions and samples
(Gumbel-max with the bank's seeded generator) or, for a deterministic member, takes the most
probable legal action. Only the actor is evaluated, in float32 (small batches gain nothing
from bfloat16).

A bank is called as ``bank(obs, masks, which)``: ``which[k]`` is the member deciding row ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from machu_env.agents.masking import masked_logits

# rows x members up to which every member evaluates every row (one batched chain, fewest
# calls); beyond, one chain per member present: one chain per member is as fast or faster from
# 16 on (benchmarks/bank_paths.py), and a larger bound makes every member compute every row
BROADCAST_ROWS = 16


class PolicyBank:
    """Frozen actor networks (``PolicyNet`` s of one shape) evaluated together.

    Args:
        nets: the members, in order (``which`` indexes them).
        deterministic: per member (or for all): play the most probable legal action instead of
            sampling the masked policy.
        temperatures: per member, instead of ``deterministic``: 0 plays the most probable
            legal action, T > 0 samples from softmax(logits / T) (an agent file's ``play``).
        weights: the members' draw shares when the bank stands for one population agent
            (``LearnerBatch.set_snapshots(bank, weights=bank.weights)``); None: equal.
        seed: the sampling generator's seed.
        precision: accepted for symmetry with the learner; the bank computes in float32.
        names: a label per member (the training env reports whom the learner met).
    """

    def __init__(self, nets: Sequence, deterministic: bool | Sequence[bool] = False,
                 seed: int = 0, precision: str = "fp32",
                 names: Sequence[str] | None = None,
                 temperatures: Sequence[float] | None = None,
                 weights: Sequence[float] | None = None) -> None:
        import torch

        if not nets:
            raise ValueError("a policy bank needs at least one network")
        shapes = {repr(n.config) for n in nets}
        if len(shapes) != 1:
            raise ValueError(f"the bank's networks differ in shape: {sorted(shapes)}")
        self.config = nets[0].config
        self.activation = {"tanh": torch.tanh, "relu": torch.relu}[self.config["activation"]]
        depth = len(nets[0].actor_layers())  # (a shared trunk, the policy head, the output)
        self.layers = [self._stack(nets, lambda n, j=j: n.actor_layers()[j])
                       for j in range(depth)]
        det = [deterministic] * len(nets) if isinstance(deterministic, bool) else deterministic
        if len(det) != len(nets):
            raise ValueError("give one deterministic flag per network")
        temps = [0.0 if d else 1.0 for d in det] if temperatures is None else temperatures
        if len(temps) != len(nets) or any(not (t == 0 or 0.01 <= t <= 100) for t in temps):
            raise ValueError("give one temperature per network: 0 (argmax) or in [0.01, 100]")
        self.temperatures = torch.tensor([float(t) for t in temps])
        self.deterministic = self.temperatures == 0
        alike = {float(t) for t in temps}
        self.uniform_temperature = alike.pop() if len(alike) == 1 else None
        self.nets = list(nets)
        self.weights = None if weights is None else [float(w) for w in weights]
        self.num_policies = len(nets)
        self.seed = int(seed)  # (rollout workers seed their own copies from it)
        self.generator = torch.Generator().manual_seed(int(seed))
        self.precision = precision
        self.names = list(names) if names is not None else ["self"] * len(nets)
        if len(self.names) != len(nets):
            raise ValueError("give one name per network")

    @staticmethod
    def _stack(nets, layer_of):
        import torch

        with torch.no_grad():
            w = torch.stack([layer_of(n).weight.detach().float().cpu().t()
                             for n in nets]).contiguous()
            b = torch.stack([layer_of(n).bias.detach().float().cpu() for n in nets]).unsqueeze(1)
        return w, b

    def logits(self, obs: np.ndarray, which: np.ndarray):
        """(rows, num_actions) float32 logits, row ``k`` by member ``which[k]``. Few rows:
        every member computes every row in one batched chain (``baddbmm``; fewest framework
        calls); more rows: one chain of matrix products per member present."""
        import torch

        x_all = torch.from_numpy(obs)
        if obs.shape[0] * self.num_policies <= BROADCAST_ROWS:  # few rows: every member on
            x = x_all.expand(self.num_policies, -1, -1)  # every row, in one batched chain
            with torch.no_grad():
                for j, (w, b) in enumerate(self.layers):
                    x = torch.baddbmm(b, x, w)
                    if j < len(self.layers) - 1:
                        x = self.activation(x)
            return x[torch.from_numpy(which), torch.arange(obs.shape[0])]
        present = np.flatnonzero(np.bincount(which, minlength=self.num_policies))
        out = None
        with torch.no_grad():
            for k in present:
                rows = None if present.size == 1 else torch.from_numpy(np.flatnonzero(which == k))
                x = x_all if rows is None else x_all.index_select(0, rows)
                for j, (w, b) in enumerate(self.layers):
                    x = torch.addmm(b[k, 0], x, w[k])
                    if j < len(self.layers) - 1:
                        x = self.activation(x)
                if rows is None:
                    return x
                if out is None:
                    out = torch.empty((obs.shape[0], x.shape[1]))
                out.index_copy_(0, rows, x)
        return out

    def __call__(self, obs: np.ndarray, masks: np.ndarray, which: np.ndarray) -> np.ndarray:
        import torch

        which = np.asarray(which, dtype=np.int64)
        obs = np.asarray(obs, dtype=np.float32)[:, :self.config["obs_size"]]  # v1 reads a prefix
        logits = self.logits(obs, which)
        mask = torch.from_numpy(np.asarray(masks, dtype=np.bool_))
        if self.uniform_temperature is not None:  # every member alike: fewer tensor calls,
            return self._alike(logits, mask)  # the same draws and actions as below
        t = self.temperatures[torch.from_numpy(which)]
        scaled = logits / torch.where(t > 0, t, torch.ones_like(t))[:, None]
        logits = masked_logits(logits, mask)
        scaled = masked_logits(scaled, mask)  # masked after the scaling
        u = torch.rand(logits.shape, generator=self.generator).clamp_(1e-20, 1.0)
        sampled = torch.argmax(scaled - torch.log(-torch.log(u)), dim=1)
        greedy = torch.argmax(logits, dim=1)
        return torch.where(t == 0, greedy, sampled).numpy()

    def _alike(self, logits, mask) -> np.ndarray:
        """Every member plays at the same temperature T: argmax (T = 0) or Gumbel-max sampling
        of softmax(logits / T) with the general path's draws (the same actions)."""
        import torch

        t = self.uniform_temperature
        if t == 0:  # (no draw: a bank of argmax members never samples)
            return torch.argmax(masked_logits(logits, mask), dim=1).numpy()
        scaled = masked_logits(logits if t == 1 else logits / self.temperatures[:1], mask)
        u = torch.rand(logits.shape, generator=self.generator).clamp_(1e-20, 1.0)
        return torch.argmax(scaled - torch.log(-torch.log(u)), dim=1).numpy()
