"""The batch core's opponents' turns: one compiled pass per round (``pool.opponent_turns``)
and the bank's lean path for members that play alike must play exactly the games of the
straightforward loop they replaced (compiled opponents, then each waiting game observed, masked
and stepped one kernel at a time)."""

from __future__ import annotations

import numpy as np
import pytest

from machu_env.agents.policy_file import net_config, new_net
from machu_env.core.learner_batch import LearnerBatch
from machu_env.engine import batch as K
from machu_env.engine import pool as O
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.train.ppo.bank import PolicyBank


def reference_opponents_move(env: LearnerBatch, games: np.ndarray) -> None:
    """The loop of numpy gathers and single-job kernels that ``opponent_turns`` fuses."""
    games = games.astype(np.int64)
    while True:
        O.compiled_until_stop(env.states, env._bufs, env._counts, env._rngs, env.seats,
                              env.kinds, O.HEURISTIC_WEIGHTS, env._noise, games)
        deciders = env.states[games, L.DECIDER]
        waiting = games[(env._counts[games] > 0) & (deciders != env.seats[games])]
        if waiting.size == 0:
            return
        kinds = env.kinds[waiting, env.states[waiting, L.DECIDER]]
        obs = np.empty((waiting.size, env.obs_size), dtype=np.float32)
        K.observe_deciders(env.states[waiting], obs)
        mask = np.zeros((waiting.size, NUM_ACTIONS), dtype=np.bool_)
        K.legal_mask(env._bufs[waiting], env._counts[waiting], mask)
        actions = env.pool.bank(obs, mask, (kinds - O.FIRST_POLICY).astype(np.int64))
        K.step_some(env.states, env._bufs, env._counts, waiting, actions.astype(np.int32))
        games = waiting


def bank_of(players: int, members: int, temperatures=None) -> PolicyBank:
    nets = [new_net(net_config([32, 32], observation=2), seed) for seed in range(members)]
    return PolicyBank(nets, seed=3, temperatures=temperatures)


@pytest.mark.parametrize("players,pool,members", [
    (2, "gold:0.3,builder:0.2,self:0.5", 2),
    (3, "random:0.2,racer:0.2,self:0.6", 3),
])
def test_the_fused_opponent_turns_play_the_games_of_the_plain_loop(players, pool, members):
    fused = LearnerBatch(32, players, seed=9, pool=pool, observation=2, max_learner_steps=60)
    plain = LearnerBatch(32, players, seed=9, pool=pool, observation=2, max_learner_steps=60)
    plain._opponents_move = lambda games: reference_opponents_move(plain, games)
    for env in (fused, plain):
        env.set_snapshots(bank_of(players, members))
        env.reset()
    obs = [np.zeros((32, fused.obs_size), np.float32) for _ in range(2)]
    masks = [np.zeros((32, NUM_ACTIONS), np.bool_) for _ in range(2)]
    rng = np.random.default_rng(4)
    ended = policy_turns = 0
    for _ in range(120):
        for env, o, m in zip((fused, plain), obs, masks, strict=True):
            env.observe(o, m)
        assert np.array_equal(obs[0], obs[1]) and np.array_equal(masks[0], masks[1])
        actions = (rng.random(masks[0].shape) * masks[0]).argmax(1).astype(np.int32)
        policy_turns += int((fused.kinds >= O.FIRST_POLICY).sum())
        a, b = fused.advance(actions), plain.advance(actions)
        assert np.array_equal(fused.states, plain.states)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.dones, b.dones)
        assert np.array_equal(a.opponents, b.opponents) and a.labels == b.labels
        ended += a.ended.size
    assert ended > 10 and policy_turns > 0  # games ended and frozen policies played


@pytest.mark.parametrize("temperature", [0.0, 1.0, 0.5])
def test_a_bank_of_members_playing_alike_chooses_as_the_general_path(temperature):
    rng = np.random.default_rng(1)
    lean = bank_of(2, 3, temperatures=[temperature] * 3)
    general = bank_of(2, 3, temperatures=[temperature] * 3)
    general.uniform_temperature = None  # the general path, member by member
    assert lean.uniform_temperature == temperature
    for rows in (5, 200):  # both ways of computing the logits
        obs = rng.random((rows, lean.config["obs_size"]), dtype=np.float32)
        masks = rng.random((rows, NUM_ACTIONS)) < 0.1
        masks[:, 7] = True
        which = rng.integers(0, 3, rows)
        chosen = lean(obs, masks, which)
        assert np.array_equal(chosen, general(obs, masks, which))
        assert masks[np.arange(rows), chosen].all()


@pytest.mark.parametrize("players,pool", [(2, "gold:0.3,builder:0.2,self:0.5"),
                                          (3, "random:0.2,racer:0.2,self:0.6")])
def test_every_finished_game_names_whom_the_learner_met(players, pool):
    """``StepResult.opponents``: one opponent's name where every other seat is that opponent
    (snapshots by their bank names), else ``mixed`` -- as read seat by seat from the game."""
    env = LearnerBatch(32, players, seed=5, pool=pool, max_learner_steps=40)
    nets = [new_net(net_config([16]), seed) for seed in range(2)]
    env.set_snapshots(PolicyBank(nets, seed=1, names=["self", "exploiter"]))
    env.reset()
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(150):
        kinds, seats = env.kinds.copy(), env.seats.copy()
        masks = env.action_masks()
        r = env.advance(np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int32))
        for k, i in enumerate(np.concatenate([r.ended, r.cut])):
            names = {env.opponent_name(int(kinds[i, p])) for p in range(players) if p != seats[i]}
            expected = names.pop() if len(names) == 1 else "mixed"
            assert r.labels[r.opponents[k]] == expected
            seen.add(expected)
    assert {"self", "exploiter"} | ({"mixed"} if players > 2 else set()) <= seen


class _CountingBank(PolicyBank):
    """A bank that records the rows of every call."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.calls: list[int] = []

    def __call__(self, obs, masks, which):
        self.calls.append(len(which))
        return super().__call__(obs, masks, which)


def test_every_frozen_opponent_of_every_game_moves_in_one_call_per_round():
    """The batched opponents: the bank's calls per learner step do not grow with the games in
    flight (one call per round of opponents' turns, for every game and member at once)."""
    calls_per_step, rows_per_call = {}, {}
    for games in (16, 512):
        env = LearnerBatch(games, 3, seed=5, pool="self:1", observation=2)
        bank = _CountingBank([new_net(net_config([32, 32], observation=2), s) for s in (0, 1)],
                             seed=3)
        env.set_snapshots(bank)
        env.reset()
        rng = np.random.default_rng(0)
        actions = np.zeros(games, np.int32)
        for _ in range(40):
            env.random_legal(rng.integers(1, 2**62, games, dtype=np.int64), actions)
            env.advance(actions)
        calls_per_step[games] = len(bank.calls) / 40
        rows_per_call[games] = sum(bank.calls) / len(bank.calls)
    # rounds, not games: 32 times the games add only the longer rounds of the slowest games
    assert calls_per_step[512] < 3 * calls_per_step[16], (calls_per_step, rows_per_call)
    assert rows_per_call[512] > 10 * rows_per_call[16] / 2, (calls_per_step, rows_per_call)
