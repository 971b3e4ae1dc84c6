"""The ASGI app (Starlette): the routes of the JSON API over sessions, the game store and the
guards every request passes."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from machu_env._extras import install_hint
from machu_env.core.checks import check_int
from machu_env.core.records import game_record
from machu_env.views.replay_html import packed_replay
from machu_env.web.catalog import AgentCatalog, policy_hint
from machu_env.web.limits import Limits
from machu_env.web.sessions import JS_SAFE_INT, Saved, Session, load_saved, new_session
from machu_env.web.store import BadRequest, GameStore

STATIC = Path(__file__).parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def allowed_hosts_for(host: str, extra: Sequence[str] = ()) -> list[str]:
    """The ``Host`` names a server on ``host`` answers: the local names, ``host`` itself (a
    wildcard address is no name) and the operator's ``extra`` names."""
    names = [*LOCAL_HOSTS, *extra]
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    return list(dict.fromkeys(names))


def create_app(allowed_hosts: Sequence[str] = LOCAL_HOSTS, agents_dir: str | Path | None = None,
               limits: Limits | None = None):
    """The ASGI app (Starlette): answers only requests whose ``Host`` is in ``allowed_hosts``;
    offers the agent files of ``agents_dir`` (if given) as ``policy:<file name>``."""
    try:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        from starlette.requests import Request
        from starlette.responses import FileResponse, Response
        from starlette.routing import Route
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          + install_hint("web")) from None
    from machu_env.web.guards import (
        BodyReader,
        ClientGate,
        JSONResponse,
        board_layout,
        check_same_origin,
        client_of,
        off_loop,
    )

    limits = limits or Limits()
    catalog = AgentCatalog(agents_dir)
    games = GameStore(total=limits.games, per_client=limits.games_per_client,
                      idle_seconds=limits.idle_seconds, keep_seconds=limits.keep_seconds,
                      finished=limits.finished_games, finished_seconds=limits.finished_seconds,
                      finished_per_client=limits.finished_games_per_client)
    saves = GameStore(total=limits.saves, per_client=limits.saves_per_client,
                      idle_seconds=limits.idle_seconds, what="saved positions")
    replays = threading.BoundedSemaphore(limits.replays)
    bodies = BodyReader(limits.body_budget, limits.body_seconds)
    gate = ClientGate(limits.requests_per_client)

    def error(message: str, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    def handled(handler):
        async def endpoint(request: Request) -> Response:
            try:
                if request.method == "POST":
                    check_same_origin(request)
                board_layout(request)  # (a bad one is refused before any work)
                with gate.enter(client_of(request)):
                    return await handler(request)
            except BadRequest as e:
                return error(str(e), e.status)
        return endpoint

    def exclusive(session: Session, work):
        """``work()`` holding the game's lock, which is never waited for: a game that another
        request is moving answers 409 (``busy``) at once."""
        if not session.lock.acquire(blocking=False):
            raise BadRequest("this game is busy with another request (the agents are "
                             "thinking); ask again in a moment", 409)
        try:
            return work()
        finally:
            session.lock.release()

    def published(session: Session, game_id: str, request: Request) -> dict[str, Any]:
        session.published = session.state(game_id, board_layout(request))
        return session.published

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    shipped = catalog.shipped()

    async def agents(request: Request) -> Response:
        return JSONResponse({"agents": catalog.names(), "also": catalog.wrapped(),
                             "policies": catalog.policies, "catalogue": shipped})

    async def create(request: Request) -> Response:
        body = await bodies.read(request, limits.record_bytes)  # (a branch holds a record)
        owner = client_of(request)

        def start():  # loading a policy and the agents' first moves: off the event loop
            games.check_room(owner)  # a refusal costs no replay, no re-deal, no agent
            if isinstance(body, dict) and "save" in body:
                if set(body) != {"save"} or not isinstance(body["save"], str):
                    raise BadRequest('load a saved position with {"save": <id>} alone')
                session = load_saved(saves.get(body["save"]), catalog, limits)
            else:
                session = new_session(body, catalog, limits)
            with session.lock:  # nobody else knows the id yet
                game_id = games.add(session, owner)
                if session.seat is not None:  # a watched game moves when the client asks
                    session.advance(seconds=limits.agent_seconds)
                return published(session, game_id, request)
        return JSONResponse(await off_loop(start), status_code=201)

    async def show(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)

        def look():
            if not session.lock.acquire(blocking=False):  # being moved: the last state sent
                return {**(session.published or {}), "busy": True, "pending": True}
            try:
                return published(session, game_id, request)
            finally:
                session.lock.release()
        return JSONResponse(await off_loop(look))

    async def play(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)
        body = await bodies.read(request, limits.body_bytes)
        if not isinstance(body, dict) or "action" not in body or set(body) - {"action",
                                                                              "advance"}:
            raise BadRequest('the body must be {"action": <action id or notation string>} '
                             'with, optionally, "advance": false (the agents move later, '
                             'on POST /api/games/{id}/advance)')
        action, then = body["action"], body.get("advance", True)
        if not isinstance(then, bool):
            raise BadRequest(f'"advance" must be true or false, got {then!r:.40}')

        def move():
            game = session.game
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
                session.advance(seconds=limits.agent_seconds)
            return published(session, game_id, request)
        return JSONResponse(await off_loop(lambda: exclusive(session, move)))

    async def save(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)
        owner = client_of(request)

        def keep():
            if session.finished:
                raise BadRequest("the game is over: download its record instead", 409)
            names = tuple("you" if p == session.seat else session.names[p]
                          for p in range(session.game.num_players))
            return Saved(session.game.clone(), session.seat, names, tuple(session.days),
                         tuple(session.idle))
        snapshot = await off_loop(lambda: exclusive(session, keep))
        return JSONResponse({"save": saves.add(snapshot, owner),
                             "decisions": len(snapshot.game.history)}, status_code=201)

    async def advance(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)
        body = await bodies.read(request, limits.body_bytes)
        if not isinstance(body, dict) or set(body) - {"decisions"}:
            raise BadRequest('the body must be {} (the agents move until your turn) or '
                             '{"decisions": k} (at most k agents\' decisions)')
        try:
            k = body.get("decisions")
            if k is not None:
                k = check_int("decisions", k, 1, limits.decisions)
        except ValueError as e:
            raise BadRequest(str(e)[:300]) from None

        def step():
            session.advance(k, seconds=limits.agent_seconds)
            return published(session, game_id, request)
        return JSONResponse(await off_loop(lambda: exclusive(session, step)))

    async def take_back(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)
        body = await bodies.read(request, limits.body_bytes)
        if body != {}:
            raise BadRequest("the body must be {} (take back your latest decision of this turn)")

        def undo():
            session.take_back()
            return published(session, game_id, request)
        return JSONResponse(await off_loop(lambda: exclusive(session, undo)))

    async def hint(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)
        name = request.query_params.get("agent", "")
        if name not in catalog.policies:
            raise BadRequest(f"agent {name[:60]!r}: hints come from a trained policy; allowed: "
                             f"{', '.join(catalog.policies)}")

        def ask():
            game = session.game
            if session.finished or game.current_player != session.seat:
                raise BadRequest("a hint is for your own decision: wait for your turn "
                                 "(an agent's hint would show its hidden cards)", 409)
            return policy_hint(catalog.make(name, 0), game, name)
        return JSONResponse(await off_loop(lambda: exclusive(session, ask)))

    async def record(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)

        def download():
            if not session.finished:  # it holds every player's summit returns (R10.2)
                raise BadRequest("the record can be downloaded after the game is over", 409)
            return game_record(session.game, session.names)
        data = await off_loop(lambda: exclusive(session, download))
        return Response(json.dumps(data, indent=1), media_type="application/json",
                        headers={"Content-Disposition":
                                 'attachment; filename="machu_game.json"'})

    async def replay(request: Request) -> Response:
        data = await bodies.read(request, limits.record_bytes)
        steps = data.get("actions") if isinstance(data, dict) else None
        if isinstance(steps, list) and len(steps) > limits.replay_decisions:
            raise BadRequest(f"this record holds {len(steps)} decisions; the replay view draws "
                             f"records of at most {limits.replay_decisions} (machu replay RECORD "
                             "--html PAGE draws any record)", 413)
        if not replays.acquire(blocking=False):
            raise BadRequest(f"{limits.replays} replays are being drawn; try again in a "
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
                replays.release()
        return JSONResponse(await off_loop(frames))

    routes = [
        Route("/", index),
        Route("/api/agents", agents),
        Route("/api/games", handled(create), methods=["POST"]),
        Route("/api/games/{game_id}", handled(show)),
        Route("/api/games/{game_id}/play", handled(play), methods=["POST"]),
        Route("/api/games/{game_id}/advance", handled(advance), methods=["POST"]),
        Route("/api/games/{game_id}/save", handled(save), methods=["POST"]),
        Route("/api/games/{game_id}/take-back", handled(take_back), methods=["POST"]),
        Route("/api/games/{game_id}/hint", handled(hint)),
        Route("/api/games/{game_id}/record", handled(record)),
        Route("/api/replay", handled(replay), methods=["POST"]),
    ]
    app = Starlette(routes=routes, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))])
    app.state.games = games  # for embedding and tests (no endpoint lists them)
    app.state.limits = limits
    return app
