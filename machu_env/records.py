"""Game records: a JSON file that replays to the identical game.

A record holds the format and version, the options (players, seed, variant), the agents' names
(informational) and the notation strings of every decision put to a player (``Game.history``);
single-option decisions replay automatically. ``load_record`` validates and replays it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .game import Game

RECORD_FORMAT = "machu-env-record"
RECORD_VERSION = 1


def game_record(game: Game, agents: list[str] | None = None) -> dict[str, Any]:
    """The record of ``game`` (finished or not) as a plain dict."""
    return {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "options": {"num_players": game.num_players, "seed": game.seed,
                    "learning_game": game.learning_game},
        "agents": list(agents) if agents else None,
        "actions": [{"player": p, "action": a} for p, a in game.history],
        "result": {"end": game.end, "scores": game.scores()} if game.is_over else None,
    }


def save_record(game: Game, path: str | Path, agents: list[str] | None = None) -> None:
    Path(path).write_text(json.dumps(game_record(game, agents), indent=1))


def replay(record: dict[str, Any]) -> Game:
    """Replay a record to its final state; ValueError if it is malformed or does not replay."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a machu-env game record (expected format {RECORD_FORMAT!r})")
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"unsupported record version {record.get('version')!r}; "
                         f"this machu-env reads version {RECORD_VERSION}")
    opts = record.get("options") or {}
    try:
        game = Game(opts["num_players"], seed=opts["seed"],
                    learning_game=opts.get("learning_game", False))
    except KeyError as e:
        raise ValueError(f"record options lack {e.args[0]!r}") from None
    for k, step in enumerate(record.get("actions", [])):
        if game.current_player != step.get("player"):
            raise ValueError(f"record step {k}: expected player {game.current_player} to "
                             f"decide, the record says {step.get('player')}")
        try:
            game.play(step["action"])
        except ValueError as e:
            raise ValueError(f"record step {k}: {e}") from None
    return game


def load_record(path: str | Path) -> Game:
    """Read a record file and replay it."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    return replay(data)
