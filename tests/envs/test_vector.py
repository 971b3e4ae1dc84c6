"""The Gymnasium VectorEnv on the batch engine:
``gym.make_vec("MachuPicchu-v0", num_envs=N)``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import machu_env  # noqa: F401  (registers MachuPicchu-v0)
from machu_env.core.errors import ResetNeeded
from machu_env.envs.vector import MachuPicchuVectorEnv


def test_make_vec_builds_the_batch_env_with_gymnasiums_conventions():
    envs = gym.make_vec("MachuPicchu-v0", num_envs=6, num_players=3, opponents="gold:1")
    assert isinstance(envs, MachuPicchuVectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP  # Gymnasium's default
    assert envs.single_action_space == gym.spaces.Discrete(157)
    obs, infos = envs.reset(seed=3)
    assert obs.shape == (6, 377) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (6, 157) and infos["action_mask"].any(1).all()
    assert infos["action_mask"].dtype == np.int8  # what Discrete.sample(mask=) takes
    action = envs.single_action_space.sample(mask=infos["action_mask"][0])
    assert infos["action_mask"][0, action] == 1


def test_games_end_restart_in_the_same_step_and_report_their_last_observation():
    envs = MachuPicchuVectorEnv(num_envs=4, num_players=2, opponents="random:1",
                                autoreset_mode="same_step")
    obs, infos = envs.reset(seed=0)
    ended, rewards_seen = 0, set()
    for _ in range(600):
        mask = infos["action_mask"]
        actions = envs.random_actions()
        assert mask[np.arange(4), actions].all()  # legal for the step they are given to
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        done = terminated | truncated
        rewards_seen |= set(rewards[done].tolist())
        assert (rewards[~done] == 0).all()
        if done.any():
            assert infos["_final_obs"].tolist() == done.tolist()
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i].shape == (377,)
                assert not np.array_equal(infos["final_obs"][i], obs[i])  # a new game's first
            assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~done))
            won = infos["final_info"]["won"]
            assert (rewards[done & won] == 1).all() and (rewards[terminated & ~won] == -1).all()
            ended += int(done.sum())
    assert ended >= 4 and rewards_seen <= {-1.0, 1.0, 0.0}


def test_the_same_seed_gives_the_same_games_and_another_seed_others():
    def run(seed):
        envs = MachuPicchuVectorEnv(num_envs=3, num_players=3, opponents="builder:1,gold:1")
        obs, _ = envs.reset(seed=seed)
        trace = [obs.copy()]
        for _ in range(50):
            obs, r, *_ = envs.step(envs.random_actions())
            trace.append(obs.copy())
        return np.array(trace)

    assert np.array_equal(run(5), run(5)) and not np.array_equal(run(5), run(6))


def test_games_that_run_too_long_end_truncated():
    envs = MachuPicchuVectorEnv(num_envs=3, num_players=2, max_decisions=20)
    envs.reset(seed=1)
    truncated_any = False
    for _ in range(30):
        obs, rewards, terminated, truncated, infos = envs.step(envs.random_actions())
        assert (rewards[truncated] == 0).all()
        truncated_any |= truncated.any()
    assert truncated_any


def test_bad_input_is_refused_naming_what_is_allowed_and_changes_nothing():
    envs = MachuPicchuVectorEnv(num_envs=3, num_players=2)
    with pytest.raises(ResetNeeded, match="reset"):
        envs.step(np.zeros(3, dtype=int))
    obs, infos = envs.reset(seed=2)
    before = envs.batch.states.copy()
    illegal = np.array([np.flatnonzero(m == 0)[0] for m in infos["action_mask"]])
    for bad, message in ((illegal, "legal"), (np.zeros(2, dtype=int), "3"),
                         (np.full(3, 999), "0..156"), (np.full(3, 0.5), "int"),
                         ("abc", "shape \\(3,\\)")):
        with pytest.raises(ValueError, match=message):
            envs.step(bad)
        assert np.array_equal(envs.batch.states, before)  # nothing changed
    for options, message in (({"num_envs": 0}, "num_envs"), ({"num_envs": 2**21}, "1048576"),
                             ({"num_players": 6}, "num_players"),
                             ({"opponents": "chess:1"}, "chess"),
                             ({"opponents": ["gold"]}, "pool string"),
                             ({"opponents": 3}, "batched policy"),
                             ({"reward": "money"}, "reward"),
                             ({"max_decisions": 0}, "max_decisions"),
                             ({"render_mode": "human"}, "rgb_array")):
        with pytest.raises(ValueError, match=message):
            gym.make_vec("MachuPicchu-v0", **{"num_envs": 2, **options})
    with pytest.raises(ValueError, match="one int"):
        envs.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="options"):
        envs.reset(options={"x": 1})


def test_opponent_policies_are_asked_in_one_batch():
    calls = []

    def first_legal(obs, masks):
        calls.append(obs.shape[0])
        return masks.argmax(1)

    envs = MachuPicchuVectorEnv(num_envs=5, num_players=3, opponents="self:1")
    envs.set_opponent_policies([first_legal])
    envs.reset(seed=0)
    for _ in range(10):
        envs.step(envs.random_actions())
    assert calls and max(calls) > 1  # several games' decisions per call
    calls.clear()  # the same policy as the opponents argument
    envs = MachuPicchuVectorEnv(num_envs=5, num_players=3, opponents=first_legal)
    envs.reset(seed=0)
    for _ in range(10):
        envs.step(envs.random_actions())
    assert calls and max(calls) > 1


def test_the_single_file_ppo_example_trains_and_saves_an_agent_file(tmp_path):
    """examples/ppo_vector.py, a tiny run: it trains on the vector env, evaluates, and writes
    an agent file that plays as ``policy:<file>``."""
    import importlib.util
    from pathlib import Path

    pytest.importorskip("torch")
    from machu_env import Game
    from machu_env.agents import make_agent

    path = Path(__file__).parents[2] / "examples" / "ppo_vector.py"
    spec = importlib.util.spec_from_file_location("ppo_vector", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "agent.safetensors"
    args = example.parse_args(["--num-envs", "16", "--rollout", "32", "--minibatch", "128",
                               "--total-steps", "2048", "--eval-every", "1024",
                               "--eval-games", "10", "--hidden", "16", "--save", str(out)])
    summary = example.train(args)
    assert summary["steps"] == 2048 and len(summary["history"]) == 2
    assert all(0 <= h["win_share"] <= 1 for h in summary["history"])
    agent = make_agent(f"policy:{out}", seed=0)
    game = Game(2, seed=1)
    for _ in range(20):
        game.play(agent.act(game))  # play() raises on an illegal action


@pytest.mark.parametrize("players,opponents", [(2, "random:1"), (3, "builder:1,gold:1")])
def test_the_fused_step_equals_the_general_step(players, opponents, monkeypatch):
    """With compiled opponents only, a step is one fused compiled pass; it must give exactly
    what the general path (advance, then observe) gives: same games, same draws, same ends."""
    from machu_env.core.learner_batch import LearnerBatch

    kwargs = dict(num_envs=24, num_players=players, opponents=opponents, max_learner_steps=45)
    fused = MachuPicchuVectorEnv(**kwargs)
    assert fused.batch.compiled_only
    general = MachuPicchuVectorEnv(**kwargs)
    monkeypatch.setattr(general.batch, "advance_compiled_unchecked", None)  # never called
    monkeypatch.setattr(LearnerBatch, "compiled_only", property(
        lambda self: self is fused.batch))
    a, b = fused.reset(seed=5), general.reset(seed=5)
    ends = cuts = 0
    for _ in range(150):
        actions = fused.random_actions()
        assert np.array_equal(actions, general.random_actions())
        a, b = fused.step(actions), general.step(actions)
        for x, y in zip(a[:4], b[:4], strict=True):
            assert np.array_equal(x, y)
        assert np.array_equal(a[4]["action_mask"], b[4]["action_mask"])
        assert set(a[4]) == set(b[4])
        if "final_obs" in a[4]:
            assert np.array_equal(a[4]["_final_obs"], b[4]["_final_obs"])
            assert np.array_equal(a[4]["final_info"]["won"], b[4]["final_info"]["won"])
            for i in np.flatnonzero(a[4]["_final_obs"]):
                assert np.array_equal(a[4]["final_obs"][i], b[4]["final_obs"][i])
        ends, cuts = ends + a[2].sum(), cuts + a[3].sum()
    assert ends > 0 and cuts > 0


def test_copy_false_returns_the_envs_own_buffers():
    envs = MachuPicchuVectorEnv(num_envs=4, copy=False)
    obs, infos = envs.reset(seed=0)
    obs2, *_, infos2 = envs.step(envs.random_actions())
    assert obs2 is obs and infos2["action_mask"] is infos["action_mask"]
    envs = MachuPicchuVectorEnv(num_envs=4)  # copy=True: every step's arrays are new
    obs, _ = envs.reset(seed=0)
    kept = obs.copy()
    obs2, *_ = envs.step(envs.random_actions())
    assert obs2 is not obs and np.array_equal(obs, kept)
    with pytest.raises(ValueError, match="copy must be True or False"):
        MachuPicchuVectorEnv(num_envs=4, copy="yes")


@pytest.mark.parametrize("opponents", ["random:1", "random:1,self:1"])
def test_next_step_autoreset_shows_the_last_observation_then_the_new_game(opponents):
    """autoreset_mode="next_step" (RLlib's env runners): the ending step returns the game's
    last observation and infos["won"]; the next step ignores that slot's action and returns
    the new game's first observation with reward 0. Same games as same_step otherwise."""
    kwargs = dict(num_envs=16, num_players=2, opponents=opponents, max_learner_steps=60)
    same = MachuPicchuVectorEnv(**kwargs, autoreset_mode="same_step")
    nxt = MachuPicchuVectorEnv(**kwargs, obs_format="dict")  # (next_step: the default)
    assert nxt.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    if "self" in opponents:  # a batched policy opponent: the general (not fused) path
        pick = lambda obs, masks: masks.argmax(axis=1)  # noqa: E731
        same.set_opponent_policies([pick])
        nxt.set_opponent_policies([pick])
    same.reset(seed=3)
    obs, _ = nxt.reset(seed=3)
    assert set(obs) == {"observations", "action_mask"}
    checked = 0
    for _ in range(200):
        actions = same.random_actions()
        a = same.step(actions)
        b = nxt.step(actions)
        done = np.flatnonzero(a[2] | a[3])
        if not done.size:
            assert np.array_equal(a[0], b[0]["observations"])
            continue
        for i in done:
            assert np.array_equal(b[0]["observations"][i], a[4]["final_obs"][i])
        assert np.array_equal(b[4]["won"], a[4]["final_info"]["won"])
        assert np.array_equal(b[1], a[1]) and np.array_equal(b[2], a[2])
        acts = same.random_actions()
        acts[done] = 156  # the ended slots' actions are ignored (any id)
        c = nxt.step(acts)
        for i in done:
            assert np.array_equal(c[0]["observations"][i], a[0][i])  # the new game's first
            assert c[1][i] == 0 and not c[2][i] and not c[3][i]
        checked += 1
        break
    assert checked == 1
    with pytest.raises(ValueError, match="autoreset_mode"):
        MachuPicchuVectorEnv(num_envs=2, autoreset_mode="later")
    with pytest.raises(ValueError, match="obs_format"):
        MachuPicchuVectorEnv(num_envs=2, obs_format="tuple")
