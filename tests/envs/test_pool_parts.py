"""``PoolParts``: a training batch split into parts that threads step at once. Each part is a
``PoolVecEnv`` of its own games (part 0 exactly the env of that size and seed), the parts'
seeds and snapshot banks are independent, and stepping them on threads at once plays the
same games as stepping them one after the other."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from machu_env.agents.policy_file import net_config, new_net
from machu_env.envs.pool_env import PoolVecEnv
from machu_env.envs.pool_parts import PoolParts, part_seed
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.train.bank import PolicyBank

POOL = "gold:0.3,builder:0.2,self:0.5"


def bank() -> PolicyBank:
    nets = [new_net(net_config([32, 32], observation=2), seed) for seed in range(2)]
    return PolicyBank(nets, seed=3)


def legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int32)


def play(env: PoolVecEnv, steps: int, seed: int) -> np.ndarray:
    """``steps`` learner moves (random legal ones) in every game; the states after them."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((env.num_envs, env.obs_size), np.float32)
    masks = np.zeros((env.num_envs, NUM_ACTIONS), np.bool_)
    for _ in range(steps):
        env.observe(obs, masks)
        env.advance(legal_actions(masks, rng))
    return env.states.copy()


def test_the_games_are_split_into_parts_of_nearly_equal_size_covering_every_column():
    env = PoolParts(13, 3, 2, seed=4, pool=POOL, observation=2)
    assert [p.num_envs for p in env.parts] == [5, 4, 4]
    assert env.slices == [slice(0, 5), slice(5, 9), slice(9, 13)]
    assert env.num_envs == 13 and env.parts[0]._seed == 4
    assert len({p._seed for p in env.parts}) == 3  # each part its own seed streams


def test_part_zero_plays_exactly_the_games_of_a_pool_env_of_its_size_and_seed():
    parts = PoolParts(16, 2, 2, seed=9, pool=POOL, observation=2)
    alone = PoolVecEnv(8, 2, seed=9, pool=POOL, observation=2)
    parts.set_snapshots(bank())
    alone.set_snapshots(bank())
    parts.reset()
    alone.reset()
    assert np.array_equal(play(parts.parts[0], 30, 1), play(alone, 30, 1))


def test_observe_writes_each_part_into_its_own_columns():
    env = PoolParts(10, 2, 3, seed=2, pool="gold:1", observation=2)
    env.reset()
    obs = np.zeros((10, env.parts[0].obs_size), np.float32)
    masks = np.zeros((10, NUM_ACTIONS), np.bool_)
    env.observe(obs, masks)
    for part, cols in zip(env.parts, env.slices, strict=True):
        o = np.zeros((part.num_envs, part.obs_size), np.float32)
        m = np.zeros((part.num_envs, NUM_ACTIONS), np.bool_)
        part.observe(o, m)
        assert np.array_equal(obs[cols], o) and np.array_equal(masks[cols], m)
    assert masks.any(axis=1).all()  # every game waits on a legal learner move


def test_each_part_gets_a_fork_of_the_bank_with_its_own_generator_and_shared_weights():
    env = PoolParts(8, 2, 2, seed=1, pool=POOL, observation=2)
    b = bank()
    env.set_snapshots(b, weights=[1.0, 3.0])
    first, second = env.parts[0].bank, env.parts[1].bank
    assert first is b and second is not b  # (part 0 keeps the bank itself)
    assert second.layers is b.layers  # the stacked weights shared, not copied
    assert second.generator is not b.generator
    draws = [g.generator.initial_seed() for g in (first, second)]
    assert draws[0] != draws[1]
    assert env.probabilities() == env.parts[1].probabilities()


def test_parts_stepped_on_threads_at_once_play_the_games_stepped_one_after_the_other():
    def build() -> PoolParts:
        env = PoolParts(32, 2, 2, seed=6, pool=POOL, observation=2)
        env.set_snapshots(bank())
        env.reset()
        return env

    serial, threaded = build(), build()
    expected = [play(part, 40, 10 + j) for j, part in enumerate(serial.parts)]
    got: list = [None, None]

    def work(j: int) -> None:
        got[j] = play(threaded.parts[j], 40, 10 + j)

    workers = [threading.Thread(target=work, args=(j,)) for j in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(np.array_equal(a, b) for a, b in zip(expected, got, strict=True))


def test_bad_part_counts_and_seeds_are_refused_in_words():
    with pytest.raises(ValueError, match="parts must be"):
        PoolParts(4, 5, 2, pool=POOL)
    with pytest.raises(ValueError, match="parts must be"):
        PoolParts(4, 0, 2, pool=POOL)
    with pytest.raises(ValueError, match="seed must be"):
        PoolParts(4, 2, 2, seed=-1, pool=POOL)
    env = PoolParts(4, 2, 2, seed=0, pool=POOL)
    with pytest.raises(ValueError, match="seed must be"):
        env.seed(-3)
    assert [p._seed for p in env.parts] == [0, part_seed(0, 1)]  # unchanged
