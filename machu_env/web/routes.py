"""The JSON API's endpoints (Starlette's usual pattern: one module-level handler per route,
the app's shared state in ``app.state.web``). Starlette is imported here (the web extra); the
app factory (``app.create_app``) imports this module when it builds the app."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from machu_env.core.checks import check_int
from machu_env.core.records import game_record
from machu_env.views.replay_html import packed_replay
from machu_env.web.catalog import AgentCatalog, policy_hint
from machu_env.web.guards import (
    BodyReader,
    ClientGate,
    JSONResponse,
    board_layout,
    check_same_origin,
    client_of,
    off_loop,
)
from machu_env.web.limits import Limits
from machu_env.web.sessions import JS_SAFE_INT, Saved, Session, load_saved, new_session
from machu_env.web.store import BadRequest, GameStore

STATIC = Path(__file__).parent / "static"


@dataclass
class WebState:
    """What the app's requests share: the limits, the agents a client may name, the games and
    saved positions held, and the guards' counters."""

    limits: Limits
    catalog: AgentCatalog
    games: GameStore = field(init=False)
    saves: GameStore = field(init=False)
    replays: threading.BoundedSemaphore = field(init=False)
    bodies: BodyReader = field(init=False)
    gate: ClientGate = field(init=False)
    shipped: Any = field(init=False)

    def __post_init__(self) -> None:
        lim = self.limits
        self.games = GameStore(total=lim.games, per_client=lim.games_per_client,
                               idle_seconds=lim.idle_seconds, keep_seconds=lim.keep_seconds,
                               finished=lim.finished_games,
                               finished_seconds=lim.finished_seconds,
                               finished_per_client=lim.finished_games_per_client)
        self.saves = GameStore(total=lim.saves, per_client=lim.saves_per_client,
                               idle_seconds=lim.idle_seconds, what="saved positions")
        self.replays = threading.BoundedSemaphore(lim.replays)
        self.bodies = BodyReader(lim.body_budget, lim.body_seconds)
        self.gate = ClientGate(lim.requests_per_client)
        self.shipped = self.catalog.shipped()


def _web(request: Request) -> WebState:
    return request.app.state.web


def _game(request: Request) -> tuple[WebState, str, Session]:
    """The app's state, the game id of the path and its session (404 for an unknown id)."""
    web = _web(request)
    game_id = request.path_params["game_id"]
    return web, game_id, web.games.get(game_id)


def _handled(handler):
    """``handler`` behind the guards every API request passes (same origin for a POST, a
    known board layout, a bounded number of requests in progress per client); a refusal is
    ``{"error": message}`` with its status."""
    async def endpoint(request: Request) -> Response:
        try:
            if request.method == "POST":
                check_same_origin(request)
            board_layout(request)  # (a bad one is refused before any work)
            with _web(request).gate.enter(client_of(request)):
                return await handler(request)
        except BadRequest as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
    return endpoint


def _exclusive(session: Session, work):
    """``work()`` holding the game's lock, which is never waited for: a game that another
    request is moving answers 409 (``busy``) at once."""
    if not session.lock.acquire(blocking=False):
        raise BadRequest("this game is busy with another request (the agents are "
                         "thinking); ask again in a moment", 409)
    try:
        return work()
    finally:
        session.lock.release()


def _published(session: Session, game_id: str, request: Request) -> dict[str, Any]:
    session.published = session.state(game_id, board_layout(request))
    return session.published


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def agents(request: Request) -> Response:
    web = _web(request)
    return JSONResponse({"agents": web.catalog.names(), "also": web.catalog.wrapped(),
                         "policies": web.catalog.policies, "catalogue": web.shipped})


async def create(request: Request) -> Response:
    web = _web(request)
    body = await web.bodies.read(request, web.limits.record_bytes)  # (a branch holds a record)
    owner = client_of(request)

    def start():  # loading a policy and the agents' first moves: off the event loop
        web.games.check_room(owner)  # a refusal costs no replay, no re-deal, no agent
        if isinstance(body, dict) and "save" in body:
            if set(body) != {"save"} or not isinstance(body["save"], str):
                raise BadRequest('load a saved position with {"save": <id>} alone')
            session = load_saved(web.saves.get(body["save"]), web.catalog, web.limits)
        else:
            session = new_session(body, web.catalog, web.limits)
        with session.lock:  # nobody else knows the id yet
            game_id = web.games.add(session, owner)
            if session.seat is not None:  # a watched game moves when the client asks
                session.advance(seconds=web.limits.agent_seconds)
            return _published(session, game_id, request)
    return JSONResponse(await off_loop(start), status_code=201)


async def show(request: Request) -> Response:
    web, game_id, session = _game(request)

    def look():
        if not session.lock.acquire(blocking=False):  # being moved: the last state sent
            return {**(session.published or {}), "busy": True, "pending": True}
        try:
            return _published(session, game_id, request)
        finally:
            session.lock.release()
    return JSONResponse(await off_loop(look))


async def version(request: Request) -> Response:
    """How far the game has gone, in a few bytes (a page polls it to find out that another
    tab moved the game on, then asks for the whole state)."""
    _, _, session = _game(request)
    return JSONResponse({"changes": session.changes, "over": session.finished})


async def play(request: Request) -> Response:
    web, game_id, session = _game(request)
    body = await web.bodies.read(request, web.limits.body_bytes)
    if not isinstance(body, dict) or "action" not in body or set(body) - {"action",
                                                                          "advance", "after"}:
        raise BadRequest('the body must be {"action": <action id or notation string>} '
                         'with, optionally, "advance": false (the agents move later, '
                         'on POST /api/games/{id}/advance) and "after": the state\'s '
                         '"changes" (refused if the game has moved on since)')
    action, then = body["action"], body.get("advance", True)
    if not isinstance(then, bool):
        raise BadRequest(f'"advance" must be true or false, got {then!r:.40}')

    def move():
        game = session.game
        session.check_seen(body.get("after"))
        if session.truncated:
            raise BadRequest(f"the game reached {session.max_decisions} decisions and "
                             "ended truncated", 409)
        if game.is_over:
            raise BadRequest("the game is over", 409)
        if game.current_player != session.seat:
            raise BadRequest(f"not your turn: player {game.current_player} decides", 409)
        if isinstance(action, bool) or not isinstance(action, int | str):
            raise BadRequest(f"action must be an action id (int) or a notation "
                             f"string; got {action!r:.60}. Legal actions: "
                             f"{', '.join(game.legal_actions())}")
        try:
            session.play(action)
        except ValueError as e:  # IllegalActionError: names the legal actions
            raise BadRequest(str(e)[:2000]) from None
        if then:
            session.advance(seconds=web.limits.agent_seconds)
        return _published(session, game_id, request)
    return JSONResponse(await off_loop(lambda: _exclusive(session, move)))


async def save(request: Request) -> Response:
    web, game_id, session = _game(request)
    owner = client_of(request)

    def keep():
        if session.finished:
            raise BadRequest("the game is over: download its record instead", 409)
        names = tuple("you" if p == session.seat else session.names[p]
                      for p in range(session.game.num_players))
        return Saved(session.game.clone(), session.seat, names, tuple(session.days),
                     tuple(session.idle))
    snapshot = await off_loop(lambda: _exclusive(session, keep))
    return JSONResponse({"save": web.saves.add(snapshot, owner),
                         "decisions": len(snapshot.game.history)}, status_code=201)


async def advance(request: Request) -> Response:
    web, game_id, session = _game(request)
    body = await web.bodies.read(request, web.limits.body_bytes)
    if not isinstance(body, dict) or set(body) - {"decisions"}:
        raise BadRequest('the body must be {} (the agents move until your turn) or '
                         '{"decisions": k} (at most k agents\' decisions)')
    try:
        k = body.get("decisions")
        if k is not None:
            k = check_int("decisions", k, 1, web.limits.decisions)
    except ValueError as e:
        raise BadRequest(str(e)[:300]) from None

    def step():
        session.advance(k, seconds=web.limits.agent_seconds)
        return _published(session, game_id, request)
    return JSONResponse(await off_loop(lambda: _exclusive(session, step)))


async def take_back(request: Request) -> Response:
    web, game_id, session = _game(request)
    body = await web.bodies.read(request, web.limits.body_bytes)
    if not isinstance(body, dict) or set(body) - {"after"}:
        raise BadRequest('the body must be {} (take back your latest decision of this turn) '
                         'or {"after": the state\'s "changes"} (refused if the game has moved '
                         'on since)')

    def undo():
        session.check_seen(body.get("after"))
        session.take_back()
        return _published(session, game_id, request)
    return JSONResponse(await off_loop(lambda: _exclusive(session, undo)))


async def hint(request: Request) -> Response:
    web, game_id, session = _game(request)
    name = request.query_params.get("agent", "")
    if name not in web.catalog.policies:
        raise BadRequest(f"agent {name[:60]!r}: hints come from a trained policy; allowed: "
                         f"{', '.join(web.catalog.policies)}")

    def ask():
        game = session.game
        if session.finished or game.current_player != session.seat:
            raise BadRequest("a hint is for your own decision: wait for your turn "
                             "(an agent's hint would show its hidden cards)", 409)
        return policy_hint(web.catalog.make(name, 0), game, name)
    return JSONResponse(await off_loop(lambda: _exclusive(session, ask)))


async def record(request: Request) -> Response:
    web, game_id, session = _game(request)

    def download():
        if not session.finished:  # it holds every player's summit returns (R10.2)
            raise BadRequest("the record can be downloaded after the game is over", 409)
        return game_record(session.game, session.names)
    data = await off_loop(lambda: _exclusive(session, download))
    return Response(json.dumps(data, indent=1), media_type="application/json",
                    headers={"Content-Disposition":
                             'attachment; filename="machu_game.json"'})


async def replay(request: Request) -> Response:
    web = _web(request)
    data = await web.bodies.read(request, web.limits.record_bytes)
    steps = data.get("actions") if isinstance(data, dict) else None
    if isinstance(steps, list) and len(steps) > web.limits.replay_decisions:
        raise BadRequest(f"this record holds {len(steps)} decisions; the replay view draws "
                         f"records of at most {web.limits.replay_decisions} (machu replay RECORD "
                         "--html PAGE draws any record)", 413)
    if not web.replays.acquire(blocking=False):
        raise BadRequest(f"{web.limits.replays} replays are being drawn; try again in a "
                         "moment", 503)

    def frames():
        try:
            out = packed_replay(data)
            if isinstance(out["seed"], int) and out["seed"] > JS_SAFE_INT:
                out["seed"] = str(out["seed"])  # (JSON.parse would round it)
            return out
        except ValueError as e:
            raise BadRequest(str(e)[:500]) from None
        finally:
            web.replays.release()
    return JSONResponse(await off_loop(frames))


ROUTES = [
    Route("/", index),
    Route("/api/agents", agents),
    Route("/api/games", _handled(create), methods=["POST"]),
    Route("/api/games/{game_id}", _handled(show)),
    Route("/api/games/{game_id}/version", _handled(version)),
    Route("/api/games/{game_id}/play", _handled(play), methods=["POST"]),
    Route("/api/games/{game_id}/advance", _handled(advance), methods=["POST"]),
    Route("/api/games/{game_id}/save", _handled(save), methods=["POST"]),
    Route("/api/games/{game_id}/take-back", _handled(take_back), methods=["POST"]),
    Route("/api/games/{game_id}/hint", _handled(hint)),
    Route("/api/games/{game_id}/record", _handled(record)),
    Route("/api/replay", _handled(replay), methods=["POST"]),
]
