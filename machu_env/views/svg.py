"""The board as SVG: one picture of everything a player may see, written directly (no
dependency).

    from machu_env.core.game import Game
    from machu_env.views.svg import board_svg
    svg = board_svg(Game(4, seed=1), player=0)   # seat 0's view; None: every hand shown

The picture is 1000 px wide; its height depends only on the player count (``board_size``).
It holds what ``Game.view(player)`` holds:

* the 15 districts, laid out as a crossing-free drawing of the reconstructed adjacency
  (RULES §11.1: the real board's geometry is not in the rulebooks); a line joins two districts
  whose border the Prince crosses for free. In each district: the bonus units (goods, or temple
  stones on the temples), every player's Incas (token with the count) and the Princes (crowned
  token with the seat number);
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

from html import escape
from typing import TYPE_CHECKING, Any

from machu_env.rules.data import (
    _BORDERS,
    DISTRICTS,
    GOODS,
    GRANARY,
    LAST_DAY,
    LEARNING_GAME_EXTRA_DAYS,
    LLAMA_STABLE,
    MARKET_PRICES,
    MARKET_SPACES,
    MOON_TILES,
    PRIEST_KINDS,
    PRIEST_ROW_SIZE,
    START_DAY,
    TRAIL_LENGTH,
)
from machu_env.views.phrases import DECISION_WORDS, LABELS, say

if TYPE_CHECKING:  # a game: anything with Game's view(player), scores() and learning_game
    from typing import Protocol

    class Game(Protocol):
        learning_game: bool

        def view(self, player: int | str | None = None) -> dict[str, Any]: ...

        def scores(self) -> list[dict[str, Any]]: ...

WIDTH = 1000
# Okabe–Ito colours that read on white (its yellow is too faint there and close to corn)
PLAYER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00")
PLAYER_INK = ("#ffffff", "#000000", "#ffffff", "#000000", "#ffffff")  # readable on each
GOODS_COLOURS = {"corn": "#f2c14e", "llama": "#e8e4da", "coca": "#5a9e4b", "pottery": "#b5653a",
                 "cloth": "#4f6fb0"}  # fmt: skip
GOODS_LETTER = {"corn": "C", "llama": "L", "coca": "K", "pottery": "P", "cloth": "W"}
TEMPLES = ("condor_temple", "puma_temple", "sun_temple", "main_temple")
_BONUS_GOOD = dict(zip(DISTRICTS[:5], GOODS, strict=True))
# grid cell (column, row) of each district: a crossing-free drawing of the §11.1 borders
GRID = {
    "royal_palace": (1, 0), "house_of_virgins": (2, 0), "house_of_priests": (3, 0),
    "condor_temple": (0, 1), "coca_plantation": (1, 1), "sun_temple": (2, 1),
    "main_temple": (3, 1), "sun_clock": (4, 1),
    "weavers_quarter": (1, 2), "central_plaza": (2, 2), "llama_meadow": (3, 2),
    "corn_terraces": (4, 2),
    "puma_temple": (0, 3), "potters_quarter": (2, 3), "watchmans_hut": (3, 3),
}  # fmt: skip
NIGHT_DECISIONS = ("redeem", "take")  # R7: the day's corn is already taken

# geometry (user units; the web page shows the board at 0.8 of this size or more at 1280x720,
# so every text is at least MIN_TEXT = 12 units: 9 px or more on the screen)
MAP_X, MAP_Y, CELL_W, CELL_H, BOX_W, BOX_H = 14, 52, 132, 118, 122, 104
RIGHT_X = MAP_X + 4 * CELL_W + BOX_W + 8  # the market, priests, days and moon tiles
TRAIL_Y = MAP_Y + 4 * CELL_H + 10
PANELS_Y = TRAIL_Y + 86
PANEL_H = 66
MIN_TEXT = 12


def moon_text(pv: dict) -> str:
    """A player's moon tiles in words: the tile being redeemed is named even when R7.1 has
    already put it back on the board ("cloth (redeeming)"); "-" for none."""
    tiles = list(pv["moon_tiles"])
    if pv.get("redeeming") and pv["redeeming"] not in tiles:
        tiles.append(f"{pv['redeeming']} (redeeming)")
    elif pv.get("redeeming"):
        tiles[tiles.index(pv["redeeming"])] += " (redeeming)"
    return ", ".join(tiles) or "-"


def board_size(num_players: int) -> tuple[int, int]:
    """(width, height) of the picture for ``num_players`` players."""
    return WIDTH, PANELS_Y + PANEL_H * num_players + 10


def _text(x: float, y: float, s: Any, size: int = 12, anchor: str = "start",
          weight: str = "normal", fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(str(s))}</text>')


def _token(x: float, y: float, p: int, label: Any, r: int = 9, prince: bool = False,
           title: str = "") -> str:
    """A player's round token (a Scout, a panel's seat mark) with a label, or a Prince (a
    larger crowned token with a bold ring); ``title`` becomes its tooltip."""
    c, ink = PLAYER_COLOURS[p], PLAYER_INK[p]
    out = [f"<g><title>{escape(title or f'Player {p}')}</title>"]
    if prince:
        out.append(f'<path d="M{x - r:.0f},{y - r + 2:.0f} l{r / 2:.1f},{-r * 0.9:.1f} '
                   f'l{r / 2:.1f},{r * 0.6:.1f} l{r / 2:.1f},{-r * 0.6:.1f} '
                   f'l{r / 2:.1f},{r * 0.9:.1f} z" fill="#ffcc33" stroke="#222" '
                   'stroke-width="1"/>')
    out.append(f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r}" fill="{c}" stroke="#222" '
               f'stroke-width="{2.5 if prince else 1}"/>')
    out.append(_text(x, y + 4, label, MIN_TEXT, "middle", "bold", ink))
    out.append("</g>")
    return "".join(out)


def _incas(x: float, y: float, p: int, count: int, where: str) -> str:
    """A player's Incas in a district: a token ``P1×2`` (seat and count, so neither depends on
    colour) with its top left corner at (x, y); the tooltip says it in words."""
    c, ink = PLAYER_COLOURS[p], PLAYER_INK[p]
    return (f'<g><title>Player {p}: {count} Inca{"s" * (count != 1)} in {escape(where)}'
            f'</title><rect x="{x:.0f}" y="{y:.0f}" width="{INCA_W}" height="18" rx="3" '
            f'fill="{c}" stroke="#222"/>'
            + _text(x + INCA_W / 2, y + 13.5, f"P{p}\u00d7{count}", MIN_TEXT, "middle", "bold",
                    ink) + "</g>")


INCA_W = 36  # an Incas token's width: three side by side in a district


def _goods_chip(x: float, y: float, good: str, count: Any = None, size: int = 16) -> str:
    """A goods square with its letter (and a count to its right)."""
    ink = "#fff" if good in ("coca", "pottery", "cloth") else "#222"
    out = (f'<rect x="{x:.0f}" y="{y:.0f}" width="{size}" height="{size}" rx="3" '
           f'fill="{GOODS_COLOURS[good]}" stroke="#555" stroke-width="0.8"><title>{good}'
           f'</title></rect>'
           + _text(x + size / 2, y + size - 3.5, GOODS_LETTER[good], MIN_TEXT, "middle", "bold",
                   ink))
    if count is not None:
        out += _text(x + size + 3, y + size - 3, count, 12)
    return out


def _centre(d: str) -> tuple[float, float]:
    c, r = GRID[d]
    return MAP_X + c * CELL_W + BOX_W / 2, MAP_Y + r * CELL_H + BOX_H / 2


def _districts(v: dict[str, Any]) -> list[str]:
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
        fill = ("#f3e3c3" if d in TEMPLES else "#e3efd6" if d in _BONUS_GOOD
                else "#fff4cf" if d == "sun_clock" else "#ece8e1")
        out.append(f'<g id="{d}"><rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="10" '
                   f'fill="{fill}" stroke="#6b5e48" stroke-width="1.5"/>')
        out.append(_text(x + BOX_W / 2, y + 16, LABELS[d], MIN_TEXT, "middle", "bold"))
        bonus = v["bonus"].get(d)
        if bonus is not None:  # R4.0: bonus units / temple stones
            for k in range(bonus):
                if d in TEMPLES:
                    out.append(f'<rect x="{x + 8 + 20 * k}" y="{y + 22}" width="16" height="16" '
                               'fill="#9e9e9e" stroke="#444"><title>temple stone</title></rect>')
                else:
                    out.append(_goods_chip(x + 8 + 20 * k, y + 22, _BONUS_GOOD[d]))
            out.append(_text(x + BOX_W - 5, y + 35, f"bonus {bonus}", MIN_TEXT, "end",
                             fill="#555"))
        # Incas of every player (production districts and the Sun Clock), three to a row;
        # the Princes in the bottom right corner
        k = 0
        for p, pv in enumerate(v["players"]):
            n = pv["incas"].get(d, 0)
            if n:
                out.append(_incas(x + 4 + (INCA_W + 2) * (k % 3), y + 42 + 20 * (k // 3), p, n,
                                  LABELS[d]))
                k += 1
        for j, p in enumerate(princes[d]):
            out.append(_token(x + BOX_W - 14 - 21 * j, y + BOX_H - 12, p, p, r=9, prince=True,
                              title=f"Player {p}'s Prince in {LABELS[d]}"))
        out.append("</g>")
    return out


def _market(v: dict[str, Any], x: int, y: int) -> list[str]:
    out = [_text(x, y, "Market (sell / buy price by space)", 12, weight="bold")]
    for j, good in enumerate(("llama", "coca", "pottery", "cloth")):
        cx = x + 10 + 56 * j
        units = v["market"][good]
        out.append(_goods_chip(cx + 6, y + 8, good))
        for s in range(MARKET_SPACES):
            sy = y + 30 + 22 * s
            filled = s < units
            out.append(f'<rect x="{cx}" y="{sy}" width="28" height="19" rx="3" '
                       f'fill="{GOODS_COLOURS[good] if filled else "#fafafa"}" '
                       f'stroke="{"#222" if filled else "#aaa"}" '
                       f'stroke-width="{1.6 if filled else 1}" '
                       f'stroke-dasharray="{"none" if filled else "3,2"}"/>')
            out.append(_text(cx + 14, sy + 14, MARKET_PRICES[s], MIN_TEXT, "middle",
                             fill="#fff" if filled and good != "llama" else "#333"))
        out.append(_text(cx + 14, y + 133, f"bank {v['bank'][good]}", MIN_TEXT, "middle"))
    return out


def _priests(v: dict[str, Any], x: int, y: int) -> list[str]:
    out = [_text(x, y, "Priest rows (cards left, sacrifice value)", 12, weight="bold")]
    for i, kind in enumerate(PRIEST_KINDS):
        left = v["priest_rows"][kind]
        size = int(PRIEST_ROW_SIZE[i])
        taken = size - left
        value = size + 4 - taken if taken else "-"  # R4.4.2
        ry = y + 10 + 24 * i
        out.append(_text(x, ry + 14, kind, MIN_TEXT))
        for k in range(size):
            present = k >= taken  # the row is right-aligned: the leftmost card goes first
            out.append(f'<rect x="{x + 56 + 18 * k}" y="{ry}" width="14" height="19" rx="2" '
                       f'fill="{"#a0522d" if present else "none"}" stroke="#777" '
                       f'stroke-dasharray="{"none" if present else "2,2"}"/>')
        out.append(_text(x + 56 + 18 * 6 + 8, ry + 14, f"value {value}", MIN_TEXT))
    return out


def _time(v: dict[str, Any], learning_game: bool, x: int, y: int) -> list[str]:
    n = v["num_players"]
    start = START_DAY[n] + (LEARNING_GAME_EXTRA_DAYS if learning_game else 0)
    night = v["decision"] in NIGHT_DECISIONS or v["game_over"]
    out = [_text(x, y, "Days (corn on the time track)", 12, weight="bold")]
    for d in range(1, LAST_DAY + 1):
        cx = x + 2 + 34 * (d - 1)
        today = d == v["day"]
        out.append(f'<rect x="{cx}" y="{y + 8}" width="31" height="34" rx="15" '
                   f'fill="{"#ffe08a" if today else "#f4f4f4"}" '
                   f'stroke="{"#b8860b" if today else "#999"}" '
                   f'stroke-width="{2 if today else 1}"/>')
        out.append(_text(cx + 15.5, y + 23, d, MIN_TEXT, "middle", "bold" if today else "normal"))
        if start <= d and (d > v["day"] or (today and not night)):
            out.append(f'<circle cx="{cx + 15.5}" cy="{y + 34}" r="5" '
                       f'fill="{GOODS_COLOURS["corn"]}" stroke="#8a6d1a"><title>1 corn</title>'
                       '</circle>')
    my = y + 62
    out.append('<g id="moon-tiles">')
    out.append(_text(x, my, "Moon tiles on the board", 12, weight="bold"))
    for t, tile in enumerate(MOON_TILES):  # two rows: four tiles, then three
        tx, ty = x + 2 + 56 * (t % 4), my + 8 + 27 * (t // 4)
        here = tile in v["moon_tiles"]
        out.append(f'<rect x="{tx}" y="{ty}" width="54" height="24" rx="12" '
                   f'fill="{"#dde6f6" if here else "none"}" stroke="#667" '
                   f'stroke-dasharray="{"none" if here else "3,2"}"/>')
        out.append(_text(tx + 27, ty + 16.5, tile, MIN_TEXT, "middle",
                         fill="#222" if here else "#999"))
    sun = v["sun_player"]
    sx = x + 2 + 56 * 4 + 10
    out.append(f'<circle cx="{sx + 20}" cy="{my + 22}" r="17" fill="#ffcc33" stroke="#b8860b"/>')
    out.append(_text(sx + 20, my + 26.5, "Sun", MIN_TEXT, "middle", "bold"))
    out.append(_text(sx + 20, my + 56, "board" if sun is None else f"P{sun}", MIN_TEXT,
                     "middle"))
    out.append("</g>")
    return out


def _trail(v: dict[str, Any], y: int) -> list[str]:
    out = [_text(MAP_X, y + 2, "Inca Trail", 12, weight="bold")]
    w = (WIDTH - 2 * MAP_X) / (TRAIL_LENGTH + 1)
    special = {GRANARY: ("granary +3 corn", "#f7e7b4"), LLAMA_STABLE: ("stable +1 llama",
               "#e6e1d3"), TRAIL_LENGTH: ("summit", "#d9ecf7")}
    for s in range(TRAIL_LENGTH + 1):
        x = MAP_X + s * w
        label, fill = special.get(s, ("", "#fbfaf7"))
        out.append(f'<rect x="{x:.1f}" y="{y + 8}" width="{w - 3:.1f}" height="58" rx="4" '
                   f'fill="{fill}" stroke="#999"><title>space {s} {label}</title></rect>')
        out.append(_text(x + w / 2 - 1.5, y + 22, s, MIN_TEXT, "middle", "bold"))
        if label:  # ("granary" at 12 units is wider than a space: its letters close up)
            out.append(_text(x + w / 2 - 1.5, y + 62, label.split()[0], MIN_TEXT, "middle",
                             fill="#555").replace("<text ", '<text letter-spacing="-0.6" '))
    for p, pv in enumerate(v["players"]):
        s = pv["scout"] % (TRAIL_LENGTH + 1)
        same = [q for q, qv in enumerate(v["players"]) if qv["scout"] % (TRAIL_LENGTH + 1) == s]
        k, cols = same.index(p), 2 if len(same) <= 4 else 3  # (side by side, then rows)
        dx = 17 if cols == 2 else 13
        left = -dx * (min(len(same), cols) - 1) / 2
        out.append(_token(MAP_X + s * w + w / 2 - 1.5 + left + (k % cols) * dx,
                          y + 35 + (k // cols) * 17, p, p, r=8,
                          title=f"Player {p}'s Scout on space {pv['scout']}"))
    return out


def _cards(n: int) -> str:
    return f"{n} card" + ("" if n == 1 else "s")


# a generous width of one character of DejaVu Sans at a font size (px): what a line may hold
CHAR_W = {12: 7.5, 13: 8.2}


def _wrap(head: str, items: list[str], chars: int) -> list[str]:
    """``head`` and the ``items`` (comma-separated) in lines of at most ``chars`` characters,
    broken between items; two lines at most (a panel holds two)."""
    lines, line = [], head
    for k, item in enumerate(items or ["-"]):
        piece = item + ("," if k < len(items) - 1 else "")
        if len(line) + len(piece) > chars and line.strip() and len(lines) < 1:
            lines.append(line.rstrip())
            line = ""
        line += piece + " "
    return [*lines, line.rstrip()]


def _panel(v: dict[str, Any], p: int, scores: list[dict[str, Any]] | None, y: int) -> list[str]:
    pv = v["players"][p]
    deciding = not v["game_over"] and v["current_player"] == p
    out = [f'<g id="player{p}"><rect x="{MAP_X}" y="{y}" width="{WIDTH - 2 * MAP_X}" '
           f'height="{PANEL_H - 6}" rx="8" fill="{"#fff8e1" if deciding else "#f7f7f7"}" '
           f'stroke="{PLAYER_COLOURS[p]}" stroke-width="{4 if deciding else 2}"/>']
    out.append(_token(MAP_X + 20, y + 21, p, p, r=11))
    tag = []
    if v["active_player"] == p and not v["game_over"]:
        tag.append("active")
    if deciding:
        tag.append(f"to {DECISION_WORDS.get(v['decision'], v['decision'])}")
    out.append(_text(MAP_X + 38, y + 25, f"Player {p}", 13, weight="bold"))
    x = MAP_X + 150
    for good in GOODS:
        out.append(_goods_chip(x, y + 7, good, pv["goods"][good]))
        x += 44
    x += 6
    pr = " ".join(f"{k} {pv['priests'][k]}" for k in PRIEST_KINDS)
    supply = f"Incas in supply {pv['incas_supply']} · {pr}"
    out.append(_text(x, y + 20, supply, MIN_TEXT))
    out.append(_text(x + CHAR_W[MIN_TEXT] * len(supply) + 10, y + 20,
                     f"moon: {moon_text(pv)} · summit VP {pv['summit_vp']}", MIN_TEXT))
    # the second line: the cards on the left; on the right what the player is doing now, or
    # the result at the end
    right = " · ".join(tag)
    if scores is not None:
        sc = scores[p]
        right = (f"{sc['vp']} VP x {sc['multiplier']} = {sc['score']}"
                 + ("  WINNER" if sc["winner"] else ""))
    if pv["cards"] is None:
        cards = [f"{_cards(pv['num_cards'])} (hidden)"]
    else:  # two lines if one would run into the right-hand text (a long hand at the end)
        room = (WIDTH - MAP_X - 10 - CHAR_W[13] * len(right) - 12) - (MAP_X + 150)
        cards = _wrap(f"{_cards(pv['num_cards'])}: ", pv["cards"],
                      int(room / CHAR_W[MIN_TEXT]))
    for k, line in enumerate(cards):
        out.append(_text(MAP_X + 150, y + 42 + 14 * k, line, MIN_TEXT))
    if scores is not None:
        out.append(_text(WIDTH - MAP_X - 10, y + 43, right, 13, "end", "bold",
                         "#b00020" if sc["winner"] else "#222"))
    elif right:
        out.append(_text(WIDTH - MAP_X - 10, y + 43, right, 13, "end", "bold", "#8a4b00"))
    out.append("</g>")
    return out


def _districts_named(action: str) -> list[str]:
    """The districts an action names (``move sun_temple``, ``sunclock corn_terraces``,
    ``place potter``: the potter's district), for the replays' highlight."""
    from machu_env.rules.data import INCA_TYPES

    words = action.replace(",", " ").split()
    out = [w for w in words if w in GRID]
    out += [DISTRICTS[INCA_TYPES.index(w)] for w in words if w in INCA_TYPES]
    return out


def _highlight(last: tuple[int, str]) -> list[str]:
    """The last decision: a caption, and a thick outline on the districts it names."""
    p, action = last
    out = [_text(MAP_X, 47, f"last: player {p} {say(action)}", MIN_TEXT, weight="bold",
                 fill="#b34700")]
    for d in _districts_named(action):
        c, r = GRID[d]
        out.append(f'<rect x="{MAP_X + c * CELL_W - 4}" y="{MAP_Y + r * CELL_H - 4}" '
                   f'width="{BOX_W + 8}" height="{BOX_H + 8}" rx="13" fill="none" '
                   f'stroke="#d55e00" stroke-width="5"><title>last move: player {p} '
                   f'{escape(say(action))}</title></rect>')
    return out


def board_svg(game: Game, player: int | str | None = None,
              last: tuple[int, str] | None = None) -> str:
    """The board of ``game`` as an SVG document (a string): as seat ``player`` sees it (other
    hands shown as a count), ``"public"`` (no hand shown) or ``None`` (every hand shown).
    ``last``: (seat, action as the viewer may see it) of the decision just played, shown in a
    caption and outlined on the board (the replays use it)."""
    v = game.view(player)  # validates player
    n = v["num_players"]
    width, height = board_size(n)
    if v["game_over"]:
        head = f"Game over after day {v['day']}: {v['end']}"
    else:
        head = (f"Day {v['day']} of {LAST_DAY} · active player {v['active_player']} · "
                f"player {v['current_player']} to "
                f"{DECISION_WORDS.get(v['decision'], v['decision'])}")
    seen = {None: "every hand shown", "public": "public view"}.get(
        player, f"as seen by player {player}")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, Arial, '
           'sans-serif">',
           f"<title>The Princes of Machu Picchu: {escape(head)}</title>",
           f'<rect width="{width}" height="{height}" fill="#fffdf8"/>',
           _text(MAP_X, 30, head, 17, weight="bold"),
           _text(WIDTH - MAP_X, 30, f"{n} players · {seen} · deck {v['deck_size']} cards", 12,
                 "end", fill="#555")]
    out += _districts(v)
    if last is not None:
        out += _highlight(last)
    right = RIGHT_X
    out += ['<g id="market">', *_market(v, right, MAP_Y + 10), "</g>"]
    out += _priests(v, right, MAP_Y + 162)
    out += _time(v, game.learning_game, right, MAP_Y + 262)
    out += _trail(v, TRAIL_Y)
    scores = game.scores() if v["game_over"] else None  # public at the end (R9)
    for p in range(n):
        out += _panel(v, p, scores, PANELS_Y + PANEL_H * p)
    out.append("</svg>")
    return "\n".join(out)
