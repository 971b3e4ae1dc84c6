"""Every name and number of the game (RULES.md §1, §11) — the one place they live.

Values marked *reconstructed* in RULES.md §11 (adjacency, card gold, Virgin cost, the coca moon
tile) are design choices that agree with every rulebook example; a player with the physical game
can correct them here without touching the engine.

Ids are small integers chosen so that the engine can index with them directly:
production district id == goods id == Inca type id, temple id - 5 == priest kind id,
moon tile 1..4 == goods id.
"""

from __future__ import annotations

import numpy as np

# --- goods (RULES "Goods") -------------------------------------------------------------------
GOODS = ("corn", "llama", "coca", "pottery", "cloth")
CORN, LLAMA, COCA, POTTERY, CLOTH = range(5)
NUM_GOODS = 5
MARKET_GOODS = (LLAMA, COCA, POTTERY, CLOTH)
CORN_PER_UNIT = 3  # R-UNIT: 3 corn are one goods unit

# --- districts (RULES name table) ------------------------------------------------------------
DISTRICTS = (
    "corn_terraces",  # 0  production: corn
    "llama_meadow",  # 1  production: llama
    "coca_plantation",  # 2  production: coca
    "potters_quarter",  # 3  production: pottery
    "weavers_quarter",  # 4  production: cloth
    "condor_temple",  # 5  temple: Condor priests
    "puma_temple",  # 6  temple: Puma priests
    "sun_temple",  # 7  temple: Virgins
    "main_temple",  # 8  temple: different goods
    "watchmans_hut",  # 9  place farmer / shepherd
    "royal_palace",  # 10 place coca grower / potter / weaver
    "house_of_priests",  # 11 acquire a Condor or Puma priest
    "house_of_virgins",  # 12 acquire a Virgin
    "central_plaza",  # 13 market
    "sun_clock",  # 14 move an Inca to the Sun Clock
)
NUM_DISTRICTS = 15
(
    CORN_TERRACES,
    LLAMA_MEADOW,
    COCA_PLANTATION,
    POTTERS_QUARTER,
    WEAVERS_QUARTER,
    CONDOR_TEMPLE,
    PUMA_TEMPLE,
    SUN_TEMPLE,
    MAIN_TEMPLE,
    WATCHMANS_HUT,
    ROYAL_PALACE,
    HOUSE_OF_PRIESTS,
    HOUSE_OF_VIRGINS,
    CENTRAL_PLAZA,
    SUN_CLOCK,
) = range(15)
PRODUCTION_DISTRICTS = DISTRICTS[:5]
NUM_PRODUCTION = 5
NUM_BONUS_DISTRICTS = 9  # R4.0: the 5 production districts and the 4 temples

# --- Incas (R4.3) ----------------------------------------------------------------------------
INCA_TYPES = ("farmer", "shepherd", "coca_grower", "potter", "weaver")  # id == district id
INCAS_PER_PLAYER = {2: 12, 3: 10, 4: 9, 5: 8}  # R1
# Cost of a new Inca, by type, in goods (corn, llama, coca, pottery, cloth).
INCA_COST = np.array(
    [
        [0, 1, 0, 1, 0],  # farmer: 1 llama + 1 pottery
        [3, 0, 1, 0, 0],  # shepherd: 3 corn + 1 coca
        [0, 0, 0, 1, 1],  # coca grower: 1 pottery + 1 cloth
        [0, 0, 1, 0, 1],  # potter: 1 coca + 1 cloth
        [0, 0, 1, 1, 0],  # weaver: 1 coca + 1 pottery
    ],
    dtype=np.int32,
)
# Which Inca types each placing district offers (R4.3): 1 = offered.
PLACE_OFFERS = np.zeros((NUM_DISTRICTS, 5), dtype=np.int32)
PLACE_OFFERS[WATCHMANS_HUT, [0, 1]] = 1
PLACE_OFFERS[ROYAL_PALACE, [2, 3, 4]] = 1

# --- priests (R4.4, §11.2) -------------------------------------------------------------------
PRIEST_KINDS = ("condor", "puma", "virgin")
CONDOR, PUMA, VIRGIN = range(3)
PRIEST_ROW_SIZE = np.array([4, 5, 6], dtype=np.int32)
NUM_PRIEST_CARDS = 15
# Cost per card in goods (corn, llama, coca, pottery, cloth). Virgin cost is reconstructed.
PRIEST_COST = np.array(
    [
        [0, 0, 1, 1, 1],  # condor: coca + pottery + cloth (walkthrough)
        [0, 0, 1, 1, 2],  # puma: coca + pottery + 2 cloth (rulebook example)
        [0, 0, 2, 2, 1],  # virgin: 2 coca + 2 pottery + cloth (reconstructed)
    ],
    dtype=np.int32,
)

# --- bank (R1, R1.1) -------------------------------------------------------------------------
# Finite bank supply of the four non-corn goods; corn is unlimited (index 0 unused).
BANK_START = np.array([0, 38, 28, 28, 28], dtype=np.int32)

# --- market (R4.5, §11.6) --------------------------------------------------------------------
MARKET_PRICES = np.array([6, 5, 4, 3], dtype=np.int32)  # spaces top -> bottom
MARKET_SPACES = 4
MARKET_START_UNITS = 2
MARKET_FULL_SELL = 3  # a full column: sell to the bank for 3 corn
MARKET_EMPTY_BUY = 6  # an empty column: buy from the bank for 6 corn

# --- Inca Trail (R5) -------------------------------------------------------------------------
TRAIL_LENGTH = 20  # space 20 is the summit; the Scout continues from 0
GRANARY = 7  # +3 corn
LLAMA_STABLE = 13  # +1 llama
GRANARY_CORN = 3
SUMMIT_DRAW = 3
SUMMIT_VP = 3  # R8.1 / R9.3: a summit after the deck ran out



# --- sacrifice cards (§11.3) -----------------------------------------------------------------
ICONS = ("corn", "llama", "coca", "pottery", "cloth", "condor", "puma", "virgin")
NUM_ICONS = 8
CARD_ICONS = np.array(
    [(a, b) for a in range(NUM_ICONS) for b in range(a + 1, NUM_ICONS)], dtype=np.int32
)
NUM_CARDS = 28
CARDS = tuple(f"{ICONS[a]}+{ICONS[b]}" for a, b in CARD_ICONS)
CARD_INDEX = {name: i for i, name in enumerate(CARDS)}
_CARD_GOLD = {  # reconstructed except corn+cloth and the four example cards
    "corn+llama": 3, "corn+coca": 4, "corn+pottery": 4, "corn+cloth": 3, "corn+condor": 5,
    "corn+puma": 5, "corn+virgin": 4, "llama+coca": 4, "llama+pottery": 4, "llama+cloth": 4,
    "llama+condor": 5, "llama+puma": 4, "llama+virgin": 3, "coca+pottery": 3, "coca+cloth": 5,
    "coca+condor": 4, "coca+puma": 5, "coca+virgin": 4, "pottery+cloth": 4,
    "pottery+condor": 5, "pottery+puma": 4, "pottery+virgin": 5, "cloth+condor": 4,
    "cloth+puma": 3, "cloth+virgin": 5, "condor+puma": 3, "condor+virgin": 3, "puma+virgin": 2,
}  # fmt: skip
CARD_GOLD = np.array([_CARD_GOLD[c] for c in CARDS], dtype=np.int32)

# --- moon tiles (§11.4) ----------------------------------------------------------------------
MOON_TILES = ("corn", "llama", "coca", "pottery", "cloth", "trail2", "trail3")
NUM_MOON_TILES = 7
MOON_CORN = 0  # 3 corn, free
MOON_TRAIL2, MOON_TRAIL3 = 5, 6
MOON_CORN_PAYOUT = 3
MOON_TRAIL_STEPS = np.array([0, 0, 0, 0, 0, 2, 3], dtype=np.int32)
MOON_TILES_PER_DAY = 3  # R6.1: the 3rd tile taken brings the Sun tile

# --- time (R2.6, §11.5) ----------------------------------------------------------------------
LAST_DAY = 9
START_DAY = {2: 1, 3: 2, 4: 3, 5: 3}
LEARNING_GAME_EXTRA_DAYS = 2  # R2.11
START_GOODS = np.array([3, 1, 1, 1, 1], dtype=np.int32)  # R2.7

# --- temples (R4.2) --------------------------------------------------------------------------
TEMPLE_STONE_STEPS = 3  # Scout spaces per temple stone taken
MAIN_TEMPLE_STEPS = 2  # Scout spaces per goods unit offered
SUN_CLOCK_STEPS = 3  # R7.2
SUN_CLOCK_GOODS = 3  # R7.2: 3 different goods units per Inca
MAX_BONUS_UNITS = 2  # R7.3

# --- board adjacency (§11.1, reconstructed) --------------------------------------------------
_BORDERS = {
    "central_plaza": ("llama_meadow", "main_temple", "potters_quarter", "sun_temple",
                      "weavers_quarter"),
    "coca_plantation": ("condor_temple", "royal_palace", "sun_temple"),
    "condor_temple": ("coca_plantation", "puma_temple", "royal_palace", "weavers_quarter"),
    "corn_terraces": ("main_temple", "sun_clock", "watchmans_hut"),
    "house_of_priests": ("house_of_virgins", "main_temple", "sun_clock"),
    "house_of_virgins": ("house_of_priests", "royal_palace", "sun_temple"),
    "llama_meadow": ("central_plaza", "potters_quarter", "watchmans_hut"),
    "main_temple": ("central_plaza", "corn_terraces", "house_of_priests", "sun_clock"),
    "potters_quarter": ("central_plaza", "llama_meadow", "puma_temple", "watchmans_hut"),
    "puma_temple": ("condor_temple", "potters_quarter", "weavers_quarter"),
    "royal_palace": ("coca_plantation", "condor_temple", "house_of_virgins", "sun_temple"),
    "sun_clock": ("corn_terraces", "house_of_priests", "main_temple"),
    "sun_temple": ("central_plaza", "coca_plantation", "house_of_virgins", "royal_palace"),
    "watchmans_hut": ("corn_terraces", "llama_meadow", "potters_quarter"),
    "weavers_quarter": ("central_plaza", "condor_temple", "puma_temple"),
}  # fmt: skip
ADJACENT = np.zeros((NUM_DISTRICTS, NUM_DISTRICTS), dtype=np.int32)
for _a, _bs in _BORDERS.items():
    for _b in _bs:
        ADJACENT[DISTRICTS.index(_a), DISTRICTS.index(_b)] = 1

# --- action notation helpers (§12.4) ---------------------------------------------------------
# The Sun Clock payout choices: the 10 sets of 3 different goods, in goods order.
TAKE_SETS = np.array(
    [(a, b, c) for a in range(5) for b in range(a + 1, 5) for c in range(b + 1, 5)],
    dtype=np.int32,
)
MAX_INCAS = max(INCAS_PER_PLAYER.values())
MAX_PRIESTS_OF_A_KIND = int(PRIEST_ROW_SIZE.max())
MAX_PLAYERS = 5
MIN_PLAYERS = 2
