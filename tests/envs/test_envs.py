"""The PettingZoo AEC env and the Gymnasium env: official checkers, rewards, illegal actions,
hidden information, opponents, and a MaskablePPO smoke test."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import machu_env
from machu_env import IllegalActionError, MachuPicchuGymEnv
from machu_env.core.reward_modes import terminal_rewards

PLAYERS = [2, 3, 4, 5]


# --- PettingZoo ----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYERS)
def test_pettingzoo_api_seed_and_render_tests(n, capsys):
    api_test(machu_env.env(num_players=n), num_cycles=1000, verbose_progress=False)
    seed_test(lambda: machu_env.env(num_players=n), num_cycles=300)
    render_test(lambda render_mode=None: machu_env.env(num_players=n, render_mode=render_mode))


def _play_out(env, rnd):
    """Random legal actions until every agent is done; returns the final rewards."""
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            finals[agent] = reward
            env.step(None)
            continue
        env.step(rnd.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return finals


def test_aec_agent_selection_follows_the_decider_and_metadata():
    """R12.1: each decision belongs to its owner, not always the active player."""
    env = machu_env.env(num_players=3, start_player=1)
    env.reset(seed=3)
    assert env.metadata["name"] == "machu_picchu_v0"
    assert env.agent_selection == "player_1"  # the start player places the first Inca
    assert env.action_space("player_0").n == machu_env.NUM_ACTIONS
    obs = env.observe("player_1")
    assert obs["observation"].shape == (machu_env.OBS_SIZE,) and obs["action_mask"].sum() == 5
    assert env.observe("player_0")["action_mask"].sum() == 0  # not deciding now
    game = env.unwrapped.game
    for _ in range(200):  # production / summit / night decisions belong to their owners
        assert env.agent_selection == f"player_{game.current_player}"
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


@pytest.mark.parametrize("reward", ["win", "rank", "score"])
def test_aec_terminal_rewards(reward):
    env = machu_env.env(num_players=3, reward=reward)
    env.reset(seed=11)
    finals = _play_out(env, random.Random(0))
    expected = terminal_rewards(env.unwrapped.game.scores(), reward)
    assert [finals[f"player_{i}"] for i in range(3)] == pytest.approx(expected)
    if reward == "win":
        assert set(finals.values()) <= {1.0, -1.0} and 1.0 in finals.values()
    if reward == "rank":
        assert max(finals.values()) == 1.0 and min(finals.values()) >= -1.0


def test_rank_and_score_rewards_by_hand():
    scores = [{"score": 30, "goods_units": 2, "winner": True},
              {"score": 10, "goods_units": 5, "winner": False},
              {"score": 10, "goods_units": 5, "winner": False},
              {"score": 5, "goods_units": 9, "winner": False}]
    assert terminal_rewards(scores, "rank") == pytest.approx([1.0, 1 / 3, 1 / 3, -1.0])
    assert terminal_rewards(scores, "score")[0] == pytest.approx((30 - 25 / 3) / 50)
    assert terminal_rewards(scores, "win") == [1.0, -1.0, -1.0, -1.0]


def test_aec_illegal_action_ends_the_game_with_minus_one(recwarn):
    env = machu_env.env(num_players=3)
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1 and all(r == 0 for a, r in env.rewards.items()
                                               if a != offender)


def test_bad_env_options_raise():
    with pytest.raises(ValueError, match="reward must be one of"):
        machu_env.env(reward="gold")
    with pytest.raises(ValueError, match="num_players"):
        machu_env.env(num_players=7)
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi', 'human' or 'rgb_ar"):
        machu_env.env(render_mode="rgb")
    with pytest.raises(ValueError, match="hands must be a list of 3"):
        machu_env.env(num_players=3, hands=[[]])


def test_aec_observation_ignores_hidden_cards_of_others():
    """Two envs that differ only in player_1's hidden card and the deck order give player_0
    identical observations while the same decisions are played."""
    a = machu_env.raw_env(2, hands=[["corn+llama"], ["puma+virgin"]], start_player=0)
    b = machu_env.raw_env(2, hands=[["corn+llama"], ["coca+cloth"]], deck=["puma+virgin"],
                          start_player=0)
    a.reset(seed=5)
    b.reset(seed=77)  # another seed: another deck order
    rnd = random.Random(1)
    for _ in range(60):
        assert (a.observe("player_0")["observation"] == b.observe("player_0")["observation"]).all()
        mask = a.observe(a.agent_selection)["action_mask"]
        assert (mask == b.observe(b.agent_selection)["action_mask"]).all()
        if a.unwrapped.game.decision == "return":
            break
        action = rnd.choice(np.flatnonzero(mask).tolist())
        a.step(action)
        b.step(action)


# --- Gymnasium -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYERS)
def test_gymnasium_check_env(n, capsys):
    check_env(gym.make("MachuPicchu-v0", num_players=n).unwrapped)
    check_env(gym.make("MachuPicchu-v0", num_players=n, render_mode="rgb_array").unwrapped)


def test_gym_episode_masks_and_seat():
    env = MachuPicchuGymEnv(num_players=3, learner_seat=2)
    obs, info = env.reset(seed=4)
    assert obs.shape == (machu_env.OBS_SIZE,) and info["seat"] == 2
    done, reward = False, 0.0
    while not done:
        mask = env.action_masks()
        assert mask.any() and (info["action_mask"] == mask).all()
        assert env.game.current_player == 2
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert reward in (1.0, -1.0) and env.game.is_over
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_reset_is_reproducible():
    a, b = MachuPicchuGymEnv(4), MachuPicchuGymEnv(4)
    oa, ia = a.reset(seed=9)
    ob, ib = b.reset(seed=9)
    assert (oa == ob).all() and ia["seat"] == ib["seat"]
    assert (a.game.state == b.game.state).all()


def test_gym_illegal_actions():
    env = MachuPicchuGymEnv(2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert reward == -1.0 and done and info["illegal_action"]
    env = MachuPicchuGymEnv(2, illegal_action="raise")
    env.reset(seed=0)
    state = env.game.state.copy()
    with pytest.raises(IllegalActionError, match="Legal actions"):
        env.step(illegal)
    assert (env.game.state == state).all()


def test_gym_opponent_policies_plug_in():
    calls = []

    def first_legal(game):
        calls.append(game.current_player)
        return game.legal_actions()[0]  # a notation string

    env = MachuPicchuGymEnv(3, learner_seat=0, opponents=[first_legal, first_legal])
    env.reset(seed=1)
    while not env.game.is_over:
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert set(calls) == {1, 2}
    with pytest.raises(ValueError, match="one policy \\(game -> action\\) or a list of 2"):
        MachuPicchuGymEnv(3, opponents=[first_legal])
    with pytest.raises(ValueError, match="illegal_action"):
        MachuPicchuGymEnv(2, illegal_action="ignore")


# --- Stable-Baselines3 ---------------------------------------------------------------------------
def test_maskable_ppo_smoke():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = MachuPicchuGymEnv(num_players=2)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=0,
                                    verbose=0, device="cpu")
    model.learn(total_timesteps=2048)
    obs, _ = env.reset(seed=3)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        obs, reward, done, _, _ = env.step(int(action))
    assert env.game.is_over


def _first_legal(game):
    return game.legal_action_ids()[0]  # always moves, never stays: the day never ends


def test_gym_truncates_a_game_where_nobody_stays():
    env = MachuPicchuGymEnv(2, learner_seat=0, opponents=_first_legal, max_decisions=300)
    obs, info = env.reset(seed=0)
    steps, truncated, done = 0, False, False
    while not (done or truncated):
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        steps += 1
    assert truncated and not done and reward == 0.0
    assert len(env.game.history) >= 300 and not env.game.is_over


def test_aec_truncates_a_game_where_nobody_stays():
    env = machu_env.env(num_players=2, max_decisions=200)
    env.reset(seed=0)
    for _agent in env.agent_iter(max_iter=1000):
        obs, reward, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert not env.agents and not env.unwrapped.game.is_over
    with pytest.raises(ValueError, match="max_decisions"):
        machu_env.env(max_decisions=0)


@pytest.mark.parametrize("opponent", [None, lambda obs, masks: masks.argmax(axis=1)])
def test_vecenv_truncates_games_where_nobody_stays(opponent):
    pytest.importorskip("stable_baselines3")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    env = MachuPicchuVecEnv(3, 2, seed=0, opponent=opponent, max_decisions=60)
    assert MachuPicchuVecEnv(1).batch.max_decisions == 5000  # as every other layer
    env.reset()
    truncated = 0
    for _ in range(200):  # the learner never stays (the first legal action moves)
        obs, rewards, dones, infos = env.step(env.action_masks().argmax(axis=1))
        for i in np.flatnonzero(dones):
            if infos[i]["TimeLimit.truncated"]:
                truncated += 1
                assert rewards[i] == 0.0 and infos[i]["terminal_observation"].shape == obs[i].shape
    assert truncated >= 3
    assert (env.states[:, machu_env.rules.layout.DECISIONS] < 60).all()  # every game restarted
    with pytest.raises(ValueError, match="max_decisions"):
        MachuPicchuVecEnv(2, max_decisions=0)


def test_the_gym_env_info_has_the_same_keys_at_every_step():
    """Recorders (Minari's DataCollector) need one info structure: the same
    keys at reset, at every step and on an illegal action."""
    import gymnasium as gym

    env = gym.make("MachuPicchu-v0", num_players=2)
    _, info = env.reset(seed=0)
    keys = set(info)
    assert keys == {"action_mask", "seat", "illegal_action"} and info["illegal_action"] is False
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = info["action_mask"]
        _, _, done, cut, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert set(info) == keys
        if done or cut:
            _, info = env.reset()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert set(info) == keys and info["illegal_action"] is True and reward == -1.0 and done
