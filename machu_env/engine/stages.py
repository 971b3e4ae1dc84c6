"""Engine stages: decision kinds (awaiting a player's action) and internal flow stages.

A stage below ``NUM_DECISION_KINDS`` is a pending decision of that kind (RULES §12);
the others are steps of the turn / night machinery that ``flow.advance`` runs through.
"""

from __future__ import annotations

# --- decision kinds (public: observation, view, notation) ------------------------------------
D_START = 0  # R2.9 initial Inca
D_MOVE = 1  # R3 move the Prince or stay
D_PRODUCE = 2  # R4.1
D_SACRIFICE = 3  # R4.2.1
D_OFFER = 4  # R4.2.2
D_PLACE = 5  # R4.3
D_ACQUIRE = 6  # R4.4
D_MARKET_ADJUST = 7  # R4.5.1
D_MARKET_TRADE = 8  # R4.5.2
D_SUNCLOCK = 9  # R4.6
D_RETURN = 10  # R5.3
D_REDEEM = 11  # R7.1 / R7.5
D_TAKE = 12  # R7.2 / R7.5
NUM_DECISION_KINDS = 13
DECISION_NAMES = (
    "start", "move", "produce", "sacrifice", "offer", "place", "acquire", "market_adjust",
    "market_trade", "sunclock", "return", "redeem", "take",
)  # fmt: skip

# --- flow stages -----------------------------------------------------------------------------
F_SETUP_NEXT = 20  # next player's initial Inca, then the first turn
F_TURN_START = 21  # the active player's move
F_PRODUCE_STEP = 22  # next producer in seat order (R4.1)
F_TEMPLE_STEP = 23  # next sacrificer in seat order (R4.2)
F_END_TURN = 24  # start paying trail rewards (R5.5)
F_END_TURN_STEP = 25
F_END_TURN_NEXT = 26
F_REWARDS = 27  # pay one player's pending trail rewards, summits included (R5.2, R5.3)
F_TURN_DONE = 28  # day bookkeeping (R6), game end (R8)
F_NIGHT_MOON_STEP = 29  # R7.1
F_NIGHT_MOON_NEXT = 30
F_NIGHT_SUN_STEP = 31  # R7.2
F_NIGHT_SUN_NEXT = 32
F_NIGHT_BONUS = 33  # R7.3, R7.4
F_TAKE = 34  # a Sun Clock payout: decision or automatic (R7.2)
F_GAME_OVER = 35
