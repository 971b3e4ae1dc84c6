"""The batch engine and the SB3 VecEnv: same rules as ``Game``, determinism, bad input."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from machu_env import Game
from machu_env.core.reward_modes import terminal_rewards
from machu_env.engine.batch import seed_streams
from machu_env.envs.batch_engine import BatchEngine
from machu_env.rules import layout as L


def _mirror_games(seed, n, num_players):
    """Row i of a BatchEngine starts as Game(seed=stream_i)."""
    return [Game(num_players, seed=int(x)) for x in seed_streams(seed, n)]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_batch_rows_follow_the_same_rules_as_game(num_players):
    n = 8
    be = BatchEngine(n, num_players, seed=5)
    games = _mirror_games(5, n, num_players)
    rng = np.random.default_rng(num_players)
    finished = 0
    for _ in range(400):
        for i, g in enumerate(games):
            assert (be.states[i] == g.state).all()
            assert be.current_player[i] == g.current_player
            assert be.legal_mask()[i].nonzero()[0].tolist() == g.legal_action_ids()
        obs = be.observe()
        for i, g in enumerate(games):
            assert (obs[i] == g.observation(g.current_player)).all()
        actions = np.array([rng.choice(g.legal_action_ids()) for g in games])
        rewards, dones = be.step(actions)
        for i, g in enumerate(games):
            g.play(int(actions[i]))
            assert dones[i] == g.is_over
            if g.is_over:  # the row restarted: compare the rewards, then follow the new game
                finished += 1
                assert rewards[i].tolist() == pytest.approx(
                    terminal_rewards(g.scores(), "win"))
                games[i] = be.game(i)
            else:
                assert not rewards[i].any()
    assert finished >= 1


def test_batch_is_deterministic_across_thread_counts():
    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        be = BatchEngine(64, 4, seed=3)
        assert be.random_playout(20_000) == 20_000
        runs.append((be.states.copy(), be.last_playout_stats.copy()))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert (runs[0][0] == runs[1][0]).all() and (runs[0][1] == runs[1][1]).all()
    assert runs[0][1][0] > 0  # games finished and restarted
    other = BatchEngine(64, 4, seed=4)
    other.random_playout(20_000)
    assert not (other.states == runs[0][0]).all()


def test_batch_bad_input_names_the_games_and_changes_nothing():
    be = BatchEngine(6, 3, seed=0)
    before = be.states.copy()
    legal = be.legal_ids()[:, 0].copy()
    bad = legal.copy()
    bad[[1, 4]] = 156  # "take cloth,..." is never legal at the start
    with pytest.raises(ValueError, match=r"illegal action in 2 game\(s\): game 1: 156, game 4"):
        be.step(bad)
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        be.step(legal[:5])
    with pytest.raises(ValueError, match="integer array"):
        be.step(legal.astype(float))
    assert (be.states == before).all()
    with pytest.raises(ValueError, match="num_envs"):
        BatchEngine(0, 3)
    with pytest.raises(ValueError, match="num_players"):
        BatchEngine(4, 6)
    with pytest.raises(ValueError, match="unsupported option"):
        BatchEngine(4, 3, hands=[[]] * 3)
    with pytest.raises(ValueError, match="reward"):
        BatchEngine(4, 3, reward="gold")
    with pytest.raises(ValueError, match="num_steps must be an int >= 0"):
        be.random_playout(-1)
    with pytest.raises(ValueError, match=r"i must be an int in 0..5"):
        be.game(6)
    assert (be.states == before).all()
    be.step(legal)  # legal actions are accepted


def test_batch_memory_per_game():
    assert BatchEngine(2, 5).state_bytes_per_game <= 1024


# --- SB3 VecEnv ----------------------------------------------------------------------------------
sb3 = pytest.importorskip("stable_baselines3")


def test_vecenv_learner_seat_masks_and_terminal_observations():
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    env = MachuPicchuVecEnv(16, num_players=3, seed=1, learner_seat=None)
    obs = env.reset()
    assert obs.shape == (16, 377)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(600):
        mask = env.action_masks()
        assert mask.any(axis=1).all()
        assert (env.states[:, L.DECIDER] == env.seats).all()  # the learner decides everywhere
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, rewards, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            ended += 1
            assert rewards[i] in (1.0, -1.0)
            assert infos[i]["terminal_observation"].shape == (377,)
        assert not rewards[~dones].any()
    assert ended > 0
    assert set(env.seats.tolist()) <= {0, 1, 2}


def test_vecenv_batched_opponent_policy_and_bad_actions():
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    seen = []

    def last_legal(obs, masks):
        seen.append(len(obs))
        return np.array([np.flatnonzero(m)[-1] for m in masks])

    env = MachuPicchuVecEnv(4, num_players=2, seed=0, learner_seat=1, opponent=last_legal)
    env.reset()
    for _ in range(50):
        env.step(env.action_masks().argmax(axis=1))
    assert seen and (env.seats == 1).all()
    mask = env.action_masks()
    with pytest.raises(ValueError, match="illegal learner action"):
        env.step(np.argmin(mask, axis=1))  # the first illegal id of every game
    with pytest.raises(ValueError, match="opponent must be"):
        MachuPicchuVecEnv(2, opponent="random")
    with pytest.raises(ValueError, match="learner_seat must be an int in 0..1"):
        MachuPicchuVecEnv(2, num_players=2, learner_seat=2)


def test_vecenv_trains_with_maskable_ppo():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    env = MachuPicchuVecEnv(32, num_players=2, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, verbose=0,
                                    seed=0, device="cpu")
    model.learn(total_timesteps=2048)
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[np.arange(32), actions].all()


def test_the_batch_core_and_the_sb3_env_refuse_bad_input_and_change_nothing():
    """The SB3 env's pool options and the pool's snapshot labels: one clear ValueError each,
    and the games and the pool are as they were."""
    pytest.importorskip("stable_baselines3")
    from machu_env.core.learner_batch import LearnerBatch
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    for bad, match in (({"pool": "gold:1,chess:2"}, "bad pool entry"),
                       ({"max_learner_steps": 0}, "max_learner_steps"),
                       ({"head_start": 1.5}, "head_start must be a share"),
                       ({"pool": {"gold": -1}}, "pool weight of gold")):
        with pytest.raises(ValueError, match=match):
            MachuPicchuVecEnv(4, 2, seed=0, **bad)
    batch = LearnerBatch(4, 2, seed=0, pool="gold:1,self:1")
    batch.set_snapshots([lambda o, m: m.argmax(1)])
    batch.reset()
    states, before = batch.states.copy(), batch.probabilities()
    with pytest.raises(ValueError, match="give one label per snapshot"):
        batch.set_snapshots([lambda o, m: m.argmax(1)] * 2, labels=["only one"])
    with pytest.raises(ValueError, match="actions must be an integer array"):
        batch.checked_actions(np.zeros(3, np.int32))
    assert batch.probabilities() == before and np.array_equal(batch.states, states)
