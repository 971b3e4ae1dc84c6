"""The board picture's drawing kit: colours, geometry and the small pieces (text, tokens, goods
chips) that ``machu_env.views.svg`` and ``machu_env.views.svg_parts`` draw with. Every text is at
least ``MIN_TEXT`` user units (9 px or more on a laptop's screen)."""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH = 1000
# Okabe–Ito colours that read on white (its yellow is too faint there and close to corn)
PLAYER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00")
PLAYER_INK = ("#ffffff", "#000000", "#ffffff", "#000000", "#ffffff")  # readable on each
GOODS_COLOURS = {"corn": "#f2c14e", "llama": "#e8e4da", "coca": "#5a9e4b", "pottery": "#b5653a",
                 "cloth": "#4f6fb0"}  # fmt: skip
# each good's shape (a 16 x 16 symbol drawn on its colour): the goods read without colour and
# without letters that could be taken for a seat ("P1"); the word is the chip's tooltip
GOODS_ICON = {
    "corn": "M8 1.5C10 1.5 11.2 4.5 11.2 7.5S10 12 8 12 4.8 10.5 4.8 7.5 6 1.5 8 1.5Z"
            "M8 15C5.5 13.8 3.2 11.6 2.8 8.5 4.8 10.2 6.2 11.6 8 12.8 9.8 11.6 11.2 10.2 13.2 8.5"
            " 12.8 11.6 10.5 13.8 8 15Z",
    "llama": "M5 15V8C5 6.3 5.4 5.2 6 4.2L5.4 1.3 7 2.8 8.3 1.3 8.6 3.5C10.2 3.9 11.8 4.6 12.4 "
             "5.6 12.5 6.6 11.2 7 9.6 6.7 9.2 7.3 9.2 8.2 9.2 9V15Z",
    "coca": "M8 1C13 4.2 13.6 10 8 15 2.4 10 3 4.2 8 1ZM7.5 4V13H8.5V4Z",
    "pottery": "M5.5 1.5H10.5V3C10.5 3.6 10 4.1 9.6 4.5 12.6 6 13.6 9.6 11.6 12.5 10.9 13.7 10 "
               "14.5 9 14.5H7C6 14.5 5.1 13.7 4.4 12.5 2.4 9.6 3.4 6 6.4 4.5 6 4.1 5.5 3.6 5.5 3Z",
    "cloth": "M2 3H14V13H2ZM2 5.4V6.6H14V5.4ZM2 9.4V10.6H14V9.4Z",
}
TEMPLES = ("condor_temple", "puma_temple", "sun_temple", "main_temple")
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
# the districts' texts (and those a phone shows at the map's scale): 9 px or more on a phone
# 360 px wide, which shows the whole map (650 units) at 0.51 of its size
MAP_TEXT = 18
# a generous width of one character of DejaVu Sans at a font size (px): what a line may hold
CHAR_W = {12: 7.5, 13: 8.2, 17: 10.6}
Box = tuple[float, float, float, float]  # x, y, width, height: where a named part was drawn


def _text(x: float, y: float, s: Any, size: int = 12, anchor: str = "start",
          weight: str = "normal", fill: str = "#222") -> str:
    return (f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(str(s))}</text>')


def _token(x: float, y: float, p: int, label: Any, r: int = 9, prince: bool = False,
           title: str = "", size: int = MIN_TEXT) -> str:
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
    out.append(_text(x, y + size / 3, label, size, "middle", "bold", ink))
    out.append("</g>")
    return "".join(out)



def goods_symbols() -> str:
    """The goods' shapes as SVG symbols (``#good-corn`` ...), defined once in a picture: its
    chips use them, and the web page's goods strip uses them from the board on the page."""
    return "<defs>" + "".join(
        f'<symbol id="good-{good}" viewBox="0 0 16 16"><path fill-rule="evenodd" d="{d}"/>'
        "</symbol>" for good, d in GOODS_ICON.items()) + "</defs>"


def _goods_chip(x: float, y: float, good: str, count: Any = None, size: int = 16,
               title: str = "") -> str:
    """A goods square of the good's colour with its shape (a count to its right)."""
    ink = "#fff" if good in ("coca", "pottery", "cloth") else "#222"
    pad = size * 0.1
    out = (f'<g class="good {good}"><title>{escape(title or good)}</title>'
           f'<rect x="{x:.0f}" y="{y:.0f}" width="{size}" height="{size}" rx="3" '
           f'fill="{GOODS_COLOURS[good]}" stroke="#555" stroke-width="0.8"/>'
           f'<use href="#good-{good}" x="{x + pad:.1f}" y="{y + pad:.1f}" '
           f'width="{size - 2 * pad:.1f}" height="{size - 2 * pad:.1f}" fill="{ink}"/></g>')
    if count is not None:
        out += _text(x + size + 3, y + size - 3, count, 12)
    return out

