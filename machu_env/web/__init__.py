"""Play in the browser: a local web app (Starlette on uvicorn; the ``web`` extra).

    machu serve                                  # http://127.0.0.1:8000
    machu serve --agents-dir my_agents/          # also offer my_agents/*.safetensors
    machu serve --host 0.0.0.0 --allowed-host mybox.lan --port 8080

One static page (plain JavaScript, no build step, no CDN) over a small JSON API; ``create_app()``
returns the ASGI app (for tests and for embedding):

* ``GET /api/agents`` — the agent names that can be opponents (clients name agents, never
  files: ``policy:<file>`` only for the files of the folder the operator gave);
* ``POST /api/games`` ``{"num_players", "seat", "opponents": [names] or one name, "seed"}`` —
  a new game under a new unguessable id; the opponents move until it is the human's turn;
  answers the game's state;
* ``GET /api/games/{id}`` — the state: the board SVG as the human's seat sees it, the legal
  actions (ids and notation) when it is the human's turn, the history (another player's summit
  returns read ``return a card``: R10.2), and the scores once the game is over. No state holds
  the seed: it would re-create every hidden card;
* ``POST /api/games/{id}/play`` ``{"action": id or notation}`` — the human's decision, then the
  opponents' until the human's turn again; the new state;
* ``GET /api/games/{id}/record`` — the game record (JSON, ``machu replay`` reads it), once
  the game is over (it holds every player's summit returns and the seed);
* ``POST /api/replay`` (a game record, at most ``DEFAULT_MAX_DECISIONS`` decisions) — its
  log and every board, packed (``frames_gz``: ``replay_html.packed_replay``), for the replay
  view.

What a client may do is bounded (``Limits``): request bodies (read in pieces, refused past the
limit), games per client and in all (a client's new game may evict only its own oldest game;
idle games expire), decisions per game, replays at a time. Requests must be same-origin:
a ``Host`` the server was started for (DNS rebinding), and POSTs with ``Content-Type:
application/json`` and an ``Origin`` that is absent or the served one (cross-site forms).
Bad input (unknown game, illegal action, bad options, not your turn) gets HTTP 4xx with
``{"error": message}`` naming what is allowed, and changes nothing. Agents run in worker
threads (``mcts`` takes seconds), one decision at a time per game. The server never sends a
board or a history that shows another player's cards.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..actions import visible_notation
from ..agents import agent_names, make_agent, shipped_policies
from ..checks import MAX_SEED, check_int
from ..data import LAST_DAY
from ..game import DEFAULT_MAX_DECISIONS, Game
from ..positions import redealt
from ..records import game_record
from ..replay_html import packed_replay
from ..svg import NIGHT_DECISIONS, board_svg
from .store import BadRequest, GameStore
from .words import describe

log = logging.getLogger("machu_env.web")
STATIC = Path(__file__).parent / "static"
GAME_KEYS = ("num_players", "seat", "opponents", "seed", "record", "at", "save")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass(frozen=True)
class Limits:
    """What one request, one client or all clients together can make the server do."""

    body_bytes: int = 64 * 1024          # a request body (a move, new-game options)
    record_bytes: int = 2 * 2**20        # a record for the replay view (5,000 decisions: 0.3 MB)
    body_budget: int = 32 * 2**20        # request bodies being read at once, all clients
    body_seconds: float = 20.0           # a body not received in this time: 408
    games: int = 256                     # running games held in all (finished ones aside)
    games_per_client: int = 16           # running games of one client (address)
    keep_seconds: float = 600.0          # a client's game used this recently is never replaced
    idle_seconds: float = 3600.0         # a game untouched this long is dropped
    finished_games: int = 512            # finished games kept (records downloadable)
    finished_seconds: float = 1800.0     # ... for this long after their last use
    decisions: int = DEFAULT_MAX_DECISIONS  # a game reaching this ends truncated
    agent_seconds: float = 5.0           # agents' thinking per request; then "pending"
    requests_per_client: int = 8         # one client's requests in progress at once
    replays: int = 2                     # replays drawn at a time (others: 503, try again)
    saves: int = 256                     # saved positions held in all
    saves_per_client: int = 32           # a client's new save beyond this drops its oldest


@dataclass
class Session:
    """One game in the app: the human's seat (None: a watched game, every seat an agent) and
    the agents of the other seats."""

    game: Game
    seat: int | None
    names: list[str]
    agents: dict[int, Any]
    max_decisions: int = DEFAULT_MAX_DECISIONS
    lock: threading.Lock = field(default_factory=threading.Lock)  # only ever try-acquired
    error: str | None = None
    days: list[int] = field(default_factory=list)  # the day of every decision played
    published: dict[str, Any] | None = None  # the last state sent (a busy game answers it)

    @property
    def truncated(self) -> bool:
        return not self.game.is_over and len(self.game.history) >= self.max_decisions

    @property
    def finished(self) -> bool:
        return self.game.is_over or self.truncated

    def play(self, action: int | str) -> None:
        """One decision (IllegalActionError, nothing changed, if it is not legal)."""
        day = self.game.day
        self.game.play(action)
        self.days.append(day)

    def advance(self, decisions: int | None = None, seconds: float | None = None) -> None:
        """The agents decide until it is the human's turn or the game is over (or truncated),
        or for at most ``decisions`` decisions, or until ``seconds`` have passed (the state
        then says ``pending``: the client asks again)."""
        game = self.game
        deadline = None if seconds is None else time.monotonic() + seconds
        while (not self.finished and self.error is None and game.current_player != self.seat
               and decisions != 0):
            if deadline is not None and time.monotonic() > deadline:
                return
            player = game.current_player
            try:
                self.play(self.agents[player].act(game))
            except Exception as e:  # an agent's failure is not the player's: reported as such
                # never the exception's text: it may name the legal actions, which at a summit
                # return are the agent's hidden cards
                log.warning("agent %s failed in a web game: %r", self.names[player], e)
                self.error = (f"agent {self.names[player]} failed ({type(e).__name__}); the "
                              "game cannot go on (the server's log has the details)")
                return
            if decisions is not None:
                decisions -= 1

    def _last_other(self, viewer) -> tuple[int, str] | None:
        """The latest decision of another seat than the human's, as the viewer may see it:
        outlined on the board (what changed since your move)."""
        for p, action in reversed(self.game.history):
            if p != self.seat:
                return p, visible_notation(action, p, viewer)
        return None

    def _legal(self) -> list[dict[str, Any]]:
        """The human's legal actions: id, notation and what each does and costs in words."""
        game, everything = self.game, self.game.view(None)
        return [{"id": i, "action": a, "says": describe(game, a, everything)}
                for i, a in zip(game.legal_action_ids(), game.legal_actions(), strict=True)]

    def state(self, game_id: str) -> dict[str, Any]:
        """What the human's seat may see (never the seed: it re-creates every hidden card);
        a watched game shows the public view. Once the game is over every hand is shown, as
        at the table (R9), with each player's VP by icon."""
        game, seat = self.game, self.seat
        your_turn = not self.finished and game.current_player == seat and self.error is None
        viewer = None if game.is_over else "public" if seat is None else seat
        night = game.decision in NIGHT_DECISIONS
        final = None
        if game.is_over:
            hands = game.view(None)["players"]
            final = [{**sc, "vp_by": game.vp_details(p), "cards": hands[p]["cards"]}
                     for p, sc in enumerate(game.scores())]
        return {
            "id": game_id, "num_players": game.num_players, "seat": seat,
            "watch": seat is None, "agents": self.names, "day": game.day,
            "last_day": LAST_DAY, "phase": "over" if game.is_over else
            "night" if night else "day", "decision": game.decision,
            "current_player": None if self.finished else game.current_player,
            "your_turn": your_turn,
            "pending": not self.finished and not your_turn and self.error is None,
            "svg": board_svg(game, viewer, self._last_other(viewer)),
            "legal": self._legal() if your_turn else [],
            "history": [{"player": p, "agent": self.names[p], "day": d,
                         "action": visible_notation(a, p, seat if seat is not None
                                                    else "public")}
                        for (p, a), d in zip(game.history, self.days, strict=True)],
            "over": self.finished, "end": game.end,
            "truncated": self.truncated,
            "scores": game.scores() if game.is_over else None,
            "final": final,
            "error": self.error,
        }


class AgentCatalog:
    """The agents a web client may name: the heuristics, ``mcts``, the shipped policies, the
    operator's folder of agent files (as ``policy:<file name>``) and ``search:``/``rollout:``
    over any of those policies. Clients name agents; they never give a path."""

    def __init__(self, agents_dir: str | Path | None = None) -> None:
        self.files: dict[str, Path] = {}
        if agents_dir is not None:
            folder = Path(agents_dir)
            if not folder.is_dir():
                raise ValueError(f"agents folder {folder} is not a folder")
            self.files = {f"policy:{p.name}": p.resolve()
                          for p in sorted(folder.glob("*.safetensors")) if p.is_file()}
        self.policies = [*shipped_policies(), *self.files]

    def names(self) -> list[str]:
        return [*agent_names(), *self.files]

    def wrapped(self) -> list[str]:
        return [f"{kind}:{p}" for kind in ("search", "rollout") for p in self.policies]

    def make(self, name: Any, seed: int):
        """The agent a client named; BadRequest naming what is allowed for anything else."""
        if not isinstance(name, str):
            raise BadRequest(f"an agent name is a string, got {name!r:.60}")
        kind, _, inner = name.partition(":")
        allowed = (name in agent_names() or name in self.files
                   or (kind in ("search", "rollout") and inner in self.policies))
        if not allowed:
            raise BadRequest(f"opponent {name[:60]!r}: unknown agent; allowed: "
                             f"{', '.join(self.names())}, or search:/rollout: over "
                             f"{', '.join(self.policies) or 'a policy'}")
        target = inner if kind in ("search", "rollout") else name
        resolved = f"policy:{self.files[target]}" if target in self.files else target
        full = f"{kind}:{resolved}" if kind in ("search", "rollout") else resolved
        try:
            agent = make_agent(full, seed=seed)  # data-only files: no code runs
        except (ValueError, OSError):
            raise BadRequest(f"opponent {name!r}: this agent cannot be loaded here (the "
                             "server log and the operator know why)", 400) from None
        agent.name = name  # never the server's path
        return agent


def parse_new_game(body: Any) -> tuple[int, int | None, list[str], int | None]:
    """Check a ``POST /api/games`` body; BadRequest naming what is allowed. The seed is None
    when the client gave none (the server draws one it never reveals); the seat is None for a
    watched game (agents at every seat)."""
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object with {', '.join(GAME_KEYS)}")
    unknown = sorted(set(body) - set(GAME_KEYS))
    if unknown:
        raise BadRequest(f"unknown field(s) {', '.join(u[:40] for u in unknown[:5])}; allowed: "
                         f"{', '.join(GAME_KEYS)}")
    try:
        n = check_int("num_players", body.get("num_players", 2), 2, 5)
        seat = body.get("seat", 0)
        if seat is not None:  # null: watch agents play every seat
            seat = check_int("seat", seat, 0, n - 1)
        seed = body.get("seed")
        if seed is not None:
            check_int("seed", seed, 0, MAX_SEED)
    except ValueError as e:
        raise BadRequest(str(e)[:300]) from None
    opponents = body.get("opponents", "random")
    k = n - 1 if seat is not None else n  # agents: the other seats, or every seat
    if isinstance(opponents, str):
        opponents = [opponents] * k
    if not (isinstance(opponents, list) and len(opponents) == k
            and all(isinstance(o, str) for o in opponents)):
        raise BadRequest(f"opponents must be one agent name or a list of {k} agent names "
                         f"({'the other seats' if seat is not None else 'every seat: seat null'}"
                         f" watches agents play) in seat order; got {opponents!r:.80}")
    return n, seat, opponents, seed


def new_session(body: Any, catalog: AgentCatalog | None = None,
                limits: Limits | None = None) -> Session:
    """A new game from a client's options. A server-drawn seed (64 bits, never sent) and the
    agents' seeds are independent draws; with a client's seed, the agents' seeds follow it
    (the client knows the seed already). With ``record`` (a game record the client holds) and
    ``at`` (k), the game is that record's after its first k decisions: a branch, played on
    from there (the record's players; ``num_players`` and ``seed`` not given), with every card
    the human's seat has not held dealt anew (``positions.redealt``: the record's remaining
    deck order is not the branch's)."""
    catalog = catalog or AgentCatalog()
    limits = limits or Limits()
    if isinstance(body, dict) and "save" in body:
        raise BadRequest('a saved position is loaded by the server that holds it: '
                         'POST /api/games {"save": <id>}')
    record, at = body.get("record") if isinstance(body, dict) else None, None
    if isinstance(body, dict) and ("record" in body or "at" in body):
        record, at = _branch_point(body, limits)
        body = {k: v for k, v in body.items() if k not in ("record", "at")}
        body["num_players"], body["seed"] = record.num_players, record.seed
    n, seat, opponents, seed = parse_new_game(body)
    draw = secrets.SystemRandom().randrange
    others = [p for p in range(n) if p != seat]
    agents = {p: catalog.make(name, seed + p if seed is not None else draw(2**63))
              for p, name in zip(others, opponents, strict=True)}
    names = ["you" if p == seat else agents[p].name for p in range(n)]
    if record is not None:
        prefix = Session(record.initial(), seat, names, agents, limits.decisions)
        for _, action in record.history[:at]:
            prefix.play(action)
        session = Session(redealt(prefix.game, seat), seat, names, agents, limits.decisions)
        session.days = prefix.days
        return session
    game = Game(n, seed=draw(MAX_SEED + 1) if seed is None else seed)
    return Session(game, seat, names, agents, limits.decisions)


@dataclass(frozen=True)
class Saved:
    """A saved position (``POST /api/games/{id}/save``): a copy of the game and who plays it;
    loading it starts a new game from here with fresh agents of the same names."""

    game: Game
    seat: int | None
    names: tuple[str, ...]
    days: tuple[int, ...]


def load_saved(saved: Saved, catalog: AgentCatalog, limits: Limits) -> Session:
    """A new session from a saved position (a branch: the save stays as it is). Every load
    deals the cards the human's seat has not held anew (``positions.redealt``): neither the
    original's hidden cards nor its seed reach the new game or its record."""
    draw = secrets.SystemRandom().randrange
    agents = {p: catalog.make(name, draw(2**63)) for p, name in enumerate(saved.names)
              if p != saved.seat}
    session = Session(redealt(saved.game, saved.seat), saved.seat, list(saved.names), agents,
                      limits.decisions)
    session.days = list(saved.days)
    return session


def _branch_point(body: dict, limits: Limits) -> tuple[Game, int]:
    """(the record's game, k) of a ``{"record", "at"}`` body; BadRequest naming the problem."""
    from ..records import replay

    if "record" not in body or "at" not in body:
        raise BadRequest('a branch needs both "record" (a game record) and "at" (how many of '
                         'its decisions to keep)')
    if "num_players" in body or "seed" in body:
        raise BadRequest('a branch takes the record\'s players and seed: give "seat" and '
                         '"opponents" only, beside "record" and "at"')
    try:
        game = replay(body["record"], limits.decisions)
        at = check_int("at", body["at"], 0, len(game.history))
    except ValueError as e:
        raise BadRequest(f"branch: {str(e)[:300]}") from None
    if at >= limits.decisions:
        raise BadRequest(f"branch: at most {limits.decisions - 1} decisions can be kept")
    return game, at


def policy_hint(agent: Any, game: Game, name: str, top: int = 8) -> dict[str, Any]:
    """What a trained policy thinks of the deciding player's position: its probability of
    every legal action (softmax at temperature 1; they sum to 1), most probable first (the
    ``top`` first listed), and its value estimate (of the member it would play: for a
    population, the one drawn for this game)."""
    import torch

    probs = agent.probabilities(game)
    legal = game.legal_action_ids()
    net = agent._current(game)[0]
    obs = torch.as_tensor(game.observation(game.current_player)).unsqueeze(0)
    with torch.no_grad():
        value = float(net(obs)[1].reshape(-1)[0])
    ranked = sorted(legal, key=lambda a: -probs[a])
    return {"agent": name, "value": round(value, 4),
            "legal_probability": round(float(probs[legal].sum()), 6),
            "actions": [{"id": int(a), "action": game.legal_actions()[legal.index(a)],
                         "p": round(float(probs[a]), 4)} for a in ranked[:top]],
            "others": max(0, len(legal) - top),
            "others_p": round(float(sum(probs[a] for a in ranked[top:])), 4)}


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
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Route
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          "pip install 'machu-env[web]'") from None
    from .guards import BodyReader, ClientGate, check_same_origin, client_of, off_loop

    limits = limits or Limits()
    catalog = AgentCatalog(agents_dir)
    games = GameStore(total=limits.games, per_client=limits.games_per_client,
                      idle_seconds=limits.idle_seconds, keep_seconds=limits.keep_seconds,
                      finished=limits.finished_games, finished_seconds=limits.finished_seconds)
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

    def published(session: Session, game_id: str) -> dict[str, Any]:
        session.published = session.state(game_id)
        return session.published

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def agents(request: Request) -> Response:
        return JSONResponse({"agents": catalog.names(), "also": catalog.wrapped(),
                             "policies": catalog.policies})

    async def create(request: Request) -> Response:
        body = await bodies.read(request, limits.record_bytes)  # (a branch holds a record)
        owner = client_of(request)

        def start():  # loading a policy and the agents' first moves: off the event loop
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
                return published(session, game_id)
        return JSONResponse(await off_loop(start), status_code=201)

    async def show(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        session = games.get(game_id)

        def look():
            if not session.lock.acquire(blocking=False):  # being moved: the last state sent
                return {**(session.published or {}), "busy": True, "pending": True}
            try:
                return published(session, game_id)
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
            return published(session, game_id)
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
            return Saved(session.game.clone(), session.seat, names, tuple(session.days))
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
            return published(session, game_id)
        return JSONResponse(await off_loop(lambda: exclusive(session, step)))

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
        if not replays.acquire(blocking=False):
            raise BadRequest(f"{limits.replays} replays are being drawn; try again in a "
                             "moment", 503)

        def frames():
            try:
                return packed_replay(data)
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
        Route("/api/games/{game_id}/hint", handled(hint)),
        Route("/api/games/{game_id}/record", handled(record)),
        Route("/api/replay", handled(replay), methods=["POST"]),
    ]
    app = Starlette(routes=routes, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))])
    app.state.games = games  # for embedding and tests (no endpoint lists them)
    app.state.limits = limits
    return app


def warm_up() -> float:
    """Compile (on a fresh install) or load from numba's cache everything a game in the app
    needs — a whole game of random moves, the observation, the board SVG, the scores, the
    record — so that the first client does not wait for it; returns the seconds it took."""
    import random

    t0 = time.perf_counter()
    game = Game(2, seed=0)
    rng = random.Random(0)
    while not game.is_over and len(game.history) < 400:
        game.play(rng.choice(game.legal_action_ids()))
    game.observation(0)
    board_svg(game, 0)
    game.scores()
    game_record(game)
    return time.perf_counter() - t0


def serve(host: str = "127.0.0.1", port: int = 8000, allowed_hosts: Sequence[str] = (),
          agents_dir: str | Path | None = None, proxy_headers: bool = False) -> None:
    """Run the app with uvicorn (blocking) on ``host``: it answers the local names, ``host``
    and ``allowed_hosts``; bounded connections (``server.ConnectionLimits``); forwarding
    headers trusted only with ``proxy_headers`` (behind a reverse proxy on this machine)."""
    try:
        import uvicorn
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          "pip install 'machu-env[web]'") from None
    from .server import server_config

    app = create_app(allowed_hosts_for(host, allowed_hosts), agents_dir)
    uvicorn.Server(server_config(app, host, port, proxy_headers=proxy_headers)).run()
