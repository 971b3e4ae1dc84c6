"""The trainer's own games (``train.ppo.games.games_of``) keep no copy of every game for an undo
(a failed step ends the run), and step exactly as a batch that keeps one."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from train_kit import tiny  # noqa: E402

from machu_env.core.learner_batch import LearnerBatch  # noqa: E402
from machu_env.train.ppo.games import games_of  # noqa: E402


def test_the_trainers_games_step_as_the_default_batch_without_its_undo_copy(tmp_path):
    games = games_of(tiny(tmp_path, pool="random:1,gold:1", n_envs=8, observation=2),
                     net_config={})
    assert isinstance(games, LearnerBatch) and games.undo_on_error is False
    kept = LearnerBatch(8, 2, seed=games._seed, pool="random:1,gold:1", observation=2)
    assert kept.undo_on_error is True  # (every other batch: a failed step restores the games)
    rng = np.random.default_rng(0)
    for batch in (games, kept):
        batch.reset()
    for _ in range(40):
        masks = kept.action_masks()
        assert (games.action_masks() == masks).all()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1).astype(np.int32)
        a, b = games.advance_unchecked(actions), kept.advance_unchecked(actions)
        assert (a.rewards == b.rewards).all() and (a.dones == b.dones).all()
    assert (games.states == kept.states).all()
    assert games._backup == [] and len(kept._backup) > 0
