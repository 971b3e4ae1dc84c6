"""``LearnerBatch``: the one batch core under every batched env and the trainer.

``num_envs`` games in one 2-D int32 state array; in each, the learner holds one seat (fixed, or
drawn for each new game) and the other seats are played inside the batch by an opponent pool
(``core.opponent_pool``): compiled heuristics in the kernels (``engine.pool``), frozen policies
in one batched call per opponent turn. A finished or truncated game restarts at once, so every
row always waits on the learner. Framework-neutral: the SB3 ``VecEnv`` (``envs.sb3``), the
Gymnasium ``VectorEnv`` (``envs.vector``) and the trainer (``train.ppo``) are thin layers over
its public methods: ``reset``, ``checked_actions``, ``advance`` (or ``advance_compiled`` when
every opponent is compiled: one fused pass), ``observe``.

Bad input (an action that is not legal, an opponent policy that fails or answers an illegal
move) raises with the games named, and leaves every game as it was (``undo_on_error``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from machu_env.core.checks import (
    MAX_ENVS,
    action_array,
    check_bool,
    check_decisions,
    check_int,
    check_seed,
    refuse_illegal,
)
from machu_env.core.errors import OpponentError
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.opponent_pool import BatchPolicy, OpponentPool
from machu_env.core.reward_modes import check_reward_mode
from machu_env.engine import batch as K
from machu_env.engine import pool as O
from machu_env.engine.observation import OBS_SIZES
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS

DEFAULT_MAX_LEARNER_STEPS = 1000


class StepResult(NamedTuple):
    """What ``LearnerBatch.advance`` returns: per game ``rewards`` and ``dones``; the finished
    games ``ended`` (with ``won``), the truncated ones ``cut`` (their last learner observations
    ``cut_obs``, to bootstrap), and whom the learner met in each (``opponents``: the ended games,
    then the cut ones; an index into ``labels``, the opponents' names and ``mixed``)."""

    rewards: np.ndarray
    dones: np.ndarray
    ended: np.ndarray
    cut: np.ndarray
    won: np.ndarray
    opponents: np.ndarray
    cut_obs: np.ndarray
    labels: list[str]


class LearnerBatch:
    """``num_envs`` games of the learner against opponents drawn from a pool.

    Args:
        num_envs: number of games.
        num_players: 2 to 5.
        seed: seeds every game's own stream (``reset`` numbers its streams: every reset
            starts other games).
        pool: weights of ``random``, ``builder``, ``gold``, ``racer`` and ``self`` (the frozen
            snapshots, sharing the ``self`` weight); a string like ``"gold:1,self:1"`` or a
            mapping; missing members weigh 0.
        learner_seat: the learner's seat, or None to draw it for each new game.
        reward: terminal reward, ``"win"``, ``"rank"`` or ``"score"``.
        learning_game: the learning-game variant (R2.11).
        max_learner_steps: a game in which the learner has decided this many times ends as
            truncated with reward 0 (two policies that never stay would play for ever).
        max_decisions: so does a game of this many decisions (all players').
        observation: the observation version, 1, 2 or 3 (``engine.observation.OBS_SIZES``).
        head_start: the share of new games in which the learner starts holding one priest
            card, free (a training curriculum, ``engine.pool._head_start``; 0: the rules).
    """

    def __init__(self, num_envs: int, num_players: int = 2, seed: int = 0,
                 pool: Mapping[str, float] | str = "gold:1", learner_seat: int | None = None,
                 reward: str = "win", learning_game: bool = False,
                 max_learner_steps: int = DEFAULT_MAX_LEARNER_STEPS,
                 max_decisions: int = DEFAULT_MAX_DECISIONS, observation: int = 1,
                 head_start: float = 0.0) -> None:
        n = self.num_envs = check_int("num_envs", num_envs, 1, MAX_ENVS)
        self.num_players = check_int("num_players", num_players, 2, 5)
        if isinstance(observation, bool) or observation not in OBS_SIZES:
            raise ValueError(f"observation must be 1, 2 or 3 (the version), got {observation!r}")
        if isinstance(head_start, bool) or not isinstance(head_start, (int, float)) \
                or not 0 <= head_start <= 1:
            raise ValueError(f"head_start must be a share in [0, 1], got {head_start!r}")
        self.obs_size = OBS_SIZES[observation]
        self.fixed_seat = -1 if learner_seat is None else check_int(
            "learner_seat", learner_seat, 0, num_players - 1)
        self.mode = check_reward_mode(reward)
        self.learning_game = check_bool("learning_game", learning_game)
        self.max_decisions = check_decisions("max_decisions", max_decisions)
        self.max_learner_steps = check_decisions("max_learner_steps", max_learner_steps)
        self.head_start = int(round(head_start * O.PROB_SCALE))
        self.pool = OpponentPool(pool)
        self._seed = check_seed("seed", seed)
        self._resets = 0  # numbers the seed streams
        self.started = False
        self.states = np.zeros((n, L.STATE_SIZE), dtype=np.int32)
        self.seats = np.zeros(n, dtype=np.int32)
        self.kinds = np.full((n, 5), -1, dtype=np.int32)
        self._bufs = np.zeros((n, NUM_ACTIONS), dtype=np.int32)
        self._counts = np.zeros(n, dtype=np.int32)
        self._rngs = K.seed_streams(self._seed, n)
        self._learner_steps = np.zeros(n, dtype=np.int64)
        self._scratch = np.zeros((n, 5, 6), dtype=np.int32)
        self._score_rows = np.zeros((n, 5), dtype=np.float64)
        self._noise = np.zeros((n, NUM_ACTIONS), dtype=np.float64)
        self._terminal = np.zeros((n, self.obs_size), dtype=np.float32)
        self._won = np.zeros(n, dtype=np.int32)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._fused: tuple[np.ndarray, ...] | None = None  # advance_compiled's outputs
        self._turns: tuple[np.ndarray, ...] | None = None  # opponent_turns' outputs
        self._no_actions = np.empty(0, dtype=np.int32)
        self._backup: list[np.ndarray] = []
        self.undo_on_error = True  # a failed step restores every game (a trainer: off, no copy)

    # --- the pool -------------------------------------------------------------------------------
    def set_snapshots(self, snapshots: Sequence[BatchPolicy] | Any,
                      weights: Sequence[float] | None = None,
                      labels: Sequence[str] | None = None) -> None:
        """The frozen policies of the pool's ``self`` member, used by games started from now
        on (``OpponentPool.set_snapshots``)."""
        self.pool.set_snapshots(snapshots, weights, labels)

    def probabilities(self) -> dict[str, float]:
        """The chance of each opponent (``snapshot:k`` for the frozen policies)."""
        return self.pool.probabilities()

    @property
    def compiled_only(self) -> bool:
        """Whether every opponent, now and in the games to come, is played in compiled code
        (no frozen policy): then ``advance_compiled`` does the whole step in one pass."""
        return self.pool.compiled_only and not (self.kinds >= O.FIRST_POLICY).any()

    # --- start ----------------------------------------------------------------------------------
    def seed(self, seed: int) -> None:
        """The seed of the next ``reset`` (and of the resets after it)."""
        self._seed = check_seed("seed", seed)
        self._resets = 0

    def reset(self) -> None:
        """New games in every row, from the next numbered streams of the seed."""
        self.started = False
        self._rngs = K.seed_streams(self._seed, self.num_envs, self._resets)
        self._resets += 1
        self._restart(np.arange(self.num_envs))
        self.started = True

    # --- read -----------------------------------------------------------------------------------
    def observe(self, obs_out: np.ndarray, masks_out: np.ndarray) -> None:
        """Write every game's learner observation and legal mask into the given arrays
        (for instance the rows of a rollout buffer: no copy): ``obs_out`` float32 of shape
        (N, obs_size), ``masks_out`` bool of shape (N, NUM_ACTIONS), both C-contiguous and
        writable; ValueError otherwise (nothing is written)."""
        self._check_out("obs_out", obs_out, np.float32, self.obs_size)
        self._check_out("masks_out", masks_out, np.bool_, NUM_ACTIONS)
        self.observe_unchecked(obs_out, masks_out)

    def observe_unchecked(self, obs_out: np.ndarray, masks_out: np.ndarray) -> None:
        """``observe`` without the checks, for a caller whose arrays are built to fit (the
        trainer's rollout buffer): a wrong array here corrupts memory."""
        K.observe_seats(self.states, self.seats, obs_out)
        K.legal_mask(self._bufs, self._counts, masks_out)

    def _check_out(self, name: str, arr: Any, dtype: Any, width: int, rows: int = -1) -> None:
        shape = (self.num_envs if rows < 0 else rows, width)
        if not isinstance(arr, np.ndarray) or arr.dtype != dtype or arr.shape != shape \
                or not arr.flags.c_contiguous or not arr.flags.writeable:
            got = f"a {arr.dtype} array of shape {arr.shape}" if isinstance(arr, np.ndarray) \
                else type(arr).__name__
            raise ValueError(f"{name} must be a writable C-contiguous {np.dtype(dtype).name} "
                             f"array of shape {shape}; got {got}")

    def _games(self, games: Any) -> np.ndarray:
        """``games`` (game numbers, or a bool mask of all N games) as int64 row numbers, each
        in 0..N-1 once; ValueError otherwise."""
        arr = np.asarray(games)
        n = self.num_envs
        if arr.dtype == np.bool_ and arr.shape == (n,):
            return np.flatnonzero(arr).astype(np.int64)
        if arr.ndim != 1 or arr.dtype == np.bool_ or not (
                arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
            raise ValueError(f"games must be a bool mask of shape ({n},) or a 1-D integer array "
                             f"of game numbers 0..{n - 1}; got a {arr.dtype} array of shape "
                             f"{arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            raise ValueError(f"games must be game numbers in 0..{n - 1}; got "
                             f"{int(arr.min()) if arr.min() < 0 else int(arr.max())}")
        if np.unique(arr).size != arr.size:
            raise ValueError("games must name each game at most once")
        return arr.astype(np.int64)

    def observations(self) -> np.ndarray:
        """(N, obs_size) float32: a new array of the learners' observations."""
        out = np.empty((self.num_envs, self.obs_size), dtype=np.float32)
        K.observe_seats(self.states, self.seats, out)
        return out

    def action_masks(self) -> np.ndarray:
        """(N, NUM_ACTIONS) bool: a new array of the learner's legal actions in every game."""
        K.legal_mask(self._bufs, self._counts, self._mask)
        return self._mask.copy()

    def first_legal(self, games: np.ndarray) -> np.ndarray:
        """The lowest legal action id of each of ``games`` (a stand-in action)."""
        return self._bufs[self._games(games), 0].copy()

    def random_legal(self, rngs: np.ndarray, out: np.ndarray) -> None:
        """A uniformly random legal action per game into ``out`` (int32, shape (N,)), drawn
        from ``rngs`` (the caller's streams, as ``engine.rng.seed_streams`` makes them: no
        game changes)."""
        if not isinstance(rngs, np.ndarray) or rngs.dtype not in (np.uint64, np.int64) \
                or rngs.shape != (self.num_envs,) or not rngs.flags.writeable:
            raise ValueError(f"rngs must be a writable uint64 or int64 array of shape "
                             f"({self.num_envs},), one stream per game as seed_streams makes "
                             f"them")
        if not isinstance(out, np.ndarray) or out.dtype != np.int32 \
                or out.shape != (self.num_envs,) or not out.flags.writeable:
            raise ValueError(f"out must be a writable int32 array of shape ({self.num_envs},)")
        K.random_legal(self._bufs, self._counts, rngs, out)

    def terminal(self, games: np.ndarray) -> np.ndarray:
        """The last learner observations of the games ``games`` ended at the last step."""
        return self._terminal[self._games(games)].copy()

    def game(self, i: int) -> Game:
        """A ``Game`` copy of row ``i`` (for inspection and rendering)."""
        check_int("i", i, 0, self.num_envs - 1)
        return Game._from_arrays(self.num_players, None, self.learning_game, self.states[i],
                                 self._bufs[i], self._counts[i], [])

    def opponent_name(self, kind: int) -> str:
        return self.pool.name(kind)

    # --- advance --------------------------------------------------------------------------------
    def checked_actions(self, actions: Any) -> np.ndarray:
        """The learner's actions as int32; ValueError naming the games where one is not an
        action id or not legal (nothing changes)."""
        a = action_array(actions, self.num_envs, "actions")
        refuse_illegal(self._bufs, self._counts, a, "learner action", "use action_masks()")
        return a

    def advance(self, actions: Any, games: Any = None) -> StepResult:
        """One learner decision in every game (``actions``: a legal action id per game), the
        opponents' replies, and the restart of finished games; observations are read
        afterwards with ``observe``. ``games``: step only these game numbers (their actions
        are ``actions[games]``, the others' are ignored). ValueError naming the games where an
        id is out of range or not legal (nothing changes)."""
        every = np.arange(self.num_envs) if games is None else self._games(games)
        a = action_array(actions, self.num_envs, "actions")
        stepped = np.zeros(self.num_envs, dtype=np.bool_)
        stepped[every] = True
        self._check_legal(a, stepped)
        return self.advance_unchecked(a, every)

    def _check_legal(self, actions: np.ndarray, stepped: np.ndarray) -> None:
        """ValueError naming the stepped games whose action is not legal (no copy of rows)."""
        bad = np.zeros(self.num_envs, dtype=np.int8)
        K.illegal_games(self._bufs, self._counts, actions, bad)
        games = np.flatnonzero(bad.astype(np.bool_) & stepped)
        if games.size:
            shown = ", ".join(f"game {i}: {int(actions[i])}" for i in games[:10])
            raise ValueError(f"illegal learner action in {games.size} game(s): {shown}; use "
                             "action_masks()")

    def advance_unchecked(self, actions: np.ndarray, games: np.ndarray | None = None
                          ) -> StepResult:
        """``advance`` without the checks, for a caller whose actions are legal int32 ids by
        construction (the trainer samples under the mask; ``checked_actions`` checks): an id
        out of range here corrupts memory."""
        every = np.arange(self.num_envs) if games is None else games
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
        labels, table = self.pool.label_table(self._num_policies())
        result = StepResult(rewards, dones, ended, cut, self._won[ended].astype(bool),
                            self._opponent_labels(done_idx, table),
                            self._terminal[cut].copy(), labels)
        if done_idx.size:
            self._restart(done_idx)
        return result

    def advance_compiled(self, actions: np.ndarray, obs_out: np.ndarray,
                         masks_out: np.ndarray, active: np.ndarray | None = None
                         ) -> tuple[np.ndarray, ...]:
        """``advance`` and ``observe`` fused into one compiled pass, for a batch whose
        opponents are all compiled (``compiled_only``): (rewards, ended, cut, final
        observations, won), the last three per game (valid where ``ended | cut``; the arrays
        are reused by the next call). Games where ``active`` is False are observed, not
        stepped."""
        n = self.num_envs
        active = np.ones(n, dtype=np.bool_) if active is None else active
        if not isinstance(active, np.ndarray) or active.dtype != np.bool_ or active.shape != (n,):
            raise ValueError(f"active must be a bool array of shape ({n},)")
        actions = action_array(actions, n, "actions")
        self._check_legal(actions, active)
        self._check_out("obs_out", obs_out, np.float32, self.obs_size)
        self._check_out("masks_out", masks_out, np.bool_, NUM_ACTIONS)
        return self.advance_compiled_unchecked(actions, obs_out, masks_out, active)

    def advance_compiled_unchecked(self, actions: np.ndarray, obs_out: np.ndarray,
                                   masks_out: np.ndarray, active: np.ndarray) -> tuple:
        """``advance_compiled`` without the checks, for a caller whose actions passed
        ``checked_actions`` and whose arrays fit (the VectorEnv): else memory is corrupted."""
        if self._fused is None:
            self._fused = tuple(np.zeros(self.num_envs, dtype=t)
                                for t in (np.float32, np.bool_, np.bool_))
        rewards, ended, cut = self._fused
        O.step_learners(self.states, self._bufs, self._counts, self._rngs, self.seats,
                        self.kinds, O.HEURISTIC_WEIGHTS, self._noise, self.pool.cum, actions,
                        self._learner_steps, self.max_learner_steps, self.max_decisions,
                        self.fixed_seat, self.num_players, self.learning_game,
                        self.head_start, self._scratch, self._score_rows, self.mode, rewards,
                        ended, cut, self._terminal, self._won, obs_out, masks_out, active)
        return rewards, ended, cut, self._terminal, self._won

    # --- internals ------------------------------------------------------------------------------
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
        if self.pool.cum is None:
            self.pool.cumulative(0)  # raises: no opponent to draw yet
        games = games.astype(np.int64)
        while games.size:
            O.new_games(self.states, self._bufs, self._counts, self._rngs, self.seats,
                        self.kinds, self.pool.cum, games, self.fixed_seat, self.num_players,
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
        bank = self.pool.bank
        while True:
            n = O.opponent_turns(self.states, self._bufs, self._counts, self._rngs, self.seats,
                                 self.kinds, O.HEURISTIC_WEIGHTS, self._noise, idx, actions,
                                 flags, obs_all, mask_all, rows_all, which_all)
            if n == 0:
                return
            idx, obs, mask, which = rows_all[:n].copy(), obs_all[:n], mask_all[:n], which_all[:n]
            if bank is not None:  # every frozen policy in one batched call
                rows = self.states[idx] if getattr(bank, "wants_states", False) else None
                ask = functools.partial(_ask_bank, bank, which=which.copy(), rows=rows)
                actions = self._policy_actions(ask, "the snapshot bank", idx, obs, mask)
                continue
            actions = np.empty(n, dtype=np.int32)
            for k in np.unique(which):
                sel = np.flatnonzero(which == k)
                actions[sel] = self._policy_actions(self.pool.snapshots[k], self.pool.labels[k],
                                                    idx[sel], obs[sel], mask[sel])

    def _policy_actions(self, policy: BatchPolicy, name: str, games: np.ndarray,
                        obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Ask a batched opponent policy and check its answer (shape, ids, legality);
        OpponentError naming it otherwise."""
        seats = self.states[games, L.DECIDER]
        try:
            out = np.asarray(policy(obs, mask))
        except Exception as e:
            raise OpponentError(f"{name} raised {type(e).__name__}: {e} (no game was "
                                "changed)") from e
        try:
            actions = action_array(out, games.size, f"{name}'s answer")
        except ValueError as e:
            raise OpponentError(f"{e} (asked for {games.size} decisions; no game was "
                                "changed)") from None
        bad = np.flatnonzero(~mask[np.arange(games.size), actions])
        if bad.size:
            shown = ", ".join(f"game {games[k]} seat {seats[k]}: {actions[k]}"
                              for k in bad[:10])
            raise OpponentError(f"{name} chose illegal actions in {bad.size} game(s): {shown} "
                                "(no game was changed)")
        return actions

    def _state_arrays(self) -> list[np.ndarray]:
        """Every array a step changes (restored when an opponent policy fails)."""
        return [self.states, self._bufs, self._counts, self._rngs, self.seats, self.kinds,
                self._learner_steps]

    @contextlib.contextmanager
    def _undo_on_error(self) -> Iterator[None]:
        """On an exception inside the block, put every game back as it was (buffers reused)."""
        arrays = self._state_arrays() if self.undo_on_error else []
        if [b.shape for b in self._backup] != [a.shape for a in arrays]:
            self._backup = [a.copy() for a in arrays]
        else:
            for saved, a in zip(self._backup, arrays, strict=True):
                np.copyto(saved, a)
        try:
            yield
        except BaseException:
            for saved, a in zip(self._backup, arrays, strict=True):
                np.copyto(a, saved)
            raise


def _ask_bank(bank: Any, obs: np.ndarray, masks: np.ndarray, which: np.ndarray,
              rows: np.ndarray | None) -> np.ndarray:
    return bank(obs, masks, which) if rows is None else bank(obs, masks, which, rows)
