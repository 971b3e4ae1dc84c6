"""The board picture's parts beside the districts: the market, the priest rows, the days and
moon tiles, the Inca Trail and the players' panels (``machu_env.views.svg`` puts them together).
Each part that a move can name is a group with an ``id`` (``market-llama-2``, ``moon-coca``,
``priests-puma``, ``trail-7``) whose first rectangle is its outline: the web page makes the
legal ones tappable, and ``boxes`` records where each was drawn (the last move's outline)."""

from __future__ import annotations

from html import escape
from typing import Any

from machu_env.rules.data import (
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
from machu_env.views.phrases import DECISION_WORDS, TILES, card_words
from machu_env.views.svg_kit import (
    CHAR_W,
    GOODS_COLOURS,
    MAP_X,
    MIN_TEXT,
    NIGHT_DECISIONS,
    PANEL_H,
    PLAYER_COLOURS,
    WIDTH,
    Box,
    _goods_chip,
    _text,
    _token,
)


def moon_text(pv: dict) -> str:
    """A player's moon tiles in words: the tile being redeemed is named even when R7.1 has
    already put it back on the board ("cloth (redeeming)"); "-" for none."""
    tiles = [TILES[t] for t in pv["moon_tiles"]]
    redeeming = pv.get("redeeming")
    if redeeming and redeeming not in pv["moon_tiles"]:
        tiles.append(f"{TILES[redeeming]} (redeeming)")
    elif redeeming:
        tiles[pv["moon_tiles"].index(redeeming)] += " (redeeming)"
    return ", ".join(tiles) or "-"


def _group(name: str, box: Box, boxes: dict[str, Box], title: str = "",
           fill: str = "none", stroke: str = "none") -> str:
    """The opening of a named part: a group whose first rectangle is its outline (the web page
    outlines the tappable parts), recorded in ``boxes``."""
    boxes[name] = box
    x, y, w, h = box
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (f'<g id="{name}">{tip}<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}" rx="4" fill="{fill}" stroke="{stroke}"/>')


# the rows of the market and of the priests are this far apart (user units): at the scale a
# phone shows them (1.5 and more) two neighbours' hit areas are each 44 px tall or more
MARKET_STEP, PRIEST_STEP = 26, 30
MARKET_H, PRIESTS_H = 168, 112  # the height of each part, its heading included


def _market(v: dict[str, Any], x: int, y: int, boxes: dict[str, Box]) -> list[str]:
    out = [_text(x, y, "Market (sell / buy price by space)", 12, weight="bold")]
    for j, good in enumerate(("llama", "coca", "pottery", "cloth")):
        cx = x + 10 + 56 * j
        units = v["market"][good]
        out.append(_group(f"market-{good}", (cx - 4, y + 4, 36, 152), boxes))
        out.append(_goods_chip(cx + 6, y + 8, good))
        for s in range(MARKET_SPACES):
            sy = y + 30 + MARKET_STEP * s
            filled = s < units
            boxes[f"market-{good}-{s}"] = (cx, sy, 28, 19)
            out.append(f'<g id="market-{good}-{s}"><rect x="{cx}" y="{sy}" width="28" '
                       f'height="19" rx="3" fill="{GOODS_COLOURS[good] if filled else "#fafafa"}" '
                       f'stroke="{"#222" if filled else "#aaa"}" '
                       f'stroke-width="{1.6 if filled else 1}" '
                       f'stroke-dasharray="{"none" if filled else "3,2"}"/>')
            out.append(_text(cx + 14, sy + 14, MARKET_PRICES[s], MIN_TEXT, "middle",
                             fill="#fff" if filled and good != "llama" else "#333") + "</g>")
        out.append(_group(f"market-{good}-bank", (cx - 2, y + 136, 32, 18), boxes,
                          f"the bank: {v['bank'][good]} {good}"))
        out.append(_text(cx + 14, y + 149, f"bank {v['bank'][good]}", MIN_TEXT, "middle"))
        out.append("</g></g>")
    return out


def _priests(v: dict[str, Any], x: int, y: int, boxes: dict[str, Box]) -> list[str]:
    out = [_text(x, y, "Priest rows (cards left, sacrifice value)", 12, weight="bold")]
    for i, kind in enumerate(PRIEST_KINDS):
        left = v["priest_rows"][kind]
        size = int(PRIEST_ROW_SIZE[i])
        taken = size - left
        value = size + 4 - taken if taken else "-"  # R4.4.2
        ry = y + 10 + PRIEST_STEP * i
        out.append(_group(f"priests-{kind}", (x - 3, ry - 2, 236, 23), boxes,
                          f"{kind}: {left} card{'s' * (left != 1)} left"))
        out.append(_text(x, ry + 14, kind, MIN_TEXT))
        for k in range(size):
            present = k >= taken  # the row is right-aligned: the leftmost card goes first
            out.append(f'<rect x="{x + 56 + 18 * k}" y="{ry}" width="14" height="19" rx="2" '
                       f'fill="{"#a0522d" if present else "none"}" stroke="#777" '
                       f'stroke-dasharray="{"none" if present else "2,2"}"/>')
        out.append(_text(x + 56 + 18 * 6 + 8, ry + 14, f"value {value}", MIN_TEXT) + "</g>")
    return out


MOON_W = 62  # a moon tile's width: "trail +2" fits at MIN_TEXT


def _days(v: dict[str, Any], learning_game: bool, x: int, y: int) -> list[str]:
    """The time track: nine days, today marked, the corn still on it."""
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
    return out


def _moon(v: dict[str, Any], x: int, y: int, boxes: dict[str, Box], per_row: int = 4,
          size: tuple[int, int] = (MOON_W, 24), step: tuple[int, int] = (MOON_W + 2, 32),
          text: int = MIN_TEXT) -> list[str]:
    """The moon tiles still on the board (a dashed outline where one was taken), ``per_row``
    to a row: tiles of ``size`` whose corners are ``step`` apart."""
    (w, h), (dx, dy) = size, step
    out = [_text(x, y, "Moon tiles on the board", text, weight="bold")]
    for t, tile in enumerate(MOON_TILES):
        tx, ty = x + 2 + dx * (t % per_row), y + 8 + dy * (t // per_row)
        here = tile in v["moon_tiles"]
        boxes[f"moon-{tile}"] = (tx, ty, w, h)
        out.append(f'<g id="moon-{tile}"><rect x="{tx}" y="{ty}" width="{w}" height="{h}" '
                   f'rx="{h // 2}" fill="{"#dde6f6" if here else "none"}" stroke="#667" '
                   f'stroke-dasharray="{"none" if here else "3,2"}"/>')
        out.append(_text(tx + w / 2, ty + h / 2 + text * 0.37, TILES[tile], text, "middle",
                         fill="#222" if here else "#999") + "</g>")
    return out


def _sun(v: dict[str, Any], x: int, y: int) -> list[str]:
    """The Sun tile: on the board, or the seat that holds it (under the tile)."""
    sun = v["sun_player"]
    return [f'<circle cx="{x + 20}" cy="{y}" r="17" fill="#ffcc33" stroke="#b8860b"/>',
            _text(x + 20, y + 4.5, "Sun", MIN_TEXT, "middle", "bold"),
            _text(x + 20, y + 34, "board" if sun is None else f"P{sun}", MIN_TEXT, "middle")]


def _time(v: dict[str, Any], learning_game: bool, x: int, y: int,
          boxes: dict[str, Box]) -> list[str]:
    """The days, then the moon tiles (two rows) with the Sun tile beside them."""
    my = y + 62
    return [*_days(v, learning_game, x, y), '<g id="moon-tiles">', *_moon(v, x, my, boxes),
            *_sun(v, x + 2 + (MOON_W + 2) * 4 + 8, my + 22), "</g>"]


def _trail(v: dict[str, Any], y: int, boxes: dict[str, Box], width: int = WIDTH, rows: int = 1,
           text: int = MIN_TEXT) -> list[str]:
    """The Inca Trail 0–20 across a picture ``width`` wide in ``rows`` rows, its special
    spaces named, every Scout on its space."""
    out = [_text(MAP_X, y + 2, "Inca Trail", text, weight="bold")]
    per_row = -(-(TRAIL_LENGTH + 1) // rows)
    w = (width - 2 * MAP_X) / per_row
    special = {GRANARY: ("granary +3 corn", "#f7e7b4"), LLAMA_STABLE: ("stable +1 llama",
               "#e6e1d3"), TRAIL_LENGTH: ("summit", "#d9ecf7")}
    corner = {}
    for s in range(TRAIL_LENGTH + 1):
        x, sy = MAP_X + (s % per_row) * w, y + 8 + (s // per_row) * 66
        corner[s] = (x, sy)
        label, fill = special.get(s, ("", "#fbfaf7"))
        boxes[f"trail-{s}"] = (x, sy, w - 3, 58)
        out.append(f'<g id="trail-{s}"><rect x="{x:.1f}" y="{sy}" width="{w - 3:.1f}" '
                   f'height="58" rx="4" fill="{fill}" stroke="#999"><title>space {s} {label}'
                   '</title></rect>')
        out.append(_text(x + w / 2 - 1.5, sy + 2 + text, s, text, "middle", "bold"))
        if label:  # (a word wider than a space closes up its letters to fit)
            word = label.split()[0]
            squeeze = (f'<text textLength="{w - 8:.0f}" lengthAdjust="spacingAndGlyphs" '
                       if text > MIN_TEXT else '<text letter-spacing="-0.6" ')
            out.append(_text(x + w / 2 - 1.5, sy + 54, word, text, "middle",
                             fill="#555").replace("<text ", squeeze))
        out.append("</g>")
    r = 8 if text == MIN_TEXT else 11
    for p, pv in enumerate(v["players"]):
        s = pv["scout"] % (TRAIL_LENGTH + 1)
        same = [q for q, qv in enumerate(v["players"]) if qv["scout"] % (TRAIL_LENGTH + 1) == s]
        k, cols = same.index(p), 2 if len(same) <= 4 else 3  # (side by side, then rows)
        dx = (2 * r + 1) if cols == 2 else (r + 5)
        left = -dx * (min(len(same), cols) - 1) / 2
        x, sy = corner[s]
        out.append(_token(x + w / 2 - 1.5 + left + (k % cols) * dx,
                          sy + 27 + 2 * (r - 8) + (k // cols) * 17, p, p, r=r,
                          title=f"Player {p}'s Scout on space {pv['scout']}", size=text))
    return out


def _cards(n: int) -> str:
    return f"{n} card" + ("" if n == 1 else "s")


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
        tag.append("their turn")
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
        cards = _wrap(f"{_cards(pv['num_cards'])}: ",
                      [card_words(c) for c in pv["cards"]], int(room / CHAR_W[MIN_TEXT]))
    for k, line in enumerate(cards):
        out.append(_text(MAP_X + 150, y + 42 + 14 * k, line, MIN_TEXT))
    if scores is not None:
        out.append(_text(WIDTH - MAP_X - 10, y + 43, right, 13, "end", "bold",
                         "#b00020" if sc["winner"] else "#222"))
    elif right:
        out.append(_text(WIDTH - MAP_X - 10, y + 43, right, 13, "end", "bold", "#8a4b00"))
    out.append("</g>")
    return out
