"""Decisions in plain language for the web app: what an action does and what it costs.

``describe(game, action)`` turns a legal action's notation (RULES §12.4) into a sentence for
the player to decide, reading the costs from the data tables (``machu_env.rules.data``) and the
position (the Prince's district for a move's llama, the market's prices, the row's sacrifice
value): the web page shows it on the button. It explains; the engine decides what is legal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from machu_env.rules import layout as L
from machu_env.rules.data import (
    ADJACENT,
    DISTRICTS,
    GOODS,
    INCA_COST,
    INCA_TYPES,
    LAST_DAY,
    MAIN_TEMPLE_STEPS,
    MARKET_EMPTY_BUY,
    MARKET_FULL_SELL,
    MARKET_PRICES,
    MARKET_SPACES,
    PRIEST_COST,
    PRIEST_KINDS,
    PRIEST_ROW_SIZE,
)
from machu_env.views.phrases import TILES, card_words
from machu_env.views.svg import LABELS

if TYPE_CHECKING:
    from machu_env.core.game import Game

TEMPLE_ROW = {"condor_temple": 0, "puma_temple": 1, "sun_temple": 2}  # R4.2.1
# R4.0: a once-a-day district without bonus units does nothing more when entered
ONCE_A_DAY_IDLE = ": already worked today, nothing happens there"
MOON_WORDS = {"corn": "3 corn", "llama": "1 llama for 1 corn", "coca": "1 coca for 1 corn",
              "pottery": "1 pottery for 1 corn", "cloth": "1 cloth for 1 corn",
              "trail2": "Scout +2", "trail3": "Scout +3"}


def _goods(counts) -> str:
    """``[0, 1, 0, 1, 0]`` -> ``1 llama + 1 pottery``."""
    return " + ".join(f"{int(k)} {g}" for g, k in zip(GOODS, counts, strict=True) if k)


def turn_district(game: Game) -> str | None:
    d = int(game.state[L.CTX_DISTRICT])
    return DISTRICTS[d] if d >= 0 else None


def sacrifice_value(game: Game, row: int) -> int:
    """R4.4.2: the row's current sacrifice value."""
    size = int(PRIEST_ROW_SIZE[row])
    return size + 4 - int(game.state[L.PRIESTS_TAKEN + row])


def describe(game: Game, action: str, view: dict | None = None) -> str:
    """A sentence saying what the legal ``action`` of the deciding player does and costs
    (``view``: ``game.view(None)``, when the caller has it; read here, never sent)."""
    verb, _, rest = action.partition(" ")
    view = view or game.view(None)
    me = view["players"][game.current_player]
    if verb == "start":
        return f"place your first Inca in the {LABELS[rest]} (free)"
    if verb == "move":
        here = me["prince"]
        far = here is not None and not ADJACENT[DISTRICTS.index(here), DISTRICTS.index(rest)]
        cost = "pays 1 llama: not next door" if far else "free"
        idle = (ONCE_A_DAY_IDLE if view["bonus"].get(rest, 1) == 0
                else NOTHING_GAINED if ends_empty(game, action, view) else "")
        return f"Prince to the {LABELS[rest]} ({cost}){idle}"
    if verb == "stay":
        when = "at once: day 9" if game.day == LAST_DAY else "at night"
        return f"stay: take the {TILES[rest]} moon tile ({MOON_WORDS[rest]} {when})"
    if verb == "produce":
        n, d = int(rest), turn_district(game)
        if n == 0:
            return "let none of your Incas here produce"
        if d == "corn_terraces":
            return f"let {n} Inca{'s' * (n > 1)} produce {3 * n} corn (free)"
        good = GOODS[DISTRICTS.index(d)] if d in DISTRICTS[:5] else "goods"
        return f"let {n} Inca{'s' * (n > 1)} produce {n} {good} (pay {n} corn)"
    if verb == "sacrifice":
        n, d = int(rest), turn_district(game)
        if n == 0:
            return "sacrifice nothing"
        steps = n * sacrifice_value(game, TEMPLE_ROW[d]) if d in TEMPLE_ROW else None
        return f"sacrifice {n} llama{'s' * (n > 1)}" + (f": Scout +{steps}" if steps else "")
    if verb == "offer":
        if rest == "none":
            return "offer nothing"
        units = rest.split(",")
        shown = ", ".join("3 corn" if g == "corn" else f"1 {g}" for g in units)
        return f"offer {shown}: Scout +{MAIN_TEMPLE_STEPS * len(units)}"
    if verb == "place":
        cost = _goods(INCA_COST[INCA_TYPES.index(rest)])
        where = LABELS[DISTRICTS[INCA_TYPES.index(rest)]]
        return f"place a new {rest.replace('_', ' ')} in the {where} (pay {cost})"
    if verb == "done":
        return "finish here"
    if verb == "acquire":
        cost = _goods(PRIEST_COST[PRIEST_KINDS.index(rest)])
        kind = "Virgin" if rest == "virgin" else f"{rest.capitalize()} priest"
        return f"take a {kind} card (pay {cost})"
    if verb == "pass":
        return "pass: do nothing here"
    if verb == "market":
        what, _, good = rest.partition(" ")
        if what == "keep":
            return "leave the market as it is"
        if what == "add":
            return f"add 1 {good} from the bank to the market (its price falls)"
        return f"take 1 {good} off the market into the bank (its price rises)"
    if verb in ("buy", "sell"):
        units = view["market"][rest]
        if verb == "buy":
            price = MARKET_PRICES[units - 1] if units > 0 else MARKET_EMPTY_BUY
            return f"buy 1 {rest} for {int(price)} corn"
        price = MARKET_PRICES[units] if units < MARKET_SPACES else MARKET_FULL_SELL
        return f"sell 1 {rest} for {int(price)} corn"
    if verb == "sunclock":
        pays = "it pays 3 different goods and Scout +3 at once and stays (day 9)" \
            if game.day == LAST_DAY else "at night it pays 3 different goods and Scout +3, " \
            "then comes back"
        return f"move one of your Incas from the {LABELS[rest]} to the Sun Clock ({pays})"
    if verb == "return":
        return f"put the {card_words(rest)} card at the bottom of the deck"
    if verb == "redeem":
        return f"pay 1 corn for 1 {rest} (moon tile)"
    if verb == "forgo":
        return f"don't pay: no {rest} from this moon tile"
    if verb == "take":
        return "take " + ", ".join("3 corn" if g == "corn" else f"1 {g}"
                                   for g in rest.split(",")) + " from the bank (Sun Clock)"
    return action


NOTHING_GAINED = ": nothing to gain there, your turn ends"  # (a button, before the move)
IDLE_WORDS = ": nothing gained there, the turn ended"  # (the history, after it)


# the decisions that go on with a turn after the Prince's move (something happens there)
TURN_GOES_ON = ("produce", "sacrifice", "offer", "place", "acquire", "market_adjust",
                "market_trade", "sunclock", "return")


def _holdings(pv: dict, night: bool) -> tuple[int, ...]:
    """What a player holds that a turn can add to (goods, Incas, the Scout's climb, priests,
    cards, moon tiles): a turn that raises none of them gained nothing. ``night``: the move
    ended the day, whose corn and moon tiles are then not the move's doing (R7)."""
    goods = [n for g, n in pv["goods"].items() if not (night and g == "corn")]
    climb = pv["summit_vp"] * 100 + pv["scout"]  # (the Scout starts again after a summit)
    return (*goods, sum(pv["incas"].values()), climb, *pv["priests"].values(),
            pv["num_cards"], 0 if night else len(pv["moon_tiles"]))


def gained_nothing(before: dict, after: dict, player: int, district: str) -> bool:
    """Whether ``player``'s Prince move to ``district`` (``Game.view(None)`` before and after
    it) ended the turn with nothing gained: no decision goes on there, the district held no
    bonus units for its first visitor (R4.0), and nothing the player holds went up."""
    if after["game_over"] or after["decision"] in TURN_GOES_ON:
        return False
    if before["bonus"].get(district, 0) > 0:  # the first visitor takes them
        return False
    night = after["day"] != before["day"] or after["decision"] in ("redeem", "take")
    was = _holdings(before["players"][player], night)
    now = _holdings(after["players"][player], night)
    return all(b <= a for b, a in zip(now, was, strict=True))


def ends_empty(game: Game, action: str, view: dict | None = None) -> bool:
    """Whether the Prince move ``action`` ends the deciding player's turn with nothing gained
    (the district already worked today, nothing the player can afford or use there): played
    on a copy of the game."""
    if not action.startswith("move "):
        return False
    view = view or game.view(None)
    trial = game.clone()
    trial.play(action)
    return gained_nothing(view, trial.view(None), game.current_player, action.split()[1])
