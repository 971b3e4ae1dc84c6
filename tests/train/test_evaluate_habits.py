"""A training run's evaluation reports how often the learner took the roads to the summit (temple
sacrifices, Main Temple offerings, Sun Clock moves) per game, beside its win share, so that a
road left unused shows within minutes (``evaluate.win_share_and_habits``)."""

from __future__ import annotations

import numpy as np

from machu_env.rules import actions as A
from machu_env.train.ppo.evaluate import win_share, win_share_and_habits

SACRIFICES = np.arange(A.A_SACRIFICE + 1, A.A_OFFER)  # sacrifice 1..6 llamas (R4.2.1)
OFFERS = np.arange(A.A_OFFER + 1, A.A_OFFER + 32)  # a non-empty Main Temple offering (R4.2.2)
ACQUIRE = np.arange(A.A_ACQUIRE, A.A_ACQUIRE + 3)  # a priest or a Virgin (R4.4)


def chooser(avoid: np.ndarray, prefer: np.ndarray):
    """Random legal play that never takes ``avoid`` and always takes the largest of ``prefer``
    when one is legal."""
    rng = np.random.default_rng(4)

    def predict(obs, masks):
        out = np.empty(len(masks), dtype=np.int64)
        for i, m in enumerate(masks):
            wanted = prefer[m[prefer]]
            legal = np.flatnonzero(m)
            allowed = np.setdiff1d(legal, avoid) if np.setdiff1d(legal, avoid).size else legal
            out[i] = wanted.max() if wanted.size else rng.choice(allowed)
        return out
    return predict


def test_a_player_who_never_sacrifices_reports_none_and_one_who_always_does_reports_them():
    never = chooser(np.concatenate([SACRIFICES, OFFERS]), np.empty(0, np.int64))
    always = chooser(np.empty(0, np.int64), np.concatenate([SACRIFICES, OFFERS, ACQUIRE]))
    share, none = win_share_and_habits(never, "builder", 48, 2, seed=3)
    _, some = win_share_and_habits(always, "builder", 48, 2, seed=3)
    assert none["sacrifices_per_game"] == 0 and none["offers_per_game"] == 0
    assert some["offers_per_game"] > 1  # every Main Temple visit with goods offers them
    assert some["sacrifices_per_game"] > 0 and set(some) == {  # (priests are rare)
        "sacrifices_per_game", "offers_per_game", "sunclocks_per_game"}
    assert 0 <= share <= 1


def test_the_win_share_is_the_one_win_share_reports():
    predict = chooser(np.empty(0, np.int64), np.empty(0, np.int64))
    share, _ = win_share_and_habits(predict, "random", 40, 2, seed=8)
    again = chooser(np.empty(0, np.int64), np.empty(0, np.int64))
    assert share == win_share(again, "random", 40, 2, seed=8)
