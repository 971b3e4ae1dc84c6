"""The head start, a training curriculum (``LearnerBatch(head_start=...)``, ``machu train
--head-start``): in that share of new training games the learner starts holding one priest card
taken from its row (R4.4) without payment, so that it meets the temples' sacrifices (R4.2.1).
Opponents never get one, every other game plays the rules, and a bad share is refused."""

from __future__ import annotations

import numpy as np
import pytest

from machu_env.core.learner_batch import LearnerBatch
from machu_env.engine.decisions import sacrifice_value
from machu_env.rules import layout as L
from machu_env.rules.actions import NUM_ACTIONS


def priests(env: LearnerBatch, seat_of) -> np.ndarray:
    """(games, 3): the priest cards by kind that the seat ``seat_of(i)`` holds in game i."""
    return np.array([env.states[i, L.PLAYER_BASE + seat_of(i) * L.PLAYER_SIZE + L.P_PRIESTS:
                                L.PLAYER_BASE + seat_of(i) * L.PLAYER_SIZE + L.P_PRIESTS + 3]
                     for i in range(env.num_envs)])


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int32)


def test_without_a_head_start_no_learner_starts_with_a_priest():
    env = LearnerBatch(64, 2, seed=5, pool="random:1")
    env.reset()
    assert priests(env, lambda i: env.seats[i]).sum() == 0
    assert env.states[:, L.PRIESTS_TAKEN:L.PRIESTS_TAKEN + 3].sum() == 0


@pytest.mark.parametrize("players", [2, 3])
def test_with_a_full_head_start_every_learner_holds_one_priest_taken_from_its_row(players):
    env = LearnerBatch(96, players, seed=5, pool="random:1", head_start=1.0)
    env.reset()
    held = priests(env, lambda i: env.seats[i])
    assert (held.sum(axis=1) == 1).all()
    assert (held.sum(axis=0) > 0).all()  # every kind is drawn
    for i in range(env.num_envs):  # the rows lost that card; opponents hold none
        np.testing.assert_array_equal(env.states[i, L.PRIESTS_TAKEN:L.PRIESTS_TAKEN + 3], held[i])
        for p in range(players):
            if p != env.seats[i]:
                assert priests(env, lambda _, p=p: p)[i].sum() == 0
    # R4.4.2: one card taken leaves the row's sacrifice value at (row size + 4) - 1
    for kind, value in enumerate((7, 8, 9)):
        game = np.flatnonzero(held[:, kind])[0]
        assert sacrifice_value(env.states[game], kind) == value


def test_a_share_of_the_games_gets_the_head_start():
    env = LearnerBatch(2000, 2, seed=9, pool="random:1", head_start=0.3)
    env.reset()
    share = priests(env, lambda i: env.seats[i]).sum() / env.num_envs
    assert 0.26 < share < 0.34  # 0.3 within four standard deviations of 2,000 draws


def test_games_restarted_during_training_get_the_head_start_and_play_to_their_end():
    """Both restart paths: the fused compiled step and the general one."""
    rng = np.random.default_rng(0)
    for fused in (True, False):
        env = LearnerBatch(32, 2, seed=3, pool="random:1", head_start=1.0)
        env.reset()
        obs = np.empty((env.num_envs, env.obs_size), dtype=np.float32)
        masks = np.zeros((env.num_envs, NUM_ACTIONS), dtype=np.bool_)
        env.observe(obs, masks)
        restarted = ended = 0
        for _ in range(400):
            actions = random_actions(masks, rng)
            if fused:
                ended += int(env.advance_compiled(actions, obs, masks)[1].sum())
            else:
                ended += env.advance(actions).ended.size
                env.observe(obs, masks)
            new = np.flatnonzero(env._learner_steps == 0)
            restarted += new.size
            for i in new:
                seat = env.seats[i]
                assert priests(env, lambda _, s=seat: s)[i].sum() == 1
        assert ended > 0 and restarted > 0


@pytest.mark.parametrize("bad", [1.5, -0.1, True, "0.5", float("nan")])
def test_a_bad_share_is_refused_in_words(bad):
    with pytest.raises(ValueError, match="head_start must be a share in"):
        LearnerBatch(4, 2, head_start=bad)


@pytest.mark.parametrize("bad", [2.0, -1.0, True])
def test_a_run_with_a_bad_head_start_is_refused(bad):
    from machu_env.train.run.config import TrainConfig

    with pytest.raises(ValueError, match="head_start must be"):
        TrainConfig(head_start=bad).check()


def test_machu_train_refuses_a_bad_head_start_in_words_and_writes_nothing(tmp_path, capsys):
    from machu_env.cli import main

    code = main(["train", "--head-start", "2", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and "--head-start" in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()
