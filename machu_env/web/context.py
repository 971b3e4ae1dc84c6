"""What a decision needs beside it on a small screen: the deciding player's own goods, cards and
Incas (``you``), and the part of the board the decision is about (``focus``: the id of an
element of the board's SVG, which the page brings into view)."""

from __future__ import annotations

from typing import Any

from machu_env.core.game import Game

# the board's part for the decisions that are not about the active Prince's district
_FOCUS = {"market_adjust": "market", "market_trade": "market", "redeem": "moon-tiles",
          "take": "sun_clock"}


def you(game: Game, seat: int | None) -> dict[str, Any] | None:
    """The human's own goods, cards (their own hand: they see it), Incas in supply and
    priests; None for a watcher or at the end (the end table shows every hand)."""
    if seat is None or game.is_over:
        return None
    pv = game.view(seat)["players"][seat]
    return {"goods": pv["goods"], "cards": pv["cards"], "incas_supply": pv["incas_supply"],
            "priests": pv["priests"], "moon_tiles": pv["moon_tiles"]}


def focus(game: Game) -> str | None:
    """The board element the current decision is about: the market for the market's
    decisions, the moon tiles for a night's redemption, the Sun Clock for its goods, the
    player's panel for a card to return, else the district of the active Prince (where the
    turn happens); None for the first Incas (the page shows the districts to choose from)."""
    if game.is_over:
        return None
    v = game.view("public")
    decision = v["decision"]
    if decision in _FOCUS:
        return _FOCUS[decision]
    if decision == "return":
        return f"player{v['current_player']}"
    if decision == "start":
        return None  # (the page shows the districts it may choose, as for every move)
    return v["players"][v["active_player"]]["prince"]
