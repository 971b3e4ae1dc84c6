"""The flat discrete action space and its notation (RULES.md §12.4).

Every decision of the game is one action id in ``0 .. NUM_ACTIONS-1``; every id has exactly one
notation string. ``done`` (end of placing / trading) and ``pass`` (House, Sun Clock) are shared
by two decision kinds: the pending decision tells them apart. The id ranges are module-level
``int`` constants so that numba folds them into the compiled rules.
"""

from __future__ import annotations

import numpy as np

from machu_env.rules.data import (
    CARDS,
    DISTRICTS,
    GOODS,
    INCA_TYPES,
    MAX_INCAS,
    MAX_PRIESTS_OF_A_KIND,
    MOON_TILES,
    NUM_CARDS,
    PRIEST_KINDS,
    TAKE_SETS,
)

A_START = 0  # start <production district>       5
A_MOVE = 5  # move <district>                    15
A_STAY = 20  # stay <moon tile>                  7
A_PRODUCE = 27  # produce <n>, n = 0..12         13
A_SACRIFICE = 40  # sacrifice <n>, n = 0..6     7
A_OFFER = 47  # offer <goods set> (bit mask)      32
A_PLACE = 79  # place <inca type>                5
A_DONE = 84  # done                              1
A_ACQUIRE = 85  # acquire <priest kind>          3
A_PASS = 88  # pass                              1
A_MARKET_KEEP = 89  # market keep                1
A_MARKET_ADD = 90  # market add <good 1..4>      4
A_MARKET_REMOVE = 94  # market remove <good>     4
A_BUY = 98  # buy <good 1..4>                    4
A_SELL = 102  # sell <good 1..4>                 4
A_SUNCLOCK = 106  # sunclock <production d.>     5
A_RETURN = 111  # return <card>                  28
A_REDEEM = 139  # redeem <goods tile 1..4>       4
A_FORGO = 143  # forgo <goods tile 1..4>         4
A_TAKE = 147  # take <3 goods> (TAKE_SETS)       10
NUM_ACTIONS = 157

assert A_PRODUCE + MAX_INCAS + 1 == A_SACRIFICE
assert A_SACRIFICE + MAX_PRIESTS_OF_A_KIND + 1 == A_OFFER
assert A_RETURN + NUM_CARDS == A_REDEEM
assert A_TAKE + len(TAKE_SETS) == NUM_ACTIONS


def _goods_list(mask: int) -> str:
    return ",".join(GOODS[g] for g in range(5) if mask >> g & 1) or "none"


def _build_table() -> tuple[str, ...]:
    t: list[str] = []
    t += [f"start {DISTRICTS[d]}" for d in range(5)]
    t += [f"move {d}" for d in DISTRICTS]
    t += [f"stay {m}" for m in MOON_TILES]
    t += [f"produce {n}" for n in range(MAX_INCAS + 1)]
    t += [f"sacrifice {n}" for n in range(MAX_PRIESTS_OF_A_KIND + 1)]
    t += [f"offer {_goods_list(m)}" for m in range(32)]
    t += [f"place {k}" for k in INCA_TYPES]
    t += ["done"]
    t += [f"acquire {k}" for k in PRIEST_KINDS]
    t += ["pass"]
    t += ["market keep"]
    t += [f"market add {GOODS[g]}" for g in range(1, 5)]
    t += [f"market remove {GOODS[g]}" for g in range(1, 5)]
    t += [f"buy {GOODS[g]}" for g in range(1, 5)]
    t += [f"sell {GOODS[g]}" for g in range(1, 5)]
    t += [f"sunclock {DISTRICTS[d]}" for d in range(5)]
    t += [f"return {c}" for c in CARDS]
    t += [f"redeem {MOON_TILES[t]}" for t in range(1, 5)]
    t += [f"forgo {MOON_TILES[t]}" for t in range(1, 5)]
    t += ["take " + ",".join(GOODS[g] for g in s) for s in TAKE_SETS]
    return tuple(t)


ACTION_NOTATION: tuple[str, ...] = _build_table()
ACTION_IDS: dict[str, int] = {s: i for i, s in enumerate(ACTION_NOTATION)}
assert len(ACTION_NOTATION) == NUM_ACTIONS == len(ACTION_IDS)


def notation(action_id: int) -> str:
    """The notation string of an action id."""
    if (not isinstance(action_id, int | np.integer) or isinstance(action_id, bool)
            or not 0 <= int(action_id) < NUM_ACTIONS):
        raise ValueError(f"action id must be an int in 0..{NUM_ACTIONS - 1}, got {action_id!r}")
    return ACTION_NOTATION[int(action_id)]


def action_id(text: str) -> int:
    """The action id of a notation string (surrounding spaces and case are ignored)."""
    key = " ".join(str(text).strip().lower().split())
    try:
        return ACTION_IDS[key]
    except KeyError:
        raise ValueError(
            f"unknown action {text!r}: not a string of the action notation (RULES.md §12.4); "
            "see machu_env.action_table()"
        ) from None


ACTION_FORMS = (f"an action id (an int in 0..{NUM_ACTIONS - 1}) or a notation string such as "
                "'move corn_terraces'")


def parse_action(action: object) -> int:
    """The action id of an action given as id (int, numpy integer or 0-d integer array) or
    notation string; ValueError for anything else (bools, floats, ``"0"``, None, arrays) and
    for ids outside ``0..NUM_ACTIONS-1``. Legality is not checked here."""
    if isinstance(action, str):
        return action_id(action)
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
        raise ValueError(f"{action!r} is not an action: give {ACTION_FORMS}")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action!r} is out of range: ids are 0..{NUM_ACTIONS - 1}")
    return int(action)


def action_table() -> str:
    """The full id ↔ notation table as text (one line per id)."""
    return "\n".join(f"{i:4d}  {s}" for i, s in enumerate(ACTION_NOTATION))


HIDDEN_RETURN = "return a card"


def visible_notation(action: str, by: int, viewer: int | str | None) -> str:
    """``action`` (a notation string decided by seat ``by``) as ``viewer`` may see it: which
    card a player returned at a summit is that player's private information (R10.2), so
    another seat (or ``"public"``) sees ``return a card``; ``None`` sees everything."""
    if viewer is None or viewer == by or not action.startswith("return "):
        return action
    return HIDDEN_RETURN
