"""The opponent pool of a learner batch: who sits at the seats the learner does not hold.

A pool weighs the compiled opponents (``random``, ``builder``, ``gold``, ``racer``: played inside
the batch kernels, ``engine.pool``) and ``self``, the frozen policies (torch snapshots played in
batches from Python: a list of batched policies, one call each, or a bank that plays all of them
in one forward pass). The weights become integer cumulative probabilities that the kernels draw
from each game's own generator, so a run depends only on its seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from machu_env.engine import pool as O

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
POOL_MEMBERS = (*O.COMPILED_NAMES, "self")


def parse_pool(text: str) -> dict[str, float]:
    """``"random:0.05,builder:0.2,gold:0.45,self:0.3"`` -> weights (checked, not normalised)."""
    if not isinstance(text, str):
        raise ValueError(f"the pool must be a string like 'gold:1,self:1' or a mapping, got "
                         f"{text!r}")
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, sep, value = part.strip().partition(":")
        if not sep or name not in POOL_MEMBERS:
            raise ValueError(f"bad pool entry {part.strip()!r}: expected name:weight with name "
                             f"in {', '.join(POOL_MEMBERS)}")
        if name in weights:
            raise ValueError(f"pool member {name!r} is given twice; give each member once")
        try:
            weights[name] = float(value)
        except ValueError:
            raise ValueError(f"bad pool weight {value!r} for {name}: expected a number") from None
    return check_pool(weights)


def check_pool(weights: Mapping[str, float]) -> dict[str, float]:
    """The pool weights as a dict; ValueError for unknown members or impossible weights (each a
    finite real number >= 0, not a bool; a positive, finite total)."""
    if not isinstance(weights, Mapping):
        raise ValueError(f"the pool must be a mapping name -> weight or a string like "
                         f"'gold:1,self:1', got {weights!r}")
    unknown = sorted(map(repr, set(weights) - set(POOL_MEMBERS)))
    if unknown:
        raise ValueError(f"unknown pool members {', '.join(unknown)}; allowed: "
                         f"{', '.join(POOL_MEMBERS)}")
    for name, w in weights.items():
        real = isinstance(w, (int, float, np.integer, np.floating))
        if not real or isinstance(w, (bool, np.bool_)) or not np.isfinite(w) or w < 0:
            raise ValueError(f"pool weight of {name} must be a finite number >= 0, got {w!r}")
    total = sum(float(w) for w in weights.values())
    if not np.isfinite(total):
        raise ValueError(f"the pool weights add up to {total}: give smaller weights (only "
                         "their ratios matter)")
    if total <= 0:
        raise ValueError("the pool needs at least one member with a positive weight")
    return {name: float(w) for name, w in weights.items()}


class OpponentPool:
    """The weights of the pool's members and the frozen policies standing for ``self``.

    ``cum`` holds the cumulative integer draw probabilities of the kinds (the compiled ones,
    then one per frozen policy), or None while ``self`` is the only member with weight and no
    policy is set yet.
    """

    def __init__(self, pool: Mapping[str, float] | str) -> None:
        self.weights = parse_pool(pool) if isinstance(pool, str) else check_pool(pool)
        self.snapshots: list[BatchPolicy] = []
        self.labels: list[str] = []  # how errors name each snapshot
        self.bank: Any = None  # a PolicyBank standing for all snapshots, or None
        self.cum = self.cumulative(0) if self.drawable(0) else None

    def set_snapshots(self, snapshots: Sequence[BatchPolicy] | Any,
                      weights: Sequence[float] | None = None,
                      labels: Sequence[str] | None = None) -> None:
        """Replace the frozen policies: a list of batched policies ``(observations,
        action_masks) -> actions``, or a bank (``num_policies`` members called together as
        ``bank(obs, masks, which)``). ``weights``: the members' relative shares of the ``self``
        weight (default: equal); ``labels``: how errors name the listed policies (default
        ``snapshot k``). On bad input nothing changes."""
        if hasattr(snapshots, "num_policies"):
            if not callable(snapshots):
                raise ValueError("a snapshot bank must be callable as bank(obs, masks, which)")
            self.cum = self.cumulative(int(snapshots.num_policies), weights)
            self.bank, self.snapshots = snapshots, []
            return
        if isinstance(snapshots, (str, bytes)) or not hasattr(snapshots, "__iter__"):
            raise ValueError(f"snapshots must be a list of batched policies (observations, "
                             f"action_masks) -> actions, or a PolicyBank; got {snapshots!r:.60}")
        snapshots = list(snapshots)
        if labels is not None and (isinstance(labels, str) or len(labels) != len(snapshots)):
            raise ValueError(f"give one label per snapshot ({len(snapshots)}), got {labels!r:.60}")
        for k, policy in enumerate(snapshots):
            if not callable(policy):
                raise ValueError(f"snapshot {k} is not callable: a snapshot is a batched policy "
                                 "(observations, action_masks) -> actions")
        self.cum = self.cumulative(len(snapshots), weights)
        self.bank, self.snapshots = None, snapshots
        self.labels = list(labels) if labels is not None else \
            [f"snapshot {k}" for k in range(len(snapshots))]

    @property
    def num_snapshots(self) -> int:
        return int(self.bank.num_policies) if self.bank is not None else len(self.snapshots)

    @property
    def compiled_only(self) -> bool:
        """Whether every kind drawn from now on is compiled (no frozen policy has weight)."""
        return self.cum is not None and int(self.cum[O.FIRST_POLICY - 1]) == O.PROB_SCALE

    def probabilities(self) -> dict[str, float]:
        """The chance of each opponent (``snapshot:k`` for the frozen policies)."""
        names = [*O.COMPILED_NAMES, *(f"snapshot:{k}" for k in range(self.num_snapshots))]
        cum = self.cum if self.cum is not None else self.cumulative(0)
        p = np.diff(np.concatenate([[0], cum])) / O.PROB_SCALE
        return dict(zip(names, p.tolist(), strict=True))

    def cumulative(self, k: int = 0, shares: Sequence[float] | None = None) -> np.ndarray:
        """Cumulative integer draw probabilities of the kinds, with ``k`` snapshots (sharing
        the ``self`` weight by ``shares``, default equally); ValueError if none can be drawn."""
        w = [self.weights.get(name, 0.0) for name in O.COMPILED_NAMES]
        if shares is not None:
            shares = [float(x) for x in shares]
            if len(shares) != k or min(shares, default=0) < 0 or not sum(shares) > 0 \
                    or not np.isfinite(sum(shares)):
                raise ValueError(f"give {k} snapshot weights, each >= 0, with a positive sum")
        if k:
            share = np.asarray(shares if shares is not None else [1.0] * k, dtype=np.float64)
            w += list(self.weights.get("self", 0.0) * share / share.sum())
        if not self.drawable(k):
            raise ValueError("the opponent pool is empty: 'self' has weight but there are no "
                             "snapshots yet, and every other member weighs 0")
        w = np.asarray(w, dtype=np.float64)
        cum = np.rint(np.cumsum(w / w.sum()) * O.PROB_SCALE).astype(np.int64)
        cum[-1] = O.PROB_SCALE
        return cum

    def drawable(self, k: int) -> bool:
        """Whether some opponent can be drawn with ``k`` snapshots."""
        compiled = sum(self.weights.get(name, 0.0) for name in O.COMPILED_NAMES)
        return compiled > 0 or (k > 0 and self.weights.get("self", 0.0) > 0)

    def name(self, kind: int) -> str:
        """The opponent of kind ``kind``: a compiled one's name, a bank member's, or ``self``."""
        if kind < O.FIRST_POLICY:
            return O.COMPILED_NAMES[kind]
        names = getattr(self.bank, "names", None)
        return names[kind - O.FIRST_POLICY] if names else "self"

    def label_table(self, num_policies: int) -> tuple[list[str], np.ndarray]:
        """(labels, table): the opponents' distinct names and ``mixed`` last; ``table[kind]``
        the label index of each opponent kind (the frozen policies by their bank names)."""
        names = [self.name(k) for k in range(O.FIRST_POLICY + num_policies)]
        labels = list(dict.fromkeys(names)) + ["mixed"]
        return labels, np.array([labels.index(n) for n in names], dtype=np.int64)
