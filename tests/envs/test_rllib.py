"""RLlib adapter (machu_env.envs.rllib): the MultiAgentEnv plays the engine's game, RLlib's own env
checker passes with the mask, PPO with the masking RLModule trains, and its checkpoint plays as
``rllib:<folder>``. Runs where the ``rllib`` extra is installed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

from machu_env import Game  # noqa: E402
from machu_env.core.errors import IllegalActionError  # noqa: E402
from machu_env.core.reward_modes import terminal_rewards  # noqa: E402
from machu_env.envs.rllib import MachuPicchuMultiAgentEnv  # noqa: E402


def test_the_env_plays_the_engines_game_one_decider_at_a_time():
    env = MachuPicchuMultiAgentEnv({"num_players": 3, "reward": "rank"})
    obs, _ = env.reset(seed=5)
    game = Game(3, env.game.seed)
    rng = np.random.default_rng(0)
    while True:
        (agent, o), = obs.items()  # exactly one agent decides
        p = game.current_player
        assert agent == f"player_{p}"
        assert np.array_equal(o["observations"], game.observation(p))
        assert np.array_equal(o["action_mask"], game.action_mask())
        action = int(rng.choice(game.legal_action_ids()))
        game.play(action)
        obs, rewards, terminated, truncated, _ = env.step({agent: np.int64(action)})
        if terminated["__all__"]:
            break
        assert rewards == {agent: 0.0} and not truncated["__all__"]
    assert game.is_over and set(obs) == set(env.possible_agents)
    assert [rewards[a] for a in env.possible_agents] == terminal_rewards(game.scores(), "rank")


def test_rllibs_env_checker_passes_because_sampling_uses_the_mask():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = MachuPicchuMultiAgentEnv({"num_players": 4})
    for _ in range(30):  # each check resets (seed 42) and steps one sampled action
        check_multiagent_environments(env)
    env.reset(seed=1)
    agent = f"player_{env.game.current_player}"
    legal = set(env.game.legal_action_ids())
    assert {int(env.action_spaces[agent].sample()) for _ in range(200)} <= legal
    other = next(a for a in env.possible_agents if a != agent)  # not deciding: any action
    assert len({int(env.action_spaces[other].sample()) for _ in range(200)}) > len(legal)


def test_bad_actions_and_options_name_what_is_allowed_and_change_nothing():
    env = MachuPicchuMultiAgentEnv({"num_players": 2})
    env.reset(seed=3)
    agent = f"player_{env.game.current_player}"
    other = next(a for a in env.possible_agents if a != agent)
    before = env.game.state.copy()
    illegal = next(i for i in range(200) if i not in env.game.legal_action_ids())
    for actions in ({agent: illegal}, {agent: 0.5}, {other: 0}, {agent: 0, other: 0}):
        with pytest.raises(IllegalActionError, match="legal"):
            env.step(actions)
        assert np.array_equal(env.game.state, before)
    with pytest.raises(ValueError, match="num_players"):
        MachuPicchuMultiAgentEnv({"num_players": 6})
    with pytest.raises(ValueError, match="known: "):
        MachuPicchuMultiAgentEnv({"players": 2})


def test_rllib_ppo_trains_two_iterations_and_its_checkpoint_plays_a_legal_game(tmp_path,
                                                                              ray_env):
    import torch

    from machu_env.agents import make_agent
    from machu_env.envs.rllib import MODULE_ID
    from machu_env.train.ppo.rllib_ppo import train

    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    lines = []
    summary = train(players=2, iterations=2, env_runners=1, out=tmp_path / "run",
                    train_batch_size=600, minibatch_size=200, log=lines.append)
    assert len(summary["iterations"]) == 2 and all(r["env_steps"] >= 600
                                                   for r in summary["iterations"])
    checkpoint = tmp_path / "run" / "checkpoint"
    assert (checkpoint / "policy.safetensors").is_file()
    sampler = make_agent(f"rllib:{checkpoint}", seed=0, deterministic=False)
    game = Game(2, 7)  # (a barely trained greedy policy may never end a game: sample)
    while not game.is_over and len(game.history) < 5000:
        game.play(sampler.act(game))  # play() raises on an illegal action
    assert game.is_over
    agent = make_agent(f"rllib:{checkpoint}", seed=0)
    # the agent file holds the trained module's weights: the same masked greedy decisions
    from ray.rllib.core.rl_module.rl_module import RLModule

    module = RLModule.from_checkpoint(checkpoint / "learner_group" / "learner" / "rl_module"
                                      / MODULE_ID)  # a checkpoint this test wrote itself
    env = MachuPicchuMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=11)
    for _ in range(40):
        (name, o), = obs.items()
        batch = {"obs": {k: torch.as_tensor(v)[None] for k, v in o.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        action = int(torch.argmax(logits))
        assert action == agent.act(env.game)
        obs, *_ = env.step({name: action})


def test_an_rllib_agent_name_without_a_checkpoint_names_what_is_expected(tmp_path):
    from machu_env.agents import make_agent

    with pytest.raises(ValueError, match="rllib_ppo"):
        make_agent(f"rllib:{tmp_path}")


def test_truncated_episodes_stay_ended_and_options_are_checked():
    from machu_env.core.errors import ResetNeeded

    env = MachuPicchuMultiAgentEnv({"num_players": 2, "max_decisions": 30, "seed": 1})
    obs, _ = env.reset()
    truncated = {"__all__": False}
    while not truncated["__all__"]:
        (agent,) = obs
        move = int(np.flatnonzero(obs[agent]["action_mask"])[0])  # moves, never stays
        obs, _, terminated, truncated, _ = env.step({agent: move})
        assert not terminated["__all__"]
    decisions = len(env.game.history)
    with pytest.raises(ResetNeeded, match="truncated at 30 decisions"):
        env.step({"player_0": 0})
    assert len(env.game.history) == decisions  # no more play after the end
    for config, message in (({"learning_game": "no"}, "learning_game must be True or False"),
                            ({"learning_game": 1}, "learning_game must be True or False"),
                            ({"seed": "abc"}, "seed must be an int"),
                            ({"seed": -1}, "seed must be an int"),
                            ({"seed": 2**70}, "seed must be an int")):
        with pytest.raises(ValueError, match=message):
            MachuPicchuMultiAgentEnv(config)
    with pytest.raises(ValueError, match="seed must be an int"):
        env.reset(seed="abc")


def test_rllib_on_the_batch_engine_trains_evaluates_checkpoints_and_resumes(tmp_path, ray_env):
    """RLlib's PPO on the Gymnasium VectorEnv (many games per env-runner
    call), the win share against its opponents and against gold in the results, frozen copies
    of the policy joining the opponent pool, periodic checkpoints that play as rllib:<folder>,
    and a resumed run that goes on from the checkpoint's iteration."""
    from machu_env.agents import make_agent
    from machu_env.train.ppo.rllib_ppo import train

    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    lines: list[str] = []
    summary = train(players=2, iterations=2, env_runners=0, envs_per_runner=8,
                    out=tmp_path / "run", train_batch_size=1024, minibatch_size=256,
                    layers=(32, 32), log=lines.append, batch_engine=True, eval_every=1,
                    eval_games=8, checkpoint_every=1, snapshot_every=1)
    rows = summary["iterations"]
    assert [r["iteration"] for r in rows] == [1, 2]
    assert all(r["env_steps"] >= 1024 and 0 <= r["eval_win_share"] <= 1 for r in rows)
    assert 0 <= rows[-1]["win_share"] <= 1  # (games of 8 slots x 128 steps have ended)
    assert any("frozen copies" in line for line in lines)
    for folder in ("checkpoint_1", "checkpoint_2", "checkpoint"):
        agent = make_agent(f"rllib:{tmp_path / 'run' / folder}", seed=0)
        game = Game(2, 3)
        for _ in range(20):
            game.play(agent.act(game))  # raises on an illegal action
    with pytest.raises(ValueError, match="trust-pickle"):
        train(batch_engine=True, resume=tmp_path / "run" / "checkpoint_1", out=tmp_path / "x")
    again = train(players=2, iterations=1, env_runners=0, envs_per_runner=8,
                  out=tmp_path / "resumed", train_batch_size=1024, minibatch_size=256,
                  layers=(32, 32), log=lines.append, batch_engine=True,
                  resume=tmp_path / "run" / "checkpoint_1", trust_pickle=True)
    assert [r["iteration"] for r in again["iterations"]] == [2]
    assert (tmp_path / "run" / "tb").is_dir()
    # any checkpoint of the module: without the data-only file, only with trust_pickle
    bare = tmp_path / "bare"
    import shutil

    shutil.copytree(tmp_path / "run" / "checkpoint", bare)
    (bare / "policy.safetensors").unlink()
    with pytest.raises(ValueError, match="trust_pickle"):
        make_agent(f"rllib:{bare}")
    converted = make_agent(f"rllib:{bare}", seed=0, trust_pickle=True)
    shipped = make_agent(f"rllib:{tmp_path / 'run' / 'checkpoint'}", seed=0)
    game = Game(2, 5)
    for _ in range(20):
        assert converted.act(game) == shipped.act(game)
        game.play(shipped.act(game))


def test_the_pettingzoo_env_trains_with_rllibs_stock_masking_module(ray_env):
    """RLlib's own ActionMaskingTorchRLModule reads the observation under
    "observations"; env(observation_key="observations") gives it that key."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    import machu_env

    register_env("machu_pz_test", lambda cfg: PettingZooEnv(
        machu_env.env(num_players=2, observation_key="observations")))
    ray_env.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    stock = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                         model_config={"head_fcnet_hiddens": [32]})
    algo = (PPOConfig().environment("machu_pz_test")
            .multi_agent(policies={"shared"},
                         policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": stock}))
            .env_runners(num_env_runners=0)
            .training(train_batch_size_per_learner=300, minibatch_size=150, num_epochs=1)
            ).build_algo()
    result = algo.train()  # every sampled action legal: an illegal one ends the game (-1)
    assert result["env_runners"]["num_env_steps_sampled"] >= 300
    algo.stop()
    with pytest.raises(ValueError, match="observation_key"):
        machu_env.env(observation_key="obs")


def test_the_rllib_script_refuses_bad_options_before_starting_ray(tmp_path, capsys):
    """Bad options get one line naming what is allowed (exit 2), and no Ray instance starts."""
    import ray

    from machu_env.train.ppo.rllib_ppo import main

    for args, message in ((["--snapshot-every", "-1"], "--snapshot-every must be >= 0"),
                          (["--self-weight", "0"], "--self-weight must be > 0"),
                          (["--eval-games", "0"], "--eval-games must be >= 1")):
        with pytest.raises(SystemExit) as e:
            main([*args, "--out", str(tmp_path / "x")])
        assert e.value.code == 2 and message in capsys.readouterr().err
    for args, message in ((["--opponents", "chess:1"], "chess"),
                          (["--eval-opponents", "gold"], "gold"),
                          (["--resume", str(tmp_path / "none"), "--trust-pickle"],
                           "no such checkpoint folder"),
                          (["--resume", str(tmp_path)], "--trust-pickle")):
        assert main([*args, "--out", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert not ray.is_initialized()
