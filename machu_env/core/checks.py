"""Argument checks shared by every layer: a bad value raises ``ValueError`` naming the argument,
what was given and what is allowed, before anything changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from machu_env.engine import batch as K
from machu_env.rules.actions import NUM_ACTIONS

MAX_SEED = 2**64 - 1  # the generator's state is 64 bits: larger seeds would alias
MAX_ENVS = 2**20  # games in one batch (about 6 KB of buffers each: some 6 GB at the most)
GAME_OPTIONS = ("start_player", "hands", "deck", "learning_game")
# the most decisions an env, a batch or a tournament lets a game run before it is cut (random
# games take 117-151, the default cut is 5,000; OpenSpiel's information-state tensor holds 2
# floats per decision)
MAX_DECISIONS = 100_000


def check_int(name: str, value: object, lo: int, hi: int | None) -> int:
    """``value`` as an int in ``lo..hi`` (``hi=None``: no upper bound); bools and floats are
    refused (``1.7`` is not silently ``1``)."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok or value < lo or (hi is not None and value > hi):
        allowed = f"an int in {lo}..{hi}" if hi is not None else f"an int >= {lo}"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return int(value)


def check_seed(name: str, value: object) -> int:
    """A seed: an int in ``0..2**64-1``."""
    return check_int(name, value, 0, MAX_SEED)


def check_decisions(name: str, value: object) -> int:
    """A decision limit (``max_decisions``, ``max_learner_steps``): an int in
    ``1..MAX_DECISIONS``."""
    return check_int(name, value, 1, MAX_DECISIONS)


def check_seed_or_none(name: str, value: object) -> int | None:
    """A ``reset(seed=...)``: None (draw one) or a seed (``check_seed``)."""
    return None if value is None else check_seed(name, value)


def check_bool(name: str, value: object) -> bool:
    """``True`` or ``False`` (numpy bools too); ``"no"``, 0 and 1 are refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_game_options(options: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Options passed on to ``Game`` by an env: only ``GAME_OPTIONS`` (``seed`` belongs to
    ``reset``)."""
    unknown = sorted(set(options) - set(GAME_OPTIONS))
    if "seed" in unknown:
        raise ValueError(f"{where} takes no seed argument: give it to reset(seed=...)")
    if unknown:
        raise UnknownOptionError(
            f"unknown option(s) for {where}: {', '.join(unknown)} (got an unexpected keyword "
            f"argument {unknown[0]!r}); allowed: {', '.join(GAME_OPTIONS)}")
    return dict(options)


class UnknownOptionError(ValueError, TypeError):
    """An env option that does not exist: a ValueError like every bad input here, and the
    TypeError Python raises for an unexpected keyword argument (TorchRL's ``GymEnv`` tries
    ``frameskip`` and drops it on that TypeError)."""


def action_array(actions: Any, n: int, who: str = "actions") -> np.ndarray:
    """``actions`` as int32 ids, checked before any cast: an integer array (not bool) of shape
    ``(n,)`` with every id in ``0..NUM_ACTIONS-1``; ValueError otherwise (``2**32 + k`` is not
    ``k``, ``0.9`` is not 0)."""
    arr = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if arr.shape != (n,) or arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{who} must be an integer array of shape ({n},) holding action ids "
                         f"0..{NUM_ACTIONS - 1}; got a {arr.dtype} array of shape {arr.shape}")
    if n and (arr.min() < 0 or arr.max() >= NUM_ACTIONS):  # (no mask on the usual path)
        games = np.flatnonzero((arr < 0) | (arr >= NUM_ACTIONS))
        shown = ", ".join(f"game {i}: {arr[i]}" for i in games[:10])
        raise ValueError(f"{who}: ids must be in 0..{NUM_ACTIONS - 1}; out of range in "
                         f"{len(games)} game(s): {shown}")
    return arr.astype(np.int32)


def refuse_illegal(bufs: np.ndarray, counts: np.ndarray, actions: np.ndarray, who: str,
                   hint: str) -> None:
    """ValueError naming the games (rows of ``bufs``) where ``actions`` is not legal."""
    bad = np.zeros(len(actions), dtype=np.int8)
    K.illegal_games(bufs, counts, actions, bad)
    if bad.any():
        games = np.flatnonzero(bad)
        shown = ", ".join(f"game {i}: {int(actions[i])}" for i in games[:10])
        more = f" (and {len(games) - 10} more)" if len(games) > 10 else ""
        raise ValueError(f"illegal {who} in {len(games)} game(s): {shown}{more}; {hint}")
