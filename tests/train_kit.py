"""A training run small enough for a test (tests/train and the Ray test share it)."""

from __future__ import annotations

from machu_env.train.run.selfplay import TrainConfig


def tiny(out, **kw) -> TrainConfig:
    """A few thousand steps: 16 games x 64 steps per rollout, small networks."""
    options = dict(players=2, timesteps=3072, seed=0, out=str(out), n_envs=16, n_steps=64,
                   batch_size=256, n_epochs=2, net_arch="32,32", eval_every=2048,
                   snapshot_every=1024, max_snapshots=2, eval_games=16, device="cpu", imitate="")
    options.update(kw)
    return TrainConfig(**options)
