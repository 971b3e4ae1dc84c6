"""A readable text board of a game (used by the demo, the AEC env's ``ansi`` mode, replays),
and the picture board as an RGB array (the envs' ``rgb_array`` mode)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from machu_env.rules.data import GOODS, PRIEST_KINDS
from machu_env.views.svg import moon_text

if TYPE_CHECKING:  # a game: anything with Game's view(player) and scores()
    from typing import Protocol

    class Game(Protocol):
        def view(self, player: int | str | None = None) -> dict[str, Any]: ...

        def scores(self) -> list[dict[str, Any]]: ...

_SHORT = {"corn_terraces": "corn", "llama_meadow": "llama", "coca_plantation": "coca",
          "potters_quarter": "pottery", "weavers_quarter": "cloth"}  # fmt: skip


def check_render_player(value: object, num_players: int, special: str) -> int | str | None:
    """An env's ``render_player``: a seat, ``"public"``, None (everything) or ``special`` (the
    env's own default perspective: ``"learner"``, ``"current"``)."""
    if value is None or value in ("public", special):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < num_players:
        return value
    raise ValueError(f"render_player must be {special!r}, 'public', None (everything, every "
                     f"player's cards) or a seat 0..{num_players - 1}; got {value!r}")


def render_rgb(game: Game, player: int | str | None = None):
    """The SVG board (``machu_env.views.svg``) as an ``(H, W, 3)`` uint8 array; needs the ``render``
    extra."""
    from machu_env.views.raster import svg_to_rgb
    from machu_env.views.svg import board_svg

    return svg_to_rgb(board_svg(game, player))


def render_text(game: Game, player: int | str | None = None) -> str:
    """The board as text: omniscient for ``player=None``, as seat ``player`` sees it, or only
    the public information for ``player="public"``."""
    v = game.view(player)
    lines = []
    if v["game_over"]:
        head = f"Game over after day {v['day']} ({v['end']})"
    else:
        head = (f"Day {v['day']}  active: P{v['active_player']}  deciding: "
                f"P{v['current_player']} ({v['decision']})")
    if v["sun_player"] is not None:
        head += f"  sun: P{v['sun_player']}"
    lines.append(head)
    lines.append("moon tiles on the board: " + (", ".join(v["moon_tiles"]) or "-"))
    lines.append("market: " + "  ".join(f"{g} {k}" for g, k in v["market"].items())
                 + "   bank: " + "  ".join(f"{g} {k}" for g, k in v["bank"].items()))
    lines.append("bonus units: " + "  ".join(f"{d} {k}" for d, k in v["bonus"].items() if k))
    lines.append("priest rows (cards left): "
                 + "  ".join(f"{k} {n}" for k, n in v["priest_rows"].items())
                 + f"   deck: {v['deck_size']} cards")
    for p, pv in enumerate(v["players"]):
        goods = " ".join(f"{pv['goods'][g]} {g}" for g in GOODS)
        incas = " ".join(f"{_SHORT.get(d, d)} {k}" for d, k in pv["incas"].items() if k)
        priests = " ".join(f"{k} {pv['priests'][k]}" for k in PRIEST_KINDS if pv["priests"][k])
        cards = ", ".join(pv["cards"]) if pv["cards"] is not None else "hidden"
        lines.append(
            f"P{p}: {goods} | Incas: {incas or '-'} (supply {pv['incas_supply']}) | "
            f"priests: {priests or '-'} | Scout {pv['scout']} | Prince {pv['prince'] or '-'} | "
            f"moon: {moon_text(pv)} | {pv['num_cards']} cards: {cards}"
        )
    if v["game_over"]:
        for p, sc in enumerate(game.scores()):
            lines.append(
                f"P{p}: {sc['vp']} VP x{sc['multiplier']} = {sc['score']}  (gold {sc['gold']}, "
                f"goods units {sc['goods_units']}){'  WINNER' if sc['winner'] else ''}"
            )
    return "\n".join(lines)


