"""``machu train`` sizes itself to the machine: the games in flight grow with the threads, the
update keeps its two-core size, a GPU is used where there is one, two cores keep the published
settings, and every setting given is kept as given; the run's first line says what it picked."""

from __future__ import annotations

import pytest

from machu_env.train.ppo import sizing

pytest.importorskip("torch")


@pytest.mark.parametrize("cores,games,steps", [(1, 128, 128), (2, 128, 128), (4, 256, 64),
                                               (6, 256, 64), (8, 512, 32), (16, 1024, 16),
                                               (64, 4096, 8), (256, 4096, 8)])
def test_the_games_grow_with_the_cores_and_the_update_keeps_its_size(cores, games, steps):
    s = sizing.size(0, 0, 0, "auto", cores, None)
    assert (s.n_envs, s.n_steps, s.threads, s.device) == (games, steps, cores, "cpu")
    assert s.n_envs * s.n_steps == sizing.ROLLOUT_ROWS or s.n_steps == sizing.MIN_STEPS
    assert s.n_envs * s.n_steps % 4096 == 0  # the default minibatch divides the rollout
    assert s.sized == ("threads", "n_envs", "n_steps", "device")


def test_two_cores_keep_the_published_settings_and_a_gpu_is_used_where_there_is_one():
    two = sizing.size(0, 0, 0, "auto", 2, None)
    assert (two.n_envs, two.n_steps, two.threads, two.device) == (128, 128, 2, "cpu")
    assert sizing.size(0, 0, 0, "auto", 16, "NVIDIA H200").device == "cuda"


def test_what_is_given_is_kept():
    s = sizing.size(128, 0, 3, "cpu", 16, "NVIDIA H200")
    assert (s.n_envs, s.n_steps, s.threads, s.device) == (128, 128, 3, "cpu")
    assert s.sized == ("n_steps",)
    given = sizing.size(64, 32, 1, "cuda", 16, "NVIDIA H200")
    assert (given.n_envs, given.n_steps, given.threads, given.device, given.sized) == \
        (64, 32, 1, "cuda", ())
    assert given.words(16, "NVIDIA H200").startswith(
        "machu train: 64 games x 32 steps per rollout, 1 thread, cuda (as given")


def test_the_first_line_says_what_was_picked_and_why():
    line = sizing.size(0, 0, 0, "auto", 2, None).words(2, None)
    assert line == ("machu train: 128 games x 128 steps per rollout, 2 threads, cpu, sized to "
                    "this machine (2 cores, no GPU: 64 games a thread, 16,384 rows an update); "
                    "--threads, --n-envs, --n-steps, --device set them")


def test_a_run_prints_its_sizing_first_and_records_what_it_used(tmp_path, capsys):
    import json

    from machu_env.train.run.config import TrainConfig
    from machu_env.train.run.selfplay import train

    train(TrainConfig(players=2, timesteps=2048, seed=0, out=str(tmp_path / "run"),
                      batch_size=256, imitate="", eval_every=2048, eval_games=4,
                      eval_opponents="gold", n_envs=0, n_steps=0, threads=1,
                      device="auto"), verbose=True)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("machu train: 128 games x 128 steps per rollout, 1 thread, ")
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    assert (saved["n_envs"], saved["n_steps"], saved["threads"]) == (128, 128, 1)


def test_impossible_sizes_are_refused_in_one_line_and_nothing_is_written(tmp_path):
    from machu_env.train.run.config import TrainConfig

    with pytest.raises(ValueError, match="n_envs"):
        TrainConfig(n_envs=-1, out=str(tmp_path / "run")).check()
    config = TrainConfig(n_envs=100, out=str(tmp_path / "run"))  # 100 x 128 rows: no 4096 split
    with pytest.raises(ValueError, match="batch_size"):
        config.size_to(2, None)
    assert not (tmp_path / "run").exists()
