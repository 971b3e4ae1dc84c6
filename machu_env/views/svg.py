"""The board as SVG: one picture of everything a player may see, written directly (no
dependency).

    from machu_env.core.game import Game
    from machu_env.views.svg import board_svg
    svg = board_svg(Game(4, seed=1), player=0)   # seat 0's view; None: every hand shown

The picture is 1000 px wide; its height depends only on the player count (``board_size``).
``layout="phone"`` draws the same parts for a phone's web page: as wide as the map, the moon
tiles, days, market, priest rows and the trail (in two rows) under it, no players' panels (the
page's strip shows them). It holds what ``Game.view(player)`` holds:

* the 15 districts, laid out as a crossing-free drawing of the reconstructed adjacency
  (RULES §11.1: the real board's geometry is not in the rulebooks); a line joins two districts
  whose border the Prince crosses for free. In each district (its short name; the full one in
  its tooltip), at ``MAP_TEXT`` units: the bonus units (goods squares with their shapes, or temple
  stones on the temples), every player's Incas (``P1×2``: seat and count) and the Princes
  (crowned token with the seat number);
* the market columns (4 spaces, prices 6 5 4 3, filled from the top) and the bank supply; the
  three priest rows with the cards left and their current sacrifice value (R4.4.2); the moon
  tiles still on the board, the Sun tile (on the board or its holder); the time track with the
  corn still on it;
* the Inca Trail 0–20 with the granary (7), the llama stable (13), the summit (20) and the
  Scouts;
* a panel per player: goods, Incas in supply, priests, moon tiles, summit VP, and the cards —
  their faces only where ``player`` may see them (``None``: everyone's), otherwise how many;
* the active player, the player to decide and the pending decision, or the final scores.

Player colours are the Okabe–Ito palette (safe for the common colour-vision deficiencies) and
every token also carries its seat number (Incas: ``P1`` over the count; Princes: a crowned
token with a bold ring), with a tooltip (``<title>``) in words, so nothing depends on colour
alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from machu_env.rules.data import _BORDERS, DISTRICTS, GOODS, INCA_TYPES, LAST_DAY
from machu_env.views.phrases import DECISION_WORDS, LABELS, SHORT_LABELS, say
from machu_env.views.svg_kit import (  # noqa: F401  (the names the picture's users import here)
    BOX_H,
    BOX_W,
    CELL_H,
    CELL_W,
    CHAR_W,
    GOODS_COLOURS,
    GOODS_ICON,
    GRID,
    MAP_TEXT,
    MAP_X,
    MAP_Y,
    MIN_TEXT,
    NIGHT_DECISIONS,
    PANEL_H,
    PANELS_Y,
    PLAYER_COLOURS,
    PLAYER_INK,
    RIGHT_X,
    TEMPLES,
    TRAIL_Y,
    WIDTH,
    Box,
    _goods_chip,
    _text,
    _token,
    goods_symbols,
)
from machu_env.views.svg_parts import (  # noqa: F401
    MARKET_H,
    PRIESTS_H,
    _days,
    _market,
    _moon,
    _panel,
    _priests,
    _sun,
    _time,
    _trail,
    moon_text,
)

if TYPE_CHECKING:  # a game: anything with Game's view(player), scores() and learning_game
    from typing import Protocol

    class Game(Protocol):
        learning_game: bool

        def view(self, player: int | str | None = None) -> dict[str, Any]: ...

        def scores(self) -> list[dict[str, Any]]: ...


_BONUS_GOOD = dict(zip(DISTRICTS[:5], GOODS, strict=True))

ENDINGS = {"conquest": "the Spanish conquest", "rescue": "the Rescue"}  # R9: the two ends


def clock_words(game: Game) -> str:
    """The time of a position in words: "Day 3 of 9 · Night", "Game over after day 9 of 9"."""
    v = game.view("public")
    if v["game_over"]:
        return f"Game over after day {v['day']} of {LAST_DAY}"
    night = v["decision"] in NIGHT_DECISIONS and v["day"] < LAST_DAY  # (day 9: no night, R7.5)
    return f"Day {v['day']} of {LAST_DAY} · {'Night' if night else 'Day'}"


LAYOUTS = ("wide", "phone")
# the phone's picture: as wide as the map (a 390 px phone shows it at 0.55 of its size, the
# districts' texts at 9 px), the other parts under it, the players' panels left to the page
PHONE_WIDTH, PHONE_HEIGHT = 2 * MAP_X + 4 * CELL_W + BOX_W, 1050


def board_size(num_players: int, layout: str = "wide") -> tuple[int, int]:
    """(width, height) of the picture for ``num_players`` players in ``layout``."""
    if layout == "phone":
        return PHONE_WIDTH, PHONE_HEIGHT
    return WIDTH, PANELS_Y + PANEL_H * num_players + 10


def _incas(x: float, y: float, p: int, count: int, where: str) -> str:
    """A player's Incas in a district: a token ``P1×2`` (seat and count, so neither depends on
    colour) with its top left corner at (x, y); the tooltip says it in words."""
    c, ink = PLAYER_COLOURS[p], PLAYER_INK[p]
    return (f'<g><title>Player {p}: {count} Inca{"s" * (count != 1)} in {escape(where)}'
            f'</title><rect x="{x:.0f}" y="{y:.0f}" width="{INCA_W}" height="19" rx="3" '
            f'fill="{c}" stroke="#222"/>'
            + _text(x + INCA_W / 2, y + 16, f"P{p}\u00d7{count}", MAP_TEXT, "middle", "bold",
                    ink) + "</g>")


INCA_W = 55  # an Incas token's width: two side by side in a district


def _centre(d: str) -> tuple[float, float]:
    c, r = GRID[d]
    return MAP_X + c * CELL_W + BOX_W / 2, MAP_Y + r * CELL_H + BOX_H / 2


def _districts(v: dict[str, Any], boxes: dict[str, Box]) -> list[str]:
    out = ['<g id="borders" stroke="#8a7f6a" stroke-width="4" stroke-linecap="round">']
    for a, bs in _BORDERS.items():
        for b in bs:
            if a < b:
                (x1, y1), (x2, y2) = _centre(a), _centre(b)
                out.append(f'<line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}">'
                           f'<title>{LABELS[a]} - {LABELS[b]}: a free move</title></line>')
    out.append("</g>")
    princes = {d: [p for p, pv in enumerate(v["players"]) if pv["prince"] == d] for d in GRID}
    for d in DISTRICTS:
        c, r = GRID[d]
        x, y = MAP_X + c * CELL_W, MAP_Y + r * CELL_H
        boxes[d] = (x, y, BOX_W, BOX_H)
        fill = ("#f3e3c3" if d in TEMPLES else "#e3efd6" if d in _BONUS_GOOD
                else "#fff4cf" if d == "sun_clock" else "#ece8e1")
        out.append(f'<g id="{d}"><rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="10" '
                   f'fill="{fill}" stroke="#6b5e48" stroke-width="1.5"><title>{LABELS[d]}'
                   '</title></rect>')
        name = _text(x + BOX_W / 2, y + 19, SHORT_LABELS[d], MAP_TEXT, "middle", "bold")
        if len(SHORT_LABELS[d]) > 10:  # (one name is a little wider than the box: closed up)
            name = name.replace("<text ", f'<text textLength="{BOX_W - 10}" '
                                'lengthAdjust="spacingAndGlyphs" ')
        out.append(name)
        bonus = v["bonus"].get(d)
        if bonus:  # R4.0: bonus units / temple stones, one square each (two at most, R7.3)
            what = "temple stone" if d in TEMPLES else _BONUS_GOOD[d]
            title = f"bonus: {bonus} {what}{'s' * (bonus != 1 and d in TEMPLES)}"
            for k in range(bonus):
                if d in TEMPLES:
                    out.append(f'<rect x="{x + 5 + 24 * k}" y="{y + 25}" width="20" height="20" '
                               f'fill="#9e9e9e" stroke="#444"><title>{title}</title></rect>')
                else:
                    out.append(_goods_chip(x + 5 + 24 * k, y + 25, _BONUS_GOOD[d], size=20,
                                           title=title))
        # Incas of every player (production districts and the Sun Clock), two to a row;
        # the Princes in the bottom right corner
        k = 0
        for p, pv in enumerate(v["players"]):
            n = pv["incas"].get(d, 0)
            if n:
                out.append(_incas(x + 4 + (INCA_W + 4) * (k % 2), y + 47 + 19 * (k // 2), p, n,
                                  LABELS[d]))
                k += 1
        for j, p in enumerate(princes[d]):
            out.append(_token(x + BOX_W - 15 - 23 * j, y + BOX_H - 14, p, p, r=11, prince=True,
                              title=f"Player {p}'s Prince in {LABELS[d]}", size=MAP_TEXT))
        out.append("</g>")
    return out



def named_parts(action: str) -> list[str]:
    """The parts of the board an action names (``move sun_temple``: the district;
    ``sunclock corn_terraces``; ``place potter``: the potter's district; ``stay coca``: the
    moon tile; ``buy llama``: the market's llama column; ``acquire puma``: the priest row),
    for the last move's outline."""
    words = action.replace(",", " ").split()
    verb = words[0] if words else ""
    out = [w for w in words if w in GRID]
    out += [DISTRICTS[INCA_TYPES.index(w)] for w in words if w in INCA_TYPES]
    if verb == "stay" and len(words) == 2:
        out.append(f"moon-{words[1]}")
    if verb in ("buy", "sell", "market") and words[-1] in GOODS:
        out.append(f"market-{words[-1]}")
    if verb == "acquire" and len(words) == 2:
        out.append(f"priests-{words[1]}")
    return out


def _fit(text: str, room: float, size: int) -> str:
    """``text`` cut with an ellipsis to fit ``room`` user units at font ``size``."""
    chars = int(room / CHAR_W[size])
    return text if len(text) <= chars else text[: max(chars - 1, 1)].rstrip() + "\u2026"


def _highlight(last: tuple[int, str], boxes: dict[str, Box], room: float) -> list[str]:
    """The last decision: a caption (cut to ``room``), and a thick outline on the parts of the
    board it names."""
    p, action = last
    out = [_text(MAP_X, 47, _fit(f"last: P{p} {say(action)}", room, MIN_TEXT),
                 MIN_TEXT, weight="bold", fill="#b34700")]
    for part in named_parts(action):
        x, y, w, h = boxes[part]
        out.append(f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="{w + 8:.1f}" '
                   f'height="{h + 8:.1f}" rx="8" fill="none" stroke="#d55e00" stroke-width="5">'
                   f'<title>last move: P{p} {escape(say(action))}</title></rect>')
    return out


def _earlier(earlier: Sequence[tuple[int, str]], last: tuple[int, str] | None,
             boxes: dict[str, Box]) -> list[str]:
    """The others' earlier decisions since the viewer's own: a thin dashed outline on the
    parts of the board each names (not over the last decision's own outline)."""
    drawn = set(named_parts(last[1])) if last is not None else set()
    out = []
    for p, action in earlier:
        for part in named_parts(action):
            if part in drawn or part not in boxes:
                continue
            drawn.add(part)
            x, y, w, h = boxes[part]
            out.append(f'<rect class="earlier" x="{x - 3:.1f}" y="{y - 3:.1f}" '
                       f'width="{w + 6:.1f}" height="{h + 6:.1f}" rx="7" fill="none" '
                       'stroke="#d55e00" stroke-width="2.5" stroke-dasharray="6 4">'
                       f'<title>earlier: P{p} {escape(say(action))}</title></rect>')
    return out


def _phone_parts(game: Game, v: dict[str, Any], boxes: dict[str, Box]) -> list[str]:
    """The phone's parts under the map: the moon tiles in one row (the texts and spacing of the
    districts: a Prince's move and a stay share the map's scale), the days and the Sun, the
    market beside the priest rows, the trail in two rows."""
    y = TRAIL_Y + 26
    out = ['<g id="moon-tiles">', *_moon(v, MAP_X, y, boxes, per_row=7, size=(88, 40),
                                          step=(94, 0), text=MAP_TEXT), "</g>"]
    y += 92  # (the tiles' hit areas reach 20 units under them: the days' heading is further)
    out += _days(v, game.learning_game, MAP_X, y)
    out += _sun(v, MAP_X + 2 + 34 * LAST_DAY + 14, y + 25)
    y += 76
    out += ['<g id="market">', *_market(v, MAP_X, y, boxes), "</g>"]
    out += _priests(v, MAP_X + 300, y, boxes)
    return out + _trail(v, y + MARKET_H + 12, boxes, PHONE_WIDTH, rows=2, text=MAP_TEXT)


def board_svg(game: Game, player: int | str | None = None,
              last: tuple[int, str] | None = None, layout: str = "wide",
              earlier: Sequence[tuple[int, str]] = ()) -> str:
    """The board of ``game`` as an SVG document (a string): as seat ``player`` sees it (other
    hands shown as a count), ``"public"`` (no hand shown) or ``None`` (every hand shown).
    ``last``: (seat, action as the viewer may see it) of the decision just played, shown in a
    caption and outlined on the board (the replays use it). ``layout``: ``"wide"`` (the parts
    beside the map, the players' panels under it) or ``"phone"`` (the parts under the map, the
    trail in two rows, no panels: the web page's strip shows the players). ``earlier``: the
    others' decisions before ``last`` since the viewer's own (seat, action as the viewer may see
    it), outlined thin and dashed: every move the viewer has not answered yet is on the board."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    v = game.view(player)  # validates player
    n = v["num_players"]
    width, height = board_size(n, layout)
    if v["game_over"]:
        head = f"Game over after day {v['day']}: {ENDINGS.get(v['end'], v['end'])}"
    else:
        to_do = DECISION_WORDS.get(v["decision"], v["decision"])
        # the turn's player decides, or another player decides within it (a first Inca, an
        # offering's answer): then both are named, the one who decides as such
        active, current = v["active_player"], v["current_player"]
        who = (f"P{current} decides: {to_do}" if v["decision"] == "start" else  # (the setup)
               f"P{active}'s turn: {to_do}" if active == current else
               f"P{active}'s turn · P{current} decides: {to_do}")
        head = f"Day {v['day']} of {LAST_DAY} · {who}"
    seen = {None: "every hand shown", "public": "public view"}.get(
        player, f"as seen by P{player}")
    about = f"{n} players · {seen} · deck {v['deck_size']} cards"
    # the heading has the first line to itself; the caption of the last move shares the second
    # with the line about the picture, cut so that the two never meet
    room = width - 2 * MAP_X - CHAR_W[MIN_TEXT] * len(about) - 16
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, Arial, '
           'sans-serif">',
           f"<title>The Princes of Machu Picchu: {escape(head)}</title>", goods_symbols(),
           f'<rect width="{width}" height="{height}" fill="#fffdf8"/>',
           _text(MAP_X, 30, _fit(head, width - 2 * MAP_X, 17), 17, weight="bold"),
           _text(width - MAP_X, 47, about, MIN_TEXT, "end", fill="#555")]
    boxes: dict[str, Box] = {}
    out += ['<g id="map">', *_districts(v, boxes), "</g>"]
    if layout == "phone":
        out += _phone_parts(game, v, boxes)
    else:
        right = RIGHT_X
        out += ['<g id="market">', *_market(v, right, MAP_Y + 10, boxes), "</g>"]
        out += _priests(v, right, MAP_Y + 10 + MARKET_H, boxes)
        out += _time(v, game.learning_game, right, MAP_Y + 10 + MARKET_H + PRIESTS_H, boxes)
        out += _trail(v, TRAIL_Y, boxes)
        scores = game.scores() if v["game_over"] else None  # public at the end (R9)
        for p in range(n):
            out += _panel(v, p, scores, PANELS_Y + PANEL_H * p)
    out += _earlier(earlier, last, boxes)
    if last is not None:
        out += _highlight(last, boxes, room)
    out.append("</svg>")
    return "\n".join(out)
