"""Game records: a JSON file that replays to the identical game.

A record holds the format and version, the options (players, seed, variant), the agents' names
(informational, at most ``MAX_AGENT_NAME`` characters each) and the notation strings of every
decision put to a player (``Game.history``); single-option decisions replay automatically.
``load_record`` validates and replays it.

Version 1 records a game by its seed. Version 2 (written only for a game dealt by hand: a
re-dealt saved position or branch, ``machu_env.core.positions``, or ``Game(hands=..., deck=...)``)
adds the deal to the options: ``start_player``, ``hands`` (card ids per seat) and ``deck``
(card ids, top first); a version-2 record whose ``seed`` is null gives the whole deal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from machu_env.core import files
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.rules.data import NUM_CARDS

RECORD_FORMAT = "machu-env-record"
RECORD_VERSION = 1        # a game set up by its seed
DEALT_RECORD_VERSION = 2  # a game dealt by hand (options hold the deal)
RECORD_VERSIONS = (RECORD_VERSION, DEALT_RECORD_VERSION)
DEAL_KEYS = ("start_player", "hands", "deck")
MAX_AGENT_NAME = 200  # characters; a longer name is cut when written and refused when read


def _short(name: Any) -> str:
    name = str(name)
    return name if len(name) <= MAX_AGENT_NAME else name[:MAX_AGENT_NAME - 1] + "\u2026"


def game_record(game: Game, agents: list[str] | None = None) -> dict[str, Any]:
    """The record of ``game`` (finished or not) as a plain dict."""
    setup = getattr(game, "setup", {}) or {}
    options: dict[str, Any] = {"num_players": game.num_players, "seed": game.seed,
                               "learning_game": game.learning_game}
    if setup:
        options.update(setup)
        if "hands" in setup and "deck" in setup and "start_player" in setup and \
                len(setup["deck"]) + sum(map(len, setup["hands"])) == NUM_CARDS:
            options["seed"] = None  # the deal is whole: the seed decides nothing
    return {
        "format": RECORD_FORMAT,
        "version": DEALT_RECORD_VERSION if setup else RECORD_VERSION,
        "options": options,
        "agents": [_short(a) for a in agents] if agents else None,
        "actions": [{"player": p, "action": a} for p, a in game.history],
        "result": {"end": game.end, "scores": game.scores()} if game.is_over else None,
    }


def save_record(game: Game, path: str | Path, agents: list[str] | None = None) -> None:
    """Write ``game``'s record (``game_record``) to ``path`` as JSON."""
    files.write_json(path, game_record(game, agents), indent=1)


MAX_RECORD_BYTES = 16 * 2**20  # a 5,000-decision game takes about 0.3 MB


def _fail(problem: str) -> ValueError:
    return ValueError(f"malformed game record: {problem}")


def _is_text(value: str) -> bool:
    """Whether ``value`` encodes as UTF-8 (JSON's \\ud800 escapes decode to lone surrogates,
    which no file, terminal or HTTP response can carry)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def replay(record: dict[str, Any], max_decisions: int = DEFAULT_MAX_DECISIONS) -> Game:
    """Replay a record to its final state; ValueError naming the problem if it is malformed, does
    not replay or holds more than ``max_decisions`` decisions (the envs' truncation: a longer
    record is no game an env plays, and replaying one costs work without bound)."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise ValueError(f"not a machu-env game record (expected format {RECORD_FORMAT!r})")
    version = record.get("version")
    if not _is_int(version) or version not in RECORD_VERSIONS:
        raise ValueError(f"unsupported record version {version!r:.40}; this machu-env reads "
                         f"versions {', '.join(map(str, RECORD_VERSIONS))} (an int)")
    opts = record.get("options")
    if not isinstance(opts, dict):
        raise _fail(f"'options' must be an object with num_players, seed, learning_game; "
                    f"got {type(opts).__name__}")
    for key in ("num_players", "seed"):
        if key not in opts:
            raise _fail(f"record options lack {key!r}")
    deal = {k: opts[k] for k in DEAL_KEYS if k in opts}
    if deal and version != DEALT_RECORD_VERSION:
        raise _fail(f"a deal ({', '.join(deal)}) in the options needs version "
                    f"{DEALT_RECORD_VERSION}")
    if opts["seed"] is None and (version != DEALT_RECORD_VERSION or len(deal) != 3):
        raise _fail("a record without a seed is version 2 and gives the whole deal: "
                    "start_player, hands and deck")
    game = Game(opts["num_players"], seed=opts["seed"],
                learning_game=opts.get("learning_game", False), **deal)  # ValueError if bad
    if opts["seed"] is None and len(game.setup["deck"]) + sum(
            map(len, game.setup["hands"])) != NUM_CARDS:
        raise _fail(f"a record without a seed deals all {NUM_CARDS} cards (hands and deck)")
    check_agents(record.get("agents"), game.num_players)
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise _fail(f"'actions' must be a list of {{player, action}} objects; got "
                    f"{type(actions).__name__}")
    if len(actions) > max_decisions:
        raise _fail(f"it holds {len(actions)} decisions; a record holds at most "
                    f"{max_decisions} (games are truncated there)")
    for k, step in enumerate(actions):
        if not isinstance(step, dict) or not isinstance(step.get("action"), str):
            raise _fail(f"step {k} must be an object with 'player' (a seat) and 'action' (a "
                        f"notation string); got {step!r:.80}")
        player = step.get("player")
        if not _is_int(player) or game.current_player != player:
            raise ValueError(f"record step {k}: expected player {game.current_player} (an int) "
                             f"to decide, the record says {player!r:.40}")
        try:
            game.play(step["action"])
        except ValueError as e:
            raise ValueError(f"record step {k}: {e}") from None
    check_result(record.get("result"))
    return game


def check_agents(agents: Any, num_players: int) -> None:
    """A record's ``agents``: null, or one name per player, each a string of at most
    ``MAX_AGENT_NAME`` characters; ValueError naming what is wrong."""
    if agents is None:
        return
    if not (isinstance(agents, list) and len(agents) == num_players
            and all(isinstance(a, str) for a in agents)):
        raise _fail(f"'agents' must be null or a list of {num_players} names (strings); got "
                    f"{agents!r:.80}")
    if not all(_is_text(a) for a in agents):
        raise _fail("an agent name is not valid Unicode text (it holds a lone surrogate such "
                    "as \\ud800); names are UTF-8 text")
    longest = max(map(len, agents))
    if longest > MAX_AGENT_NAME:
        raise _fail(f"an agent name has {longest} characters; names have at most "
                    f"{MAX_AGENT_NAME}")


def check_result(result: Any) -> None:
    """A record's ``result``: null, or an object with ``end`` and ``scores`` (one object per
    player, as ``Game.scores()`` gives them, or null); ValueError naming what is wrong."""
    if result is None:
        return
    if not isinstance(result, dict) or "scores" not in result or "end" not in result:
        raise _fail(f"'result' must be null or an object with 'end' and 'scores'; got "
                    f"{result!r:.80}")
    scores = result["scores"]
    if scores is not None and not (isinstance(scores, list)
                                   and all(isinstance(s, dict) for s in scores)):
        raise _fail(f"'result.scores' must be a list of objects (one per player) or null; got "
                    f"{type(scores).__name__} {scores!r:.60}")


def read_record(path: str | Path) -> dict[str, Any]:
    """A record file's JSON (at most ``MAX_RECORD_BYTES``); ValueError for anything else."""
    # (non-blocking: a FIFO or device named *.json is refused, never waited on)
    return files.read_json(path, limit=MAX_RECORD_BYTES)


def load_record(path: str | Path) -> Game:
    """Read a record file and replay it."""
    return replay(read_record(path))
