"""``PoolVecEnv``: the batched SB3 ``VecEnv`` with an opponent pool, for self-play training.

Each game seats the learner and, at every other seat, an opponent drawn for that game from the
pool: ``random``, ``builder``, ``gold``, ``racer`` (compiled, played inside the batch kernels) or
a frozen snapshot of the learner (torch policies, played in batches from Python: a list of batched
policies, one call each, or a ``PolicyBank`` that plays all of them in one forward pass).
Everything else is as in ``machu_env.MachuPicchuVecEnv``: terminal rewards,
``action_masks()``, automatic restarts. A finished game's info also says whom the learner met
(``"opponent"``) and whether it won. ``advance`` + ``observe`` are the trainer's lean path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from machu_env.core.checks import check_decisions
from machu_env.core.game import DEFAULT_MAX_DECISIONS
from machu_env.engine import batch as K
from machu_env.envs import opponents as O
from machu_env.envs.sb3 import MachuPicchuVecEnv
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS

BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


class StepResult(NamedTuple):
    """What ``PoolVecEnv.advance`` returns: per game ``rewards`` and ``dones``; the finished
    games ``ended`` (with ``won``), the truncated ones ``cut`` (with their last learner
    observations ``cut_obs``, for bootstrapping), and whom the learner met in each of them
    (``opponents``: the ended games, then the cut ones; an index into ``labels``, the opponents'
    names and ``mixed``, so that the trainer counts games per opponent without a loop)."""

    rewards: np.ndarray
    dones: np.ndarray
    ended: np.ndarray
    cut: np.ndarray
    won: np.ndarray
    opponents: np.ndarray
    cut_obs: np.ndarray
    labels: list[str]
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


class PoolVecEnv(MachuPicchuVecEnv):
    """``num_envs`` games of the learner against opponents drawn from a pool.

    Args:
        num_envs, num_players, seed, learner_seat, reward, learning_game: as in
            ``MachuPicchuVecEnv``.
        pool: weights of ``random``, ``builder``, ``gold``, ``racer`` and ``self`` (the frozen
            snapshots, sharing the ``self`` weight equally); missing members weigh 0.
        max_learner_steps: a game in which the learner has decided this many times ends as
            truncated with reward 0 (two policies that never stay would play for ever).
        max_decisions: so does a game of this many decisions (all players').
        head_start: the share of new games in which the learner starts holding one priest
            card, free (a training curriculum, ``opponents._head_start``; 0: the rules).
    """

    def __init__(self, num_envs: int, num_players: int = 2, seed: int = 0,
                 pool: Mapping[str, float] | str = "gold:1", learner_seat: int | None = None,
                 reward: str = "win", learning_game: bool = False,
                 max_learner_steps: int = 1000,
                 max_decisions: int = DEFAULT_MAX_DECISIONS, observation: int = 1,
                 head_start: float = 0.0) -> None:
        if isinstance(head_start, bool) or not isinstance(head_start, (int, float)) \
                or not 0 <= head_start <= 1:
            raise ValueError(f"head_start must be a share in [0, 1], got {head_start!r}")
        super().__init__(num_envs, num_players, seed, learner_seat, None, reward, learning_game,
                         max_decisions, observation)
        self.head_start = int(round(head_start * O.PROB_SCALE))
        self.pool = parse_pool(pool) if isinstance(pool, str) else check_pool(pool)
        self.max_learner_steps = check_decisions("max_learner_steps", max_learner_steps)
        self.snapshots: list[BatchPolicy] = []
        self.bank: Any = None  # a PolicyBank standing for all snapshots, or None
        self.kinds = np.full((self.num_envs, 5), -1, dtype=np.int32)
        self._noise = np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.float64)
        self._won = np.zeros(self.num_envs, dtype=np.int32)
        self._learner_steps = np.zeros(self.num_envs, dtype=np.int64)
        self._fused: tuple[np.ndarray, ...] | None = None  # advance_compiled's outputs
        self._turns: tuple[np.ndarray, ...] | None = None  # opponent_turns' outputs (reused)
        self._no_actions = np.empty(0, dtype=np.int32)
        self._cum = self._cumulative(0) if self._drawable(0) else None  # None: self-play only,
        # waiting for its first snapshot (set_snapshots) before reset()

    # --- the pool -------------------------------------------------------------------------------
    def set_snapshots(self, snapshots: Sequence[BatchPolicy] | Any,
                      weights: Sequence[float] | None = None) -> None:
        """Replace the frozen policies (used by games started from now on): a list of batched
        policies ``(observations, action_masks) -> actions``, or a bank (``bank.PolicyBank``:
        ``num_policies`` members called together as ``bank(obs, masks, which)``). On bad input
        (something not callable, or a pool left empty) nothing changes. ``weights``: the
        members' relative shares of the ``self`` weight (default: equal)."""
        if hasattr(snapshots, "num_policies"):
            if not callable(snapshots):
                raise ValueError("a snapshot bank must be callable as bank(obs, masks, which)")
            self._cum = self._cumulative(int(snapshots.num_policies), weights)
            self.bank, self.snapshots = snapshots, []
            return
        if isinstance(snapshots, (str, bytes)) or not hasattr(snapshots, "__iter__"):
            raise ValueError(f"snapshots must be a list of batched policies (observations, "
                             f"action_masks) -> actions, or a PolicyBank; got {snapshots!r:.60}")
        snapshots = list(snapshots)
        for k, policy in enumerate(snapshots):
            if not callable(policy):
                raise ValueError(f"snapshot {k} is not callable: a snapshot is a batched policy "
                                 "(observations, action_masks) -> actions")
        self._cum = self._cumulative(len(snapshots), weights)
        self.bank, self.snapshots = None, snapshots

    @property
    def num_snapshots(self) -> int:
        return int(self.bank.num_policies) if self.bank is not None else len(self.snapshots)

    def probabilities(self) -> dict[str, float]:
        """The chance of each opponent (``snapshot:k`` for the frozen policies)."""
        names = [*O.COMPILED_NAMES, *(f"snapshot:{k}" for k in range(self.num_snapshots))]
        p = np.diff(np.concatenate([[0], self._cum])) / O.PROB_SCALE
        return dict(zip(names, p.tolist(), strict=True))

    def _cumulative(self, k: int = 0, shares: Sequence[float] | None = None) -> np.ndarray:
        """Cumulative integer draw probabilities of the kinds, with ``k`` snapshots (sharing
        the ``self`` weight by ``shares``, default equally)."""
        w = [self.pool.get(name, 0.0) for name in O.COMPILED_NAMES]
        if shares is not None:
            shares = [float(x) for x in shares]
            if len(shares) != k or min(shares, default=0) < 0 or not sum(shares) > 0 \
                    or not np.isfinite(sum(shares)):
                raise ValueError(f"give {k} snapshot weights, each >= 0, with a positive sum")
        if k:
            share = np.asarray(shares if shares is not None else [1.0] * k, dtype=np.float64)
            w += list(self.pool.get("self", 0.0) * share / share.sum())
        w = np.asarray(w, dtype=np.float64)
        if not self._drawable(k):
            raise ValueError("the opponent pool is empty: 'self' has weight but there are no "
                             "snapshots yet, and every other member weighs 0")
        cum = np.rint(np.cumsum(w / w.sum()) * O.PROB_SCALE).astype(np.int64)
        cum[-1] = O.PROB_SCALE
        return cum

    def _drawable(self, k: int) -> bool:
        """Whether some opponent can be drawn with ``k`` snapshots."""
        compiled = sum(self.pool.get(name, 0.0) for name in O.COMPILED_NAMES)
        return compiled > 0 or (k > 0 and self.pool.get("self", 0.0) > 0)

    def opponent_name(self, kind: int) -> str:
        if kind < O.FIRST_POLICY:
            return O.COMPILED_NAMES[kind]
        names = getattr(self.bank, "names", None)
        return names[kind - O.FIRST_POLICY] if names else "self"

    # --- VecEnv API -----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        self._new_streams()
        every = np.arange(self.num_envs)
        self._restart(every)
        self._started = True
        return self._observe()

    def step_wait(self):
        a = self._pop_actions()
        r = self.advance(a)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for k, i in enumerate(r.ended):
            infos[i] = {"terminal_observation": self._terminal[i].copy(),
                        "TimeLimit.truncated": False, "opponent": r.labels[r.opponents[k]],
                        "won": bool(r.won[k])}
        for k, i in enumerate(r.cut):
            infos[i] = {"terminal_observation": r.cut_obs[k], "TimeLimit.truncated": True,
                        "opponent": r.labels[r.opponents[r.ended.size + k]],
                        "won": False}
        return self._observe(), r.rewards, r.dones, infos

    def advance(self, actions: np.ndarray, games: np.ndarray | None = None) -> StepResult:
        """One learner decision in every game (``actions``: legal int32 ids, as checked by
        ``step_async``), the opponents' replies, and the restart of finished games. The
        trainer's lean path: no info dicts, observations read afterwards with ``observe``.
        ``games``: step only these (their actions are ``actions[games]``)."""
        every = np.arange(self.num_envs) if games is None else np.asarray(games, np.int64)
        with self._undo_on_error():  # a snapshot that fails leaves every game as it was
            K.step_some(self.states, self._bufs, self._counts, every, actions[every])
            self._learner_steps[every] += 1
            self._opponents_move(every)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        ended = np.flatnonzero(self._counts == 0)
        O.finish_games(self.states, self.seats, ended, self._scratch, self._score_rows,
                       self.mode, rewards, self._terminal, self._won)
        cut = np.flatnonzero((self._counts > 0) & ((self._learner_steps >= self.max_learner_steps)
                                                   | (self.states[:, L.DECISIONS]
                                                      >= self.max_decisions)))
        if cut.size:  # (self._terminal[cut] would be a copy: write, then store)
            cut_obs = np.empty((cut.size, self.obs_size), dtype=np.float32)
            K.observe_seats(self.states[cut], self.seats[cut], cut_obs)
            self._terminal[cut] = cut_obs
        done_idx = np.concatenate([ended, cut])
        dones = np.zeros(self.num_envs, dtype=np.bool_)
        dones[done_idx] = True
        labels, table = self._label_table()
        result = StepResult(rewards, dones, ended, cut, self._won[ended].astype(bool),
                            self._opponent_labels(done_idx, table),
                            self._terminal[cut].copy(), labels)
        if done_idx.size:
            self._restart(done_idx)
        return result

    @property
    def compiled_only(self) -> bool:
        """Whether every opponent, now and in the games to come, is played in compiled code
        (no frozen policy): then ``advance_compiled`` can do the whole step in one pass."""
        return (self._cum is not None and int(self._cum[O.FIRST_POLICY - 1]) == O.PROB_SCALE
                and not (self.kinds >= O.FIRST_POLICY).any())

    def advance_compiled(self, actions: np.ndarray, obs_out: np.ndarray,
                         masks_out: np.ndarray, active: np.ndarray | None = None
                         ) -> tuple[np.ndarray, ...]:
        """``advance`` and ``observe`` fused into one compiled pass, for a batch whose
        opponents are all compiled (``compiled_only``): (rewards, ended, cut, final
        observations, won), the last three per game (valid where ``ended | cut``). Games
        where ``active`` is False (default: none) are observed, not stepped."""
        n = self.num_envs
        if active is None:
            active = np.ones(n, dtype=np.bool_)
        if self._fused is None:
            self._fused = (np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.bool_),
                           np.zeros(n, dtype=np.bool_))
        rewards, ended, cut = self._fused
        O.step_learners(self.states, self._bufs, self._counts, self._rngs, self.seats,
                        self.kinds, O.HEURISTIC_WEIGHTS, self._noise, self._cum, actions,
                        self._learner_steps, self.max_learner_steps, self.max_decisions,
                        self.fixed_seat, self.num_players, self.learning_game,
                        self.head_start, self._scratch,
                        self._score_rows, self.mode, rewards, ended, cut, self._terminal,
                        self._won, obs_out, masks_out, active)
        return rewards, ended, cut, self._terminal, self._won

    def observe(self, obs_out: np.ndarray, masks_out: np.ndarray) -> None:
        """Write every game's learner observation and legal mask into the given arrays
        (for instance the rows of a rollout buffer: no copy)."""
        K.observe_seats(self.states, self.seats, obs_out)
        K.legal_mask(self._bufs, self._counts, masks_out)

    # --- internals ------------------------------------------------------------------------------
    def _state_arrays(self) -> list[np.ndarray]:
        return [*super()._state_arrays(), self.kinds, self._learner_steps]

    def _ask_bank(self, obs, masks, which, rows):
        return self.bank(obs, masks, which) if rows is None else self.bank(obs, masks, which,
                                                                           rows)

    def _label_table(self) -> tuple[list[str], np.ndarray]:
        """(labels, table): the opponents' distinct names and ``mixed`` last; ``table[kind]``
        the label index of each opponent kind (the frozen policies by their bank names)."""
        names = [self.opponent_name(k) for k in range(O.FIRST_POLICY + self._num_policies())]
        labels = list(dict.fromkeys(names)) + ["mixed"]
        return labels, np.array([labels.index(n) for n in names], dtype=np.int64)

    def _num_policies(self) -> int:
        return int(self.kinds.max(initial=O.FIRST_POLICY - 1)) - O.FIRST_POLICY + 1

    def _opponent_labels(self, games: np.ndarray, table: np.ndarray) -> np.ndarray:
        """Whom the learner meets in each of ``games``: the index of one opponent name in the
        labels, or of ``mixed`` (the last) where its opponents differ."""
        kinds = self.kinds[games, : self.num_players]
        other = np.arange(self.num_players)[None, :] != self.seats[games][:, None]
        ids = table[np.where(other, kinds, 0)]
        low = np.where(other, ids, table.size).min(axis=1, initial=table.size)
        high = np.where(other, ids, -1).max(axis=1, initial=-1)
        return np.where(low == high, low, table.max(initial=-1) + 1)

    def _restart(self, games: np.ndarray) -> None:
        """New games in ``games``, played until the learner decides (restarting any game the
        opponents finish alone)."""
        if self._cum is None:
            self._cumulative(0)  # raises: no opponent to draw yet
        games = games.astype(np.int64)
        while games.size:
            O.new_games(self.states, self._bufs, self._counts, self._rngs, self.seats,
                        self.kinds, self._cum, games, self.fixed_seat, self.num_players,
                        self.learning_game, self.head_start)
            self._learner_steps[games] = 0
            self._opponents_move(games)
            games = games[self._counts[games] == 0]

    def _opponents_move(self, games: np.ndarray) -> None:
        """Every opponent moves in ``games`` until the learner decides or the game ends: one
        compiled pass per round (``opponent_turns``: the compiled opponents' moves, then the
        observations and masks of the games waiting on a frozen policy, written in place),
        then one call of the bank (or of each snapshot) for all of them."""
        n_max = self.num_envs
        if self._turns is None:
            self._turns = (np.zeros(n_max, np.bool_), np.empty((n_max, self.obs_size), np.float32),
                           np.zeros((n_max, NUM_ACTIONS), np.bool_), np.empty(n_max, np.int64),
                           np.empty(n_max, np.int64))
        flags, obs_all, mask_all, rows_all, which_all = self._turns
        idx, actions = games.astype(np.int64), self._no_actions
        while True:
            n = O.opponent_turns(self.states, self._bufs, self._counts, self._rngs, self.seats,
                                 self.kinds, O.HEURISTIC_WEIGHTS, self._noise, idx, actions,
                                 flags, obs_all, mask_all, rows_all, which_all)
            if n == 0:
                return
            idx, obs, mask, which = rows_all[:n].copy(), obs_all[:n], mask_all[:n], which_all[:n]
            if self.bank is not None:  # every frozen policy in one batched call
                rows = self.states[idx] if getattr(self.bank, "wants_states", False) else None
                ask = functools.partial(self._ask_bank, which=which.copy(), rows=rows)
                actions = self._policy_actions(ask, "the snapshot bank", idx, obs, mask)
                continue
            actions = np.empty(n, dtype=np.int32)
            for k in np.unique(which):
                sel = np.flatnonzero(which == k)
                actions[sel] = self._policy_actions(self.snapshots[k], f"snapshot {k}",
                                                    idx[sel], obs[sel], mask[sel])
