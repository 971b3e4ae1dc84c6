"""A game in the web app (``Session``): the human's seat, the agents of the others, what the
human may see; new games from a client's options, saved positions and branches of a record
(both re-dealt: ``positions.redealt``)."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from machu_env.core.checks import check_int
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.positions import redealt
from machu_env.engine.observation import OBS_SIZE, RACE_SEAT_SIZE
from machu_env.rules.actions import visible_notation
from machu_env.rules.data import LAST_DAY
from machu_env.views.phrases import DECISION_WORDS, HEADINGS, card_words, say, say_you
from machu_env.views.svg import NIGHT_DECISIONS, board_svg
from machu_env.web.catalog import AgentCatalog
from machu_env.web.context import focus, players, spots, you
from machu_env.web.limits import Limits
from machu_env.web.store import BadRequest
from machu_env.web.words import IDLE_WORDS, describe, gained_nothing

log = logging.getLogger("machu_env.web")
GAME_KEYS = ("num_players", "seat", "opponents", "seed", "record", "at", "save")
# the largest integer a browser's JSON.parse keeps exact (Number.MAX_SAFE_INTEGER): every seed
# of a web game, and so of its record, stays below it
JS_SAFE_INT = 2**53 - 1


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
    idle: list[bool] = field(default_factory=list)  # each: a Prince move that gained nothing
    published: dict[str, Any] | None = None  # the last state sent (a busy game answers it)
    # the human's decisions of this turn that may be taken back: (the game before, its days)
    undo: list[tuple[Game, int]] = field(default_factory=list)
    # every decision played or taken back counts one: a page that shows an older count is
    # stale (another tab or window moved the game on) and its move is refused (``check_seen``)
    changes: int = 0

    def check_seen(self, seen: Any) -> None:
        """A move of a page that showed the game at ``seen`` changes (None: a client that
        does not say): BadRequest 409 when the game has moved on since, nothing changed."""
        if seen is None:
            return
        if isinstance(seen, bool) or not isinstance(seen, int):
            raise BadRequest(f'"after" must be the state\'s "changes" count (an int), got '
                             f"{seen!r:.40}")
        if seen != self.changes:
            raise BadRequest("the game moved on since this page showed it (another tab or "
                             "window played or took back a move): the page now shows it as "
                             "it stands", 409)

    @property
    def truncated(self) -> bool:
        return not self.game.is_over and len(self.game.history) >= self.max_decisions

    @property
    def finished(self) -> bool:
        return self.game.is_over or self.truncated

    def play(self, action: int | str) -> None:
        """One decision (IllegalActionError, nothing changed, if it is not legal). A decision
        of the human's may be taken back until another player acts or something hidden is
        revealed (a card drawn from the deck, the hands at the end): ``take_back``."""
        game, day, player = self.game, self.game.day, self.game.current_player
        mine = self.seat is not None and player == self.seat
        before = game.clone() if mine else None
        holdings = game.view(None) if game.decision == "move" else None
        deck = game.view("public")["deck_size"]
        game.play(action)
        self.changes += 1
        self.days.append(day)
        self.idle.append(holdings is not None and game.history[-1][1].startswith("move ")
                         and gained_nothing(holdings, game.view(None), player,
                                            game.history[-1][1].split()[1]))
        if mine and not self.finished and game.view("public")["deck_size"] == deck:
            self.undo.append((before, len(self.days) - 1))
        else:  # another player acted, a card came off the deck or the end revealed the hands
            self.undo.clear()

    def take_back(self) -> None:
        """Undo the human's latest decision of this turn; BadRequest saying why not when
        another player has acted since, a card was drawn, or there is none."""
        if self.seat is None or self.finished:
            raise BadRequest("nothing to take back: " + ("a watched game has no decisions of "
                             "yours" if self.seat is None else "the game is over"), 409)
        if not self.undo:
            raise BadRequest("nothing to take back: you can take back your own decisions of "
                             "this turn until another player acts or a card is drawn", 409)
        self.game, kept = self.undo.pop()
        self.changes += 1
        del self.days[kept:], self.idle[kept:]

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

    def _others_before_last(self, viewer) -> list[tuple[int, str]]:
        """The other seats' decisions since the human's own before the latest one (the
        page's since-line, less its first entry), as the viewer may see them: outlined thin
        on the board until the human moves. None for a watcher (every seat is another's)."""
        if self.seat is None:
            return []
        history = self.game.history
        to = len(history)
        while to and history[to - 1][0] == self.seat:  # (the human's own turn, going on)
            to -= 1
        start = to
        while start and history[start - 1][0] != self.seat:
            start -= 1
        return [(p, visible_notation(a, p, viewer)) for p, a in history[start:max(to - 1, 0)]]

    def _legal(self) -> list[dict[str, Any]]:
        """The human's legal actions: id, notation and what each does and costs in words."""
        game, everything = self.game, self.game.view(None)
        return [{"id": i, "action": a, "says": describe(game, a, everything),
                 "heading": HEADINGS.get(a.split()[0], a.split()[0])}
                for i, a in zip(game.legal_action_ids(), game.legal_actions(), strict=True)]

    def state(self, game_id: str, layout: str = "wide") -> dict[str, Any]:
        """What the human's seat may see (never the seed: it re-creates every hidden card);
        a watched game shows the public view. Once the game is over every hand is shown, as
        at the table (R9), with each player's VP by icon. ``layout``: the board picture's
        (``views.svg.LAYOUTS``)."""
        game, seat = self.game, self.seat
        your_turn = not self.finished and game.current_player == seat and self.error is None
        viewer = None if game.is_over else "public" if seat is None else seat
        # R7: the night's decisions; on the last day the same decisions come right after the
        # stay or the Sun Clock placement, in the day (R7.5), and there is no night
        night = game.decision in NIGHT_DECISIONS and game.day < LAST_DAY
        final = None
        if game.is_over:
            hands = game.view(None)["players"]
            final = [{**sc, "vp_by": game.vp_details(p),
                      "cards": [card_words(c) for c in hands[p]["cards"]]}
                     for p, sc in enumerate(game.scores())]
        return {
            "id": game_id, "num_players": game.num_players, "seat": seat,
            "watch": seat is None, "agents": self.names, "day": game.day,
            "last_day": LAST_DAY, "sun_player": game.view("public")["sun_player"],
            "phase": "over" if game.is_over else
            "night" if night else "day", "decision": game.decision,
            "decision_says": DECISION_WORDS.get(game.decision or "", ""),
            "current_player": None if self.finished else game.current_player,
            "your_turn": your_turn,
            "pending": not self.finished and not your_turn and self.error is None,
            "svg": board_svg(game, viewer, self._last_other(viewer), layout,
                             earlier=self._others_before_last(viewer)),
            "legal": self._legal() if your_turn else [],
            "history": [{"player": p, "agent": self.names[p], "day": d, "action": shown,
                         "says": (say_you(shown) if p == seat else say(shown))
                         + (IDLE_WORDS if idle else "")}
                        for (p, a), d, idle in zip(game.history, self.days, self.idle,
                                                   strict=True)
                        for shown in [visible_notation(a, p, seat if seat is not None
                                                       else "public")]],
            "players": players(game, seat),
            "spots": spots(game, game.legal_actions(), game.view(None)) if your_turn else {},
            "over": self.finished, "end": game.end,
            "truncated": self.truncated,
            "scores": game.scores() if game.is_over else None,
            "final": final,
            "standing": None if game.is_over or seat is None else standing(game, seat),
            "error": self.error,
            "can_take_back": bool(self.undo) and not self.finished,
            "changes": self.changes,
            "you": you(game, seat), "focus": focus(game),
        }


def standing(game: Game, seat: int) -> list[dict[str, Any]]:
    """How the game stands as ``seat`` may know it (R10), one row per player: its own VP and
    gold exactly; for the others only what is public (cards held, summits) and the bounds of
    their gold and VP over the cards ``seat`` cannot place (observation v2's race fields)."""
    race = game.observation(seat, version=2)[OBS_SIZE:]
    me = game.observation(seat)
    vp, gold = round(float(me[OBS_SIZE - 2]) * 50), round(float(me[OBS_SIZE - 1]) * 50)
    n, rows = game.num_players, []
    public = game.view("public")["players"]
    for p in range(n):
        j = (p - seat) % n
        cards = public[p]["num_cards"]
        if j == 0:
            rows.append({"player": p, "you": True, "cards": cards, "vp": vp, "gold": gold})
            continue
        r = race[(j - 1) * RACE_SEAT_SIZE:j * RACE_SEAT_SIZE] * 50
        rows.append({"player": p, "you": False, "cards": cards,
                     "gold_expected": round(float(r[1]), 1),
                     "gold_range": [round(float(r[3])), round(float(r[2]))],
                     "vp_expected": round(float(r[4]), 1), "vp_max": round(float(r[5]))})
    return rows


def parse_new_game(body: Any) -> tuple[int, int | None, list[str], int | None]:
    """Check a ``POST /api/games`` body; BadRequest naming what is allowed. The seed is None
    when the client gave none (the server draws one it never reveals); the seat is None for a
    watched game (agents at every seat)."""
    if not isinstance(body, dict):
        raise BadRequest(f"the body must be a JSON object with {', '.join(GAME_KEYS)}")
    unknown = sorted(set(body) - set(GAME_KEYS))
    if unknown:
        names = ", ".join(repr(u[:40]) for u in unknown[:5])
        raise BadRequest(f"unknown field(s) {names}; allowed: {', '.join(GAME_KEYS)}")
    try:
        n = check_int("num_players", body.get("num_players", 2), 2, 5)
        seat = body.get("seat", 0)
        if seat is not None:  # null: watch agents play every seat
            seat = check_int("seat", seat, 0, n - 1)
        seed = body.get("seed")
        if seed is not None:
            check_int("seed", seed, 0, JS_SAFE_INT)
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
    """A new game from a client's options. A server-drawn seed (53 bits: a browser reads the
    record's seed exactly; never sent before the end) and the
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
        body["num_players"], body["seed"] = record.num_players, None  # (re-dealt: agents draw)
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
        session.days, session.idle = prefix.days, prefix.idle
        return session
    game = Game(n, seed=draw(JS_SAFE_INT + 1) if seed is None else seed)
    return Session(game, seat, names, agents, limits.decisions)


@dataclass(frozen=True)
class Saved:
    """A saved position (``POST /api/games/{id}/save``): a copy of the game and who plays it;
    loading it starts a new game from here with fresh agents of the same names."""

    game: Game
    seat: int | None
    names: tuple[str, ...]
    days: tuple[int, ...]
    idle: tuple[bool, ...]


def load_saved(saved: Saved, catalog: AgentCatalog, limits: Limits) -> Session:
    """A new session from a saved position (a branch: the save stays as it is). Every load
    deals the cards the human's seat has not held anew (``positions.redealt``): neither the
    original's hidden cards nor its seed reach the new game or its record."""
    draw = secrets.SystemRandom().randrange
    agents = {p: catalog.make(name, draw(2**63)) for p, name in enumerate(saved.names)
              if p != saved.seat}
    session = Session(redealt(saved.game, saved.seat), saved.seat, list(saved.names), agents,
                      limits.decisions)
    session.days, session.idle = list(saved.days), list(saved.idle)
    return session


def _branch_point(body: dict, limits: Limits) -> tuple[Game, int]:
    """(the record's game, k) of a ``{"record", "at"}`` body; BadRequest naming the problem."""
    from machu_env.core.records import replay

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
