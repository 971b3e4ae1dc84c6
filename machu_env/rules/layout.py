"""The state layout: one game is one flat ``int32`` array of ``STATE_SIZE`` entries.

This module is the only place that defines where each value lives. Every offset is a plain
module-level ``int`` so that numba folds it into the compiled code as a constant.

Global block (offsets ``0 .. GLOBAL_SIZE-1``)::

    NUM_PLAYERS      2..5
    DAY              current day 1..9 (R2.6)
    START_PLAYER     the random start player of day one (R2.8)
    ACTIVE           whose turn it is (the Prince being moved)
    SUN              who took the Sun tile today (R6.1), -1 before the 3rd moon tile
    MOONS_TODAY      moon tiles taken today
    LAST_TURNS       turns left in the day once the Sun is taken (counts the taker's own turn),
                     -1 before
    STAGE            the engine's stage (``stages.py``); decision stages await an action
    DECIDER          the player the pending decision belongs to
    CURSOR           seat offset of a "each player in seat order" loop
    LOOP_BASE        the seat that loop starts from (active player or Sun holder)
    CTX_DISTRICT     district being resolved (production/temple/placing/house), -1 none
    CTX_TILE         moon tile (night / day 9 redemption), or the tile loop cursor at night
    CTX_PLACED       bit mask of Inca types placed this visit (R4.3)
    CTX_COUNT        cards still to return at a summit (R5.3)
    MKT_BOUGHT       bit mask of goods bought this market visit (R4.5.3)
    MKT_SOLD         bit mask of goods sold this market visit (R4.5.3)
    REDEEM_RET       stage to resume after a moon-tile redemption or a Sun Clock payout
    REWARD_PLAYER    player whose trail rewards are being paid (R5.5)
    REWARD_RET       stage to resume after those rewards
    GAME_OVER        1 once the game has ended
    END_KIND         0 none, 1 rescue, 2 conquest (``END_*``)
    LAST_PRIEST      1 once the 15th priest/virgin card was acquired (R8.1)
    DECK_EXHAUSTED   1 once the sacrifice deck ran out (R8.1)
    LEARNING         1 for the learning-game variant (R2.11)
    DECK_TOP         index in DECK of the top card (the deck is a ring buffer)
    DECK_COUNT       cards in the deck
    DECISIONS        decisions put to players so far
    BANK + g         bank supply of good g (g = 1..4; index 0 unused: corn is unlimited)
    MARKET + g       market units of good g (g = 1..4; index 0 unused)
    BONUS + d        bonus units on district d (d = 0..8: production, then temples)
    PRIESTS_TAKEN+k  cards taken from priest row k (condor, puma, virgin)
    MOON_OWNER + t   owner of moon tile t, -1 while on the board
    DECK + i         the deck ring buffer (card ids)

Player block ``i`` starts at ``PLAYER_BASE + i * PLAYER_SIZE``; offsets inside it::

    P_GOODS + g      goods (corn, llama, coca, pottery, cloth)
    P_SUPPLY         Incas in the personal supply
    P_INCAS + d      Incas in production district d (0..4); P_INCAS + 5 = P_SUN_CLOCK
    P_PRINCE         the Prince's district, -1 before the first turn
    P_SCOUT          Scout space 0..19
    P_PRIESTS + k    priest/virgin cards owned, by kind
    P_HAND           the hand as a 28-bit mask of card ids
    P_SUMMIT_VP      summits reached after the deck ran out (3 VP each, R9.3)
    P_PEND_CORN      granary crossings not yet paid (R5.5)
    P_PEND_LLAMA     llama stable crossings not yet paid
    P_PEND_SUMMIT    summits not yet drawn
    P_RETURNED       the cards this player put at the bottom of the deck that no one has drawn
                     since (a 28-bit mask): what it knows of the deck (R10.2)
    P_HISTORY + h    how often this player chose history kind h so far (``HISTORY_KINDS``:
                     public decisions, counted for observation v3's history summary)
"""

from __future__ import annotations

from machu_env.rules.data import MAX_PLAYERS, NUM_CARDS, NUM_MOON_TILES

# --- global block ----------------------------------------------------------------------------
NUM_PLAYERS = 0
DAY = 1
START_PLAYER = 2
ACTIVE = 3
SUN = 4
MOONS_TODAY = 5
LAST_TURNS = 6
STAGE = 7
DECIDER = 8
CURSOR = 9
LOOP_BASE = 10
CTX_DISTRICT = 11
CTX_TILE = 12
CTX_PLACED = 13
CTX_COUNT = 14
MKT_BOUGHT = 15
MKT_SOLD = 16
REDEEM_RET = 17
REWARD_PLAYER = 18
REWARD_RET = 19
GAME_OVER = 20
END_KIND = 21
LAST_PRIEST = 22
DECK_EXHAUSTED = 23
LEARNING = 24
DECK_TOP = 25
DECK_COUNT = 26
DECISIONS = 27
BANK = 28  # 5 entries, index by good
MARKET = 33  # 5 entries, index by good
BONUS = 38  # 9 entries
PRIESTS_TAKEN = 47  # 3 entries
MOON_OWNER = 50  # 7 entries
DECK = 57  # 28 entries
GLOBAL_SIZE = DECK + NUM_CARDS  # 85

# --- player blocks ---------------------------------------------------------------------------
P_GOODS = 0
P_SUPPLY = 5
P_INCAS = 6
P_SUN_CLOCK = 11
P_PRINCE = 12
P_SCOUT = 13
P_PRIESTS = 14
P_HAND = 17
P_SUMMIT_VP = 18
P_PEND_CORN = 19
P_PEND_LLAMA = 20
P_PEND_SUMMIT = 21
P_RETURNED = 22
P_HISTORY = 23  # HISTORY_KINDS entries
HISTORY_KINDS = ("move", "stay", "produce", "sacrifice", "offer", "place", "trade", "sunclock")
H_MOVE, H_STAY, H_PRODUCE, H_SACRIFICE, H_OFFER, H_PLACE, H_TRADE, H_SUNCLOCK = range(8)
PLAYER_SIZE = P_HISTORY + len(HISTORY_KINDS)  # 31

PLAYER_BASE = 88
STATE_SIZE = PLAYER_BASE + MAX_PLAYERS * PLAYER_SIZE  # 243 int32 = 972 bytes

END_NONE, END_RESCUE, END_CONQUEST = 0, 1, 2
END_NAMES = (None, "rescue", "conquest")

assert MOON_OWNER + NUM_MOON_TILES <= DECK
assert GLOBAL_SIZE <= PLAYER_BASE


def player_base(player: int) -> int:
    """Offset of a player's block (also used inside numba code)."""
    return PLAYER_BASE + player * PLAYER_SIZE
