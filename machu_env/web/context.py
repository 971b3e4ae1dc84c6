"""What a decision needs beside it on a small screen: every player's goods and pieces in one
strip (``players``), the part of the board the decision is about (``focus``: the id of an element
of the board's SVG, which the page brings into view) and, for each legal action that has one, the
part of the board to tap for it (``spots``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from machu_env.core.game import Game
from machu_env.rules.data import DISTRICTS, INCA_TYPES, MARKET_SPACES, TRAIL_LENGTH
from machu_env.views.phrases import TILES, card_words
from machu_env.web.words import TEMPLE_ROW, sacrifice_value, turn_district

# the board's part for the decisions that are not about the active Prince's district
_FOCUS = {"market_adjust": "market", "market_trade": "market", "redeem": "moon-tiles",
          "take": "sun_clock"}


def you(game: Game, seat: int | None) -> dict[str, Any] | None:
    """The human's own goods, cards (their own hand: they see it), Incas in supply and
    priests; None for a watcher or at the end (the end table shows every hand)."""
    if seat is None or game.is_over:
        return None
    pv = game.view(seat)["players"][seat]
    return {"goods": pv["goods"], "cards": [card_words(c) for c in pv["cards"]],
            "incas_supply": pv["incas_supply"], "priests": pv["priests"],
            "moon_tiles": [TILES[t] for t in pv["moon_tiles"]]}


def players(game: Game, seat: int | None) -> list[dict[str, Any]]:
    """One row per player as ``seat`` may see it (a watcher: the public view; at the end every
    hand): goods, cards (their names only where the viewer may see them), Incas in supply and
    on the board, priests, moon tiles, the Scout's space and summit VP, and whose turn it is."""
    viewer = None if game.is_over else "public" if seat is None else seat
    v = game.view(viewer)
    rows = []
    for p, pv in enumerate(v["players"]):
        rows.append({
            "player": p, "you": p == seat, "goods": pv["goods"],
            "cards": None if pv["cards"] is None else [card_words(c) for c in pv["cards"]],
            "num_cards": pv["num_cards"], "incas_supply": pv["incas_supply"],
            "incas_placed": sum(pv["incas"].values()), "priests": pv["priests"],
            "moon_tiles": [TILES[t] for t in pv["moon_tiles"]], "scout": pv["scout"],
            "summit_vp": pv["summit_vp"],
            "active": not v["game_over"] and v["active_player"] == p,
            "deciding": not v["game_over"] and v["current_player"] == p})
    return rows


def focus(game: Game) -> str | None:
    """The board element the current decision is about: the market for the market's
    decisions, the moon tiles for a night's redemption, the Sun Clock for its goods, else the
    district of the active Prince (where the turn happens); None for the first Incas (the page
    shows the districts to choose from) and for a card to return (the page's strip shows the
    hand)."""
    if game.is_over:
        return None
    v = game.view("public")
    decision = v["decision"]
    if decision in _FOCUS:
        return _FOCUS[decision]
    if decision in ("return", "start"):  # (the strip shows the hand; the page the districts)
        return None
    return v["players"][v["active_player"]]["prince"]


def _spot(game: Game, action: str, view: dict[str, Any]) -> str | None:
    """The part of the board a tap plays ``action`` on, or None (a choice with no place on the
    board: how many Incas produce, which goods to offer...)."""
    words = action.split()
    verb, last = words[0], words[-1]
    if verb in ("start", "move", "sunclock") and len(words) == 2:
        return last
    if verb == "place" and last in INCA_TYPES:
        return DISTRICTS[INCA_TYPES.index(last)]
    if verb in ("stay", "redeem"):  # (the tile to take; at night, the one you hold)
        return f"moon-{last}"
    if verb == "acquire":
        return f"priests-{last}"
    if verb in ("buy", "sell", "market") and last in view["market"]:
        units = view["market"][last]
        if verb == "sell" or words[1:2] == ["add"]:  # onto the first empty space
            return f"market-{last}-{units}" if units < MARKET_SPACES else f"market-{last}-bank"
        return f"market-{last}-{units - 1}" if units > 0 else f"market-{last}-bank"
    if verb == "offer" and last != "none":  # R4.2.2: 2 spaces a unit, to the space reached
        scout = view["players"][game.current_player]["scout"]
        return f"trail-{min(scout + 2 * len(last.split(',')), TRAIL_LENGTH)}"
    if verb == "sacrifice" and last != "0":  # the space the Scout climbs to
        district = turn_district(game)
        if district not in TEMPLE_ROW:
            return None
        steps = int(last) * sacrifice_value(game, TEMPLE_ROW[district])
        scout = view["players"][game.current_player]["scout"]
        return f"trail-{min(scout + steps, TRAIL_LENGTH)}"
    return None


def spots(game: Game, actions: list[str], view: dict[str, Any]) -> dict[str, str]:
    """For each legal action (notation) that has a place on the board, the id of that part of
    the board's SVG (a district, a market space, a moon tile, a priest row, a trail space);
    a part that two actions would share is left to the buttons. The producing district is
    the place of its whole production (``produce`` of the most Incas; fewer: buttons)."""
    found = {a: s for a in actions if (s := _spot(game, a, view)) is not None}
    produce = [a for a in actions if a.startswith("produce ") and a != "produce 0"]
    if produce and (district := turn_district(game)) is not None:
        found[max(produce, key=lambda a: int(a.split()[1]))] = district
    shared = Counter(found.values())
    return {a: s for a, s in found.items() if shared[s] == 1}
