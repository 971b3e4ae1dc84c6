"""The envs under client libraries, each called as its own docs show:
TorchRL, Tianshou, Minari. Marked ``integrations``; they run where the ``integrations`` extra is
installed (``.ci/run`` does it in an environment without the ``rllib`` extra, on the newest
Gymnasium)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import machu_env

pytestmark = pytest.mark.integrations


def test_torchrl_pettingzoo_wrapper_plays_whole_games_with_legal_actions():
    pytest.importorskip("torchrl")
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(env=machu_env.env(num_players=2), use_mask=True, seed=0)
    check_env_specs(env)
    for _ in range(3):
        rollout = env.rollout(max_steps=2000)
        game = env._env.unwrapped.game
        assert game.is_over  # ended by the rules, not by an illegal action (-1 for it)
        assert len(game.history) == rollout.batch_size[0]


def test_torchrl_gym_env_with_named_opponents():
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    env = GymEnv("MachuPicchu-v0", num_players=2, opponents="gold:1")
    check_env_specs(env)


def test_tianshou_collects_masked_random_games():
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make_env():
        return PettingZooEnv(machu_env.env(num_players=3))

    env = make_env()
    player = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
    policy = MultiAgentPolicy({agent: player for agent in env.agents})
    envs = DummyVectorEnv([make_env for _ in range(3)])
    collector = Collector(policy, envs)
    collector.reset()
    stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes == 6
    returns = stats.returns  # (episodes, players): win rewards, one winner or a shared win
    assert ((returns == 1) | (returns == -1)).all() and (returns == 1).any(axis=1).all()


def test_minari_records_the_env_reads_it_back_and_recovers_it(tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    env = minari.DataCollector(gym.make("MachuPicchu-v0", num_players=3,
                                        opponents="builder:1,gold:1"), record_infos=True)
    steps = 0
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(env.action_space.sample(mask=info["action_mask"]))
            done, steps = term or trunc, steps + 1
    env.create_dataset(dataset_id="machu/test-v0", algorithm_name="random")
    dataset = minari.load_dataset("machu/test-v0")
    assert dataset.total_episodes == 4 and dataset.total_steps == steps
    for episode in dataset.iterate_episodes():
        masks = episode.infos["action_mask"]
        assert masks.dtype == np.int8 and masks[np.arange(len(episode.actions)),
                                                 episode.actions].all()
    again = dataset.recover_environment()
    assert again.spec.kwargs["opponents"] == "builder:1,gold:1"
    assert again.unwrapped._opponents == {"builder": 1.0, "gold": 1.0}
