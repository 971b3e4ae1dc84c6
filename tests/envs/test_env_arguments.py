"""One set of env arguments and one set of conventions on every path:
``gym.make``, ``gym.make_vec`` in every vectorization mode, the native VectorEnv and the
PettingZoo env take the same opponent names and options; masks are int8 everywhere (what
``Discrete.sample(mask=)`` takes); vector paths reset in the next step (Gymnasium's default),
and Gymnasium's own vector wrappers work on them."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.vector import AutoresetMode

import machu_env
from machu_env.envs.vector import MachuPicchuVectorEnv

OPTIONS = dict(num_players=3, opponents="gold:1,racer:1", reward="rank", max_decisions=3000,
               learning_game=False)
MODES = ["vector_entry_point", "sync", "async"]


def _vector(mode: str, n: int = 3, **kw):
    options = {**OPTIONS, **kw}
    if mode == "vector_entry_point":
        return gym.make_vec("MachuPicchu-v0", num_envs=n, **options)
    return gym.make_vec("MachuPicchu-v0", num_envs=n, vectorization_mode=mode,
                        vector_kwargs={"autoreset_mode": AutoresetMode.NEXT_STEP}, **options)


def _play_masked(envs, steps: int) -> int:
    """Masked random actions through ``single_action_space.sample(mask=)``; the episodes
    that ended."""
    obs, infos = envs.reset(seed=1)
    ended = 0
    for _ in range(steps):
        masks = infos["action_mask"]
        assert masks.dtype == np.int8
        actions = np.array([envs.single_action_space.sample(mask=m) for m in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        ended += int((terminated | truncated).sum())
    return ended


def test_the_single_env_and_pettingzoo_take_the_same_names_and_options():
    env = gym.make("MachuPicchu-v0", **OPTIONS)
    obs, info = env.reset(seed=0)
    assert info["action_mask"].dtype == np.int8
    done, steps = False, 0
    while not done:
        obs, r, term, trunc, info = env.step(env.action_space.sample(mask=info["action_mask"]))
        done, steps = term or trunc, steps + 1
    assert r in (-1.0, -0.5, 0.0, 0.5, 1.0) and steps > 10  # rank reward, a whole game
    pz = machu_env.env(**OPTIONS)
    pz.reset(seed=0)
    assert len(pz.agents) == 1  # one learner; the named opponents play inside step
    for agent in pz.agent_iter():
        observation, reward, term, trunc, _ = pz.last()
        assert observation["action_mask"].dtype == np.int8
        pz.step(None if term or trunc else
                pz.action_space(agent).sample(mask=observation["action_mask"]))
    assert pz.game.is_over


@pytest.mark.parametrize("mode", MODES)
def test_every_vector_path_takes_the_names_resets_next_step_and_masks_in_int8(mode):
    envs = _vector(mode)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert _play_masked(envs, 150) >= 1  # 3 games x 150 learner steps: some ended
    envs.close()


@pytest.mark.parametrize("bad, message", [("chess:1", "chess"), ("gold", "name:weight"),
                                          ("gold:-1", ">= 0"), ("self:1", "self")])
def test_every_path_refuses_a_bad_opponent_name_the_same_way(bad, message):
    makers = [lambda: gym.make("MachuPicchu-v0", num_players=2, opponents=bad),
              lambda: machu_env.env(2, opponents=bad),
              lambda: gym.make_vec("MachuPicchu-v0", num_envs=2, num_players=2,
                                   opponents=bad, vectorization_mode="sync")]
    if bad != "self:1":  # (the native VectorEnv's pool has 'self': set_opponent_policies)
        makers.append(lambda: gym.make_vec("MachuPicchu-v0", num_envs=2, num_players=2,
                                           opponents=bad))
    for make in makers:
        with pytest.raises(ValueError, match=message):
            make()


def test_named_opponents_keep_the_spec_serialisable():
    """A string names the opponents: the spec goes to JSON and back and makes the same env
    (what Minari's recover_environment does)."""
    env = gym.make("MachuPicchu-v0", **OPTIONS)
    again = gym.make(EnvSpec.from_json(env.spec.to_json()))
    a, _ = env.reset(seed=4)
    b, _ = again.reset(seed=4)
    assert np.array_equal(a, b)
    assert again.unwrapped._opponents == {"gold": 1.0, "racer": 1.0}


def test_the_named_opponents_are_the_heuristic_agents():
    """``opponents="gold:1"`` plays the gold agent: it beats a random learner almost always."""
    env = gym.make("MachuPicchu-v0", num_players=2, opponents="gold:1", learner_seat=0)
    won = 0
    for seed in range(12):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            _, r, term, trunc, info = env.step(env.action_space.sample(mask=info["action_mask"]))
            done = term or trunc
        won += r > 0
    assert won <= 1


def test_gymnasiums_vector_wrappers_work_on_the_default_vector_env():
    from gymnasium.wrappers.vector import (
        FlattenObservation,
        NormalizeObservation,
        RecordEpisodeStatistics,
    )

    envs = RecordEpisodeStatistics(NormalizeObservation(FlattenObservation(
        gym.make_vec("MachuPicchu-v0", num_envs=8, num_players=2, opponents="random:1"))))
    obs, infos = envs.reset(seed=0)
    episodes = 0
    for _ in range(300):
        obs, r, term, trunc, infos = envs.step(envs.unwrapped.random_actions())
        episodes += int("episode" in infos and infos["_episode"].sum())
    assert np.isfinite(obs).all() and abs(float(obs.mean())) < 1.0  # normalised
    assert episodes >= 8


def test_the_vector_env_renders_one_frame_per_game():
    envs = MachuPicchuVectorEnv(num_envs=2, num_players=2, render_mode="rgb_array")
    envs.reset(seed=0)
    frames = envs.render()
    single = gym.make("MachuPicchu-v0", num_players=2, render_mode="rgb_array")
    single.reset(seed=0)
    assert len(frames) == 2 and frames[0].shape == single.render().shape
    assert frames[0].dtype == np.uint8
    assert MachuPicchuVectorEnv(num_envs=2).render() is None
