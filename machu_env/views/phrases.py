"""Decisions and moves in a player's words, for everything a person reads (the web page's
status, headings and history, the replays' logs): one vocabulary, shared with the buttons.

``say(action)`` turns an action's notation (RULES §12.4) as a player may see it (another
player's summit return reads ``return a card``) into a short phrase; ``DECISION_WORDS`` names
what a pending decision asks for, ``HEADINGS`` the groups of buttons. The costs of a move are the
web app's (``web.words.describe``): a phrase here says what happened, not what it cost.
"""

from __future__ import annotations

LABELS = {
    "corn_terraces": "Corn Terraces", "llama_meadow": "Llama Meadow",
    "coca_plantation": "Coca Plantation", "potters_quarter": "Potters' Quarter",
    "weavers_quarter": "Weavers' Quarter", "condor_temple": "Condor Temple",
    "puma_temple": "Puma Temple", "sun_temple": "Sun Temple", "main_temple": "Main Temple",
    "watchmans_hut": "Watchman's Hut", "royal_palace": "Royal Palace",
    "house_of_priests": "House of Priests", "house_of_virgins": "House of Virgins",
    "central_plaza": "Central Plaza", "sun_clock": "Sun Clock",
}  # fmt: skip
# the board's names of the districts: one line each at the map's text size (the full name in
# the district's tooltip and on a tap)
SHORT_LABELS = {
    "corn_terraces": "Corn", "llama_meadow": "Llamas", "coca_plantation": "Coca",
    "potters_quarter": "Potters", "weavers_quarter": "Weavers", "condor_temple": "Condor",
    "puma_temple": "Puma", "sun_temple": "Sun Temple", "main_temple": "Main Temple",
    "watchmans_hut": "Watchman", "royal_palace": "Palace", "house_of_priests": "Priests",
    "house_of_virgins": "Virgins", "central_plaza": "Plaza", "sun_clock": "Sun Clock",
}  # fmt: skip
DECISION_WORDS = {
    "start": "place a first Inca", "move": "move the Prince, or stay",
    "produce": "produce", "sacrifice": "sacrifice llamas at the temple",
    "offer": "make an offering at the Main Temple", "place": "place Incas",
    "acquire": "acquire a priest or a virgin", "market_adjust": "adjust the market",
    "market_trade": "trade at the market", "sunclock": "put an Inca on the Sun Clock",
    "return": "return a card to the bottom of the deck", "redeem": "redeem a moon tile",
    "take": "take three goods from the Sun Clock",
}  # fmt: skip
HEADINGS = {
    "start": "First Inca", "move": "Move the Prince", "stay": "Stay and take a moon tile",
    "produce": "Produce", "sacrifice": "Sacrifice", "offer": "Offering", "place": "Place",
    "done": "Finish", "acquire": "Acquire", "pass": "Pass", "market": "Adjust the market",
    "buy": "Buy", "sell": "Sell", "sunclock": "Sun Clock", "return": "Return a card",
    "redeem": "Redeem the moon tile", "forgo": "Forgo the moon tile", "take": "Take goods",
}  # fmt: skip
TILES = {"corn": "corn", "llama": "llama", "coca": "coca", "pottery": "pottery",
         "cloth": "cloth", "trail2": "trail +2", "trail3": "trail +3"}


def _place(name: str) -> str:
    return LABELS.get(name, name.replace("_", " "))


def words_list(items: list[str]) -> str:
    """``["corn", "llama", "coca"]`` -> ``corn, llama and coca``."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _list(text: str) -> str:
    return words_list(text.split(",")) if text != "none" else "nothing"


def card_words(name: str) -> str:
    """A sacrifice card as a player names it: ``llama+puma`` -> ``llama & puma`` (its two
    icons; §11.3)."""
    return " & ".join(name.split("+"))


def _taken(text: str) -> str:
    """The Sun Clock's goods with their amounts (corn comes 3 at a time: R7.2)."""
    return words_list(["3 corn" if g == "corn" else f"1 {g}" for g in text.split(",")])


def say(action: str) -> str:
    """A short phrase for one action's notation (unknown text is returned as it is)."""
    verb, _, rest = action.partition(" ")
    phrases = {
        "start": lambda: f"puts its first Inca in the {_place(rest)}",
        "move": lambda: f"moves the Prince to the {_place(rest)}",
        "stay": lambda: f"stays and takes the {TILES.get(rest, rest)} moon tile",
        "produce": lambda: f"produces with {rest} Inca{'s' if rest != '1' else ''}"
        if rest != "0" else "produces nothing",
        "sacrifice": lambda: f"sacrifices {rest} llama{'s' if rest != '1' else ''}"
        if rest != "0" else "sacrifices nothing",
        "offer": lambda: f"offers {_list(rest)} at the Main Temple" if rest != "none"
        else "offers nothing",
        "place": lambda: f"places a {rest.replace('_', ' ')}",
        "done": lambda: "is done",
        "acquire": lambda: f"acquires a {rest}" + (" priest" if rest != "virgin" else ""),
        "pass": lambda: "passes",
        "market": lambda: "keeps the market" if rest == "keep" else
        f"{rest.split()[0]}s {rest.split()[-1]} {'to' if rest.startswith('add') else 'from'} "
        "the market",
        "buy": lambda: f"buys {rest}", "sell": lambda: f"sells {rest}",
        "sunclock": lambda: f"puts an Inca from the {_place(rest)} on the Sun Clock",
        "return": lambda: "returns a card" if rest == "a card"
        else f"returns the {card_words(rest)} card",
        "redeem": lambda: f"redeems the {TILES.get(rest, rest)} moon tile",
        "forgo": lambda: f"forgoes the {TILES.get(rest, rest)} moon tile",
        "take": lambda: f"takes {_taken(rest)} from the Sun Clock (Scout +3)",
    }
    phrase = phrases.get(verb)
    return phrase() if phrase is not None and rest is not None else action


# the phrases' verbs as the player themselves reads them ("You put your first Inca ...")
_YOU = {"puts": "put", "moves": "move", "stays": "stay", "produces": "produce",
        "sacrifices": "sacrifice", "offers": "offer", "places": "place", "is": "are",
        "acquires": "acquire", "passes": "pass", "keeps": "keep", "adds": "add",
        "removes": "remove", "buys": "buy", "sells": "sell", "returns": "return",
        "redeems": "redeem", "forgoes": "forgo", "takes": "take"}  # fmt: skip


def say_you(action: str) -> str:
    """``say`` in the second person, for the player's own decisions: "put your first Inca in
    the Llama Meadow", "are done"."""
    verb, _, rest = say(action).partition(" ")
    if verb not in _YOU:
        return say(action)
    return f"{_YOU[verb]} {rest}".replace(" its ", " your ").replace(" and takes ", " and take ")

