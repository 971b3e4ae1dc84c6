"""machu-env: The Princes of Machu Picchu as a fast, exact reinforcement-learning environment.

One rules engine (numba functions over a flat integer state array, ``machu_env.engine``) and
thin adapters over it. Start with ``machu_env.Game``.
"""

from __future__ import annotations

from . import _cache  # noqa: F401  (first: numba's cache folder for every kernel below)
from .actions import ACTION_NOTATION, NUM_ACTIONS, action_id, action_table, notation
from .engine.observation import OBS_FIELDS, OBS_SIZE
from .errors import IllegalActionError
from .game import Game, card_id
from .gym_env import MachuPicchuGymEnv
from .pettingzoo_env import env, raw_env


def _register() -> None:
    import gymnasium

    if "MachuPicchu-v0" not in gymnasium.registry:
        gymnasium.register(id="MachuPicchu-v0", entry_point="machu_env.gym_env:MachuPicchuGymEnv",
                           vector_entry_point="machu_env.vector:make_vector_env")


_register()

__version__ = "0.1.0"

__all__ = [
    "ACTION_NOTATION",
    "NUM_ACTIONS",
    "OBS_FIELDS",
    "OBS_SIZE",
    "Game",
    "IllegalActionError",
    "MachuPicchuGymEnv",
    "action_id",
    "action_table",
    "card_id",
    "env",
    "notation",
    "raw_env",
    "__version__",
]
