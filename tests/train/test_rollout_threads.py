"""Rollouts collected by several threads (``rollout_threads``; ``train/collect.py``): a run is
reproducible for its seed whatever the threads' interleaving, every game's result reaches the
win statistics, an error in one part stops the rollout with that error, and bad values are
refused in words."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from train_kit import tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from machu_env.cli import app  # noqa: E402
from machu_env.envs.pool_env import PoolVecEnv  # noqa: E402
from machu_env.envs.pool_parts import PoolParts  # noqa: E402
from machu_env.train.ppo import PPO, PPOSettings, net_config, new_net  # noqa: E402
from machu_env.train.selfplay import train  # noqa: E402


def weights(path: Path) -> dict:
    from safetensors.numpy import load_file

    return load_file(str(path))


def test_a_run_with_two_rollout_threads_is_reproducible_and_plays_other_games(tmp_path):
    runs = {name: tiny(tmp_path / name, timesteps=2048, seed=5, rollout_threads=parts)
            for name, parts in (("a", 2), ("b", 2), ("one", 1))}
    for config in runs.values():
        train(config, verbose=False)
    a, b, one = (weights(tmp_path / n / "latest.safetensors") for n in ("a", "b", "one"))
    assert all(np.array_equal(a[k], b[k]) for k in a)  # the same run, thread timing aside
    assert not all(np.array_equal(a[k], one[k]) for k in a)  # part 1's games are its own


def test_the_trainer_builds_one_env_per_part_from_the_settings(tmp_path):
    env = tiny(tmp_path, rollout_threads=4, observation=2).make_env()
    assert isinstance(env, PoolParts) and [p.num_envs for p in env.parts] == [4, 4, 4, 4]
    one = tiny(tmp_path, rollout_threads=1, threads=2, observation=2).make_env()
    assert isinstance(one, PoolVecEnv) and one.num_envs == 16
    assert tiny(tmp_path, threads=2).rollout_parts() == 2  # (0: as many as --threads)
    assert tiny(tmp_path, rollout_threads=16, observation=2).make_env().parts[0].num_envs == 1


def collector(parts: int, seed: int = 0):
    settings = PPOSettings(n_envs=16, n_steps=192, batch_size=256, n_epochs=1)
    model = PPO(new_net(net_config([32], observation=2), seed), settings, seed=seed)
    env = PoolParts(16, parts, 2, seed=seed, pool="random:0.5,gold:0.5", observation=2)
    env.reset()
    model.start(env)
    return model, env


def test_every_finished_game_of_every_part_reaches_the_win_statistics():
    model, env = collector(2)
    seen = {"ended": 0, "won": 0}

    def on_episodes(r) -> None:
        seen["ended"] += r.ended.size
        seen["won"] += int(r.won.sum())

    model.collect(env, on_episodes)
    B = model.buffer
    finished = int(B.starts[1:].sum())  # a game ended or cut at every restart
    assert seen["ended"] > 0 and seen["ended"] <= finished
    assert model.num_timesteps == 16 * 192
    assert B.masks[1:].any(dim=2).all()  # every column of every step written
    assert model.seconds["simulator"] > 0 and model.seconds["rollout_policy"] > 0


def test_an_error_in_one_part_is_raised_after_both_threads_stop():
    model, env = collector(2)

    def broken(r) -> None:
        raise RuntimeError("the statistics broke")

    with pytest.raises(RuntimeError, match="the statistics broke"):
        model.collect(env, broken)
    assert model.num_timesteps == 0  # (the rollout did not count)


def test_bad_rollout_threads_are_refused_in_words(tmp_path):
    for value in (-1, 17, 1.5, True):
        with pytest.raises(ValueError, match="rollout_threads must be"):
            tiny(tmp_path, rollout_threads=value).check()
    result = CliRunner().invoke(app, ["train", "--rollout-threads", "-2", "--out",
                                      str(tmp_path / "x")])
    assert result.exit_code != 0 and "rollout-threads" in result.output
    assert not (tmp_path / "x").exists()
