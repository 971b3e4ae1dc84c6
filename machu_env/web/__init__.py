"""Play in the browser: a local web app (Starlette on uvicorn; the ``web`` extra).

    machu serve                      # http://127.0.0.1:8000
    machu serve --host 0.0.0.0 --port 8080

One static page (plain JavaScript, no build step, no CDN) over a small JSON API; ``create_app()``
returns the ASGI app (for tests and for embedding):

* ``GET /api/agents`` — the agent names that can be opponents;
* ``POST /api/games`` ``{"num_players", "seat", "opponents": [names] or one name, "seed"}`` —
  a new game; the opponents move until it is the human's turn; answers the game's state;
* ``GET /api/games/{id}`` — the state: the board SVG as the human's seat sees it, the legal
  actions (ids and notation) when it is the human's turn, the history (another player's summit
  returns read ``return a card``: R10.2), and the scores once the game is over;
* ``POST /api/games/{id}/play`` ``{"action": id or notation}`` — the human's decision, then the
  opponents' until the human's turn again; the new state;
* ``GET /api/games/{id}/record`` — the game record (JSON, ``machu replay`` reads it), once
  the game is over (it holds every player's summit returns);
* ``POST /api/replay`` (a game record) — every board of the game and its log, for the replay
  view.

Bad input (unknown game, illegal action, bad options, not your turn) gets HTTP 4xx with
``{"error": message}`` naming what is allowed, and changes nothing. Agents run in a worker
thread (``mcts`` takes seconds), one decision at a time per game. The server never sends a
board or a history that shows another player's cards. Games live in memory (the newest
``MAX_GAMES``).
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..actions import visible_notation
from ..agents import agent_names, make_agent
from ..checks import check_int
from ..game import Game
from ..records import MAX_RECORD_BYTES, game_record
from ..replay_html import replay_frames
from ..svg import board_svg

STATIC = Path(__file__).parent / "static"
MAX_GAMES = 64
GAME_KEYS = ("num_players", "seat", "opponents", "seed")


class BadRequest(ValueError):
    """A client's mistake: answered with ``status`` and the message, nothing changed."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Session:
    """One game in the app: the human's seat and the agents of the other seats."""

    game: Game
    seat: int
    names: list[str]
    agents: dict[int, Any]
    lock: threading.Lock = field(default_factory=threading.Lock)
    error: str | None = None

    def advance(self) -> None:
        """The agents decide until it is the human's turn or the game is over."""
        game = self.game
        while not game.is_over and game.current_player != self.seat:
            player = game.current_player
            try:
                game.play(self.agents[player].act(game))
            except Exception as e:  # an agent's failure is not the player's: reported as such
                self.error = f"agent {self.names[player]} failed: {type(e).__name__}: {e}"
                return

    def state(self, game_id: str) -> dict[str, Any]:
        game, seat = self.game, self.seat
        your_turn = not game.is_over and game.current_player == seat and self.error is None
        return {
            "id": game_id, "num_players": game.num_players, "seat": seat, "seed": game.seed,
            "agents": self.names, "day": game.day, "decision": game.decision,
            "current_player": None if game.is_over else game.current_player,
            "your_turn": your_turn,
            "svg": board_svg(game, seat),
            "legal": [{"id": i, "action": a} for i, a in
                      zip(game.legal_action_ids(), game.legal_actions(), strict=True)]
            if your_turn else [],
            "history": [{"player": p, "agent": self.names[p],
                         "action": visible_notation(a, p, seat)} for p, a in game.history],
            "over": game.is_over, "end": game.end,
            "scores": game.scores() if game.is_over else None,
            "error": self.error,
        }


def parse_new_game(body: Any) -> tuple[int, int, list[str], int]:
    """Check a ``POST /api/games`` body; BadRequest naming what is allowed."""
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object with {', '.join(GAME_KEYS)}")
    unknown = sorted(set(body) - set(GAME_KEYS))
    if unknown:
        raise BadRequest(f"unknown field(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(GAME_KEYS)}")
    try:
        n = body.get("num_players", 2)
        check_int("num_players", n, 2, 5)
        seat = body.get("seat", 0)
        check_int("seat", seat, 0, n - 1)
        seed = body.get("seed")
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
        check_int("seed", seed, 0, 2**32 - 1)
    except ValueError as e:
        raise BadRequest(str(e)) from None
    opponents = body.get("opponents", "random")
    if isinstance(opponents, str):
        opponents = [opponents] * (n - 1)
    if not (isinstance(opponents, list) and len(opponents) == n - 1
            and all(isinstance(o, str) for o in opponents)):
        raise BadRequest(f"opponents must be one agent name or a list of {n - 1} agent names "
                         f"(the other seats in seat order); got {opponents!r:.80}")
    return n, seat, opponents, seed


def new_session(body: Any) -> Session:
    n, seat, opponents, seed = parse_new_game(body)
    others = [p for p in range(n) if p != seat]
    agents = {}
    for p, name in zip(others, opponents, strict=True):
        try:
            agents[p] = make_agent(name, seed=seed + p)  # policies: data-only files only
        except (ValueError, OSError) as e:
            raise BadRequest(f"opponent {name!r}: {e}") from None
    names = ["you" if p == seat else agents[p].name for p in range(n)]
    return Session(Game(n, seed=seed), seat, names, agents)


def create_app():
    """The ASGI app (Starlette)."""
    try:
        from starlette.applications import Starlette
        from starlette.concurrency import run_in_threadpool
        from starlette.requests import Request
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Route
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          "pip install 'machu-env[web]'") from None

    games: OrderedDict[str, Session] = OrderedDict()
    counter = itertools.count(1)
    registry = threading.Lock()

    def error(message: str, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def read_json(request: Request, limit: int = 64 * 1024) -> Any:
        body = await request.body()
        if len(body) > limit:
            raise BadRequest(f"the request body is larger than {limit} bytes", 413)
        try:
            return json.loads(body or b"null")
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise BadRequest(f"the body is not JSON ({e})") from None

    def session_of(request: Request) -> tuple[str, Session]:
        game_id = request.path_params["game_id"]
        with registry:
            session = games.get(game_id)
        if session is None:
            raise BadRequest(f"no game {game_id!r} (games: {', '.join(games) or 'none'}); "
                             "start one with POST /api/games", 404)
        return game_id, session

    def handled(handler):
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except BadRequest as e:
                return error(str(e), e.status)
        return endpoint

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def agents(request: Request) -> Response:
        return JSONResponse({"agents": agent_names(),
                             "also": ["policy:<file>.safetensors", "search:<policy>",
                                      "rollout:<policy>"]})

    async def create(request: Request) -> Response:
        session = new_session(await read_json(request))
        game_id = str(next(counter))
        with registry:
            games[game_id] = session
            while len(games) > MAX_GAMES:
                games.popitem(last=False)

        def start():
            with session.lock:
                session.advance()
                return session.state(game_id)
        return JSONResponse(await run_in_threadpool(start), status_code=201)

    async def show(request: Request) -> Response:
        game_id, session = session_of(request)

        def look():
            with session.lock:
                return session.state(game_id)
        return JSONResponse(await run_in_threadpool(look))

    async def play(request: Request) -> Response:
        game_id, session = session_of(request)
        body = await read_json(request)
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise BadRequest('the body must be {"action": <action id or notation string>}')
        action = body["action"]

        def move():
            with session.lock:
                game = session.game
                if game.is_over:
                    raise BadRequest("the game is over", 409)
                if game.current_player != session.seat:
                    raise BadRequest(f"not your turn: player {game.current_player} decides",
                                     409)
                if isinstance(action, bool) or not isinstance(action, int | str):
                    raise BadRequest(f"action must be an action id (int) or a notation "
                                     f"string; got {action!r:.60}. Legal actions: "
                                     f"{', '.join(game.legal_actions())}")
                try:
                    game.play(action)
                except ValueError as e:  # IllegalActionError: names the legal actions
                    raise BadRequest(str(e)) from None
                session.advance()
                return session.state(game_id)
        return JSONResponse(await run_in_threadpool(move))

    async def record(request: Request) -> Response:
        game_id, session = session_of(request)
        with session.lock:
            if not session.game.is_over:  # it holds every player's summit returns (R10.2)
                raise BadRequest("the record can be downloaded after the game is over", 409)
            data = game_record(session.game, session.names)
        return Response(json.dumps(data, indent=1), media_type="application/json",
                        headers={"Content-Disposition":
                                 f'attachment; filename="machu_game_{game_id}.json"'})

    async def replay(request: Request) -> Response:
        data = await read_json(request, MAX_RECORD_BYTES)

        def frames():
            try:
                return replay_frames(data)
            except ValueError as e:
                raise BadRequest(str(e)) from None
        return JSONResponse(await run_in_threadpool(frames))

    routes = [
        Route("/", index),
        Route("/api/agents", agents),
        Route("/api/games", handled(create), methods=["POST"]),
        Route("/api/games/{game_id}", handled(show)),
        Route("/api/games/{game_id}/play", handled(play), methods=["POST"]),
        Route("/api/games/{game_id}/record", handled(record)),
        Route("/api/replay", handled(replay), methods=["POST"]),
    ]
    return Starlette(routes=routes)


def serve(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the app with uvicorn (blocking)."""
    try:
        import uvicorn
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          "pip install 'machu-env[web]'") from None
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")
