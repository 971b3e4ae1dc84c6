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
    """Write ``game``'s record (``game_record``) to ``path`` as JSON."""
    Path(path).write_text(json.dumps(game_record(game, agents), indent=1))


MAX_RECORD_BYTES = 16 * 2**20  # a 5,000-decision game takes about 0.3 MB


def _fail(problem: str) -> ValueError:
    return ValueError(f"malformed game record: {problem}")


def replay(record: dict[str, Any]) -> Game:
    """Replay a record to its final state; ValueError naming the problem if it is malformed or
    does not replay."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a machu-env game record (expected format {RECORD_FORMAT!r})")
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"unsupported record version {record.get('version')!r}; "
                         f"this machu-env reads version {RECORD_VERSION}")
    opts = record.get("options")
    if not isinstance(opts, dict):
        raise _fail(f"'options' must be an object with num_players, seed, learning_game; "
                    f"got {type(opts).__name__}")
    for key in ("num_players", "seed"):
        if key not in opts:
            raise _fail(f"record options lack {key!r}")
    game = Game(opts["num_players"], seed=opts["seed"],
                learning_game=opts.get("learning_game", False))  # ValueError for bad values
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise _fail(f"'actions' must be a list of {{player, action}} objects; got "
                    f"{type(actions).__name__}")
    for k, step in enumerate(actions):
        if not isinstance(step, dict) or not isinstance(step.get("action"), str):
            raise _fail(f"step {k} must be an object with 'player' (a seat) and 'action' (a "
                        f"notation string); got {step!r:.80}")
        if game.current_player != step.get("player"):
            raise ValueError(f"record step {k}: expected player {game.current_player} to "
                             f"decide, the record says {step.get('player')!r:.40}")
        try:
            game.play(step["action"])
        except ValueError as e:
            raise ValueError(f"record step {k}: {e}") from None
    result = record.get("result")
    if result is not None and not (isinstance(result, dict)
                                   and isinstance(result.get("scores"), list | type(None))):
        raise _fail(f"'result' must be null or an object with 'end' and 'scores'; got "
                    f"{type(result).__name__}")
    return game


def read_record(path: str | Path) -> dict[str, Any]:
    """A record file's JSON (at most ``MAX_RECORD_BYTES``); ValueError for anything else."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"{path} is larger than {MAX_RECORD_BYTES // 2**20} MiB: not a game "
                         "record")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not JSON ({e})") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to be a game record") from None


def load_record(path: str | Path) -> Game:
    """Read a record file and replay it."""
    return replay(read_record(path))
