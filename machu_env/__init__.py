"""machu-env: The Princes of Machu Picchu as a fast, exact reinforcement-learning environment.

One rules engine (numba functions over a flat integer state array, ``machu_env.engine``) and
thin layers over it, each a folder (``docs/architecture.md``): ``rules`` (the tables),
``engine`` (the kernels), ``core`` (``Game``, records), ``views`` (pictures), ``agents``,
``envs`` (the framework adapters), ``train``, ``web``, ``cli``. Start with ``machu_env.Game``.

Every name of the API reference is importable from here: the light ones at once, the ones
that need an extra (SB3, RLlib, OpenSpiel, the web app, Pillow) when first used.
"""

from __future__ import annotations

import importlib
from typing import Any

from machu_env import _cache  # noqa: F401  (first: numba's cache folder for every kernel below)
from machu_env.core.errors import IllegalActionError, OpponentError, ResetNeeded
from machu_env.core.game import Game, card_id
from machu_env.core.positions import redealt
from machu_env.core.records import game_record, load_record, read_record, replay, save_record
from machu_env.engine.observation import OBS_FIELDS, OBS_SIZE
from machu_env.envs.batch_engine import BatchEngine
from machu_env.envs.gym_env import MachuPicchuGymEnv
from machu_env.envs.pettingzoo_env import env, raw_env
from machu_env.rules.actions import ACTION_NOTATION, NUM_ACTIONS, action_id, action_table, notation
from machu_env.views.render import render_text
from machu_env.views.svg import board_svg

# name -> module, imported on first use (each needs an extra or is heavy to import)
_LAZY = {
    "MachuPicchuVectorEnv": "machu_env.envs.vector",
    "make_vector_env": "machu_env.envs.vector",
    "MachuPicchuVecEnv": "machu_env.envs.sb3",
    "MachuPicchuMultiAgentEnv": "machu_env.envs.rllib",
    "MachuPicchuGame": "machu_env.envs.openspiel",
    "svg_to_rgb": "machu_env.views.raster",
    "html_replay": "machu_env.views.replay_html",
    "replay_gif": "machu_env.views.replay_html",
    "make_agent": "machu_env.agents",
    "run_tournament": "machu_env.agents.tournament",
    "create_app": "machu_env.web",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'machu_env' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def _register() -> None:
    import gymnasium

    if "MachuPicchu-v0" not in gymnasium.registry:
        gymnasium.register(id="MachuPicchu-v0",
                           entry_point="machu_env.envs.gym_env:MachuPicchuGymEnv",
                           vector_entry_point="machu_env.envs.vector:make_vector_env")


_register()
Game.picture = board_svg  # a notebook shows a Game as its board; the core imports no view

__version__ = "0.2.0"

__all__ = [
    "ACTION_NOTATION",
    "NUM_ACTIONS",
    "OBS_FIELDS",
    "OBS_SIZE",
    "BatchEngine",
    "Game",
    "IllegalActionError",
    "MachuPicchuGymEnv",
    "OpponentError",
    "ResetNeeded",
    "action_id",
    "action_table",
    "board_svg",
    "card_id",
    "env",
    "game_record",
    "load_record",
    "notation",
    "raw_env",
    "read_record",
    "redealt",
    "render_text",
    "replay",
    "save_record",
    "__version__",
    *_LAZY,
]
