"""The observation of one player: a fixed-length float32 vector (R10).

It holds all public information (R10.1) plus the observer's own cards (R10.2) and nothing that
depends on another player's cards or on the deck order (R10.3). Seats are relative to the
observer: seat slot 0 is the observer, slot 1 the next player clockwise, and so on; slots of
absent players (fewer than 5 players) are all zeros.

``OBS_FIELDS`` documents every field in order (name, length, meaning); ``encode`` writes them
in exactly that order. Counts are divided by the scale given: values lie in [0, OBS_HIGH], most
in [0, 1].
"""

from __future__ import annotations

import numpy as np
from numba import njit

from machu_env.engine import stages as S
from machu_env.engine.common import pb
from machu_env.engine.scoring import gold, victory_points
from machu_env.rules import layout as L
from machu_env.rules.data import (
    CARD_ICONS,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_DISTRICTS,
    NUM_MOON_TILES,
    PRIEST_ROW_SIZE,
)

OBS_FIELDS: tuple[tuple[str, int, str], ...] = (
    # --- game ---
    ("num_players", 4, "one-hot: 2, 3, 4, 5 players"),
    ("day", 9, "one-hot: day 1..9"),
    ("moons_today", 1, "moon tiles taken today / 7"),
    ("sun_taken", 1, "1 once the Sun tile was taken today (last turns running)"),
    ("sun_seat", 5, "one-hot relative seat of the Sun holder (zeros before it is taken)"),
    ("last_turns", 1, "turns left in the day once the Sun is taken / 5"),
    ("active_seat", 5, "one-hot relative seat of the active player (whose turn it is)"),
    ("moon_on_board", 7, "1 per moon tile still on the board (corn, llama, coca, pottery, "
     "cloth, trail2, trail3)"),
    ("bank", 4, "bank supply of llama, coca, pottery, cloth / 38"),
    ("market", 4, "market units of llama, coca, pottery, cloth / 4"),
    ("bonus", 9, "bonus units on the 9 once-a-day districts (district ids 0..8) / 2"),
    ("priest_rows", 3, "cards left in the Condor, Puma, Virgin rows / row size"),
    ("sacrifice_value", 3, "current sacrifice value of each row / 9"),
    ("deck_size", 1, "sacrifice cards in the deck / 28"),
    ("game_over", 1, "1 once the game has ended"),
    ("end_kind", 2, "one-hot: rescue, conquest"),
    # --- the pending decision ---
    ("decision_kind", 13, "one-hot decision kind (stages.DECISION_NAMES)"),
    ("decider_seat", 5, "one-hot relative seat of the player who decides now"),
    ("context_district", 15, "one-hot district being resolved (production, temple, hut, ...)"),
    ("context_tile", 7, "one-hot moon tile of a pending redeem decision"),
    ("placed", 5, "Inca types already placed in this Hut/Palace visit"),
    ("market_bought", 4, "goods bought this market visit (cannot be sold back)"),
    ("market_sold", 4, "goods sold this market visit (cannot be bought back)"),
    ("returns_left", 1, "cards still to return at the pending summit / 2"),
    # --- each seat, observer first (5 blocks of 45) ---
    ("seat_present", 1, "1 if this seat is in the game"),
    ("seat_goods", 5, "corn / 20 (capped at 8), llama, coca, pottery, cloth / 10"),
    ("seat_supply", 1, "Incas in the personal supply / 12"),
    ("seat_incas", 6, "Incas in the 5 production districts and on the Sun Clock / 6"),
    ("seat_prince", 16, "one-hot Prince district (15) or not yet placed (last entry)"),
    ("seat_scout", 1, "Scout space / 20"),
    ("seat_priests", 3, "Condor, Puma, Virgin cards owned / 6"),
    ("seat_num_cards", 1, "sacrifice cards held / 10"),
    ("seat_moon_tiles", 7, "moon tiles held"),
    ("seat_summit_vp", 1, "summits reached after the deck ran out / 5"),
    ("seat_pending", 3, "trail rewards not yet paid: granary, stable, summit crossings / 3"),
    # --- the observer's private information ---
    ("own_cards", 28, "1 per sacrifice card in the observer's hand (card ids)"),
    ("own_icons", 8, "icons on the observer's cards (corn..virgin) / 7"),
    ("own_vp", 1, "the observer's victory points now / 50"),
    ("own_gold", 1, "the observer's gold now / 50"),
)
SEAT_SIZE = sum(k for name, k, _ in OBS_FIELDS if name.startswith("seat_"))
OBS_HIGH = 8.0  # an upper bound of every observation value
OBS_SIZE = sum(k for _, k, _ in OBS_FIELDS) + (MAX_PLAYERS - 1) * SEAT_SIZE


@njit(cache=True, inline="always")
def _onehot(out: np.ndarray, i: int, size: int, k: int) -> int:
    if 0 <= k < size:
        out[i + k] = 1.0
    return i + size


@njit(cache=True)
def _seat(s: np.ndarray, p: int, rel: int) -> int:
    """Relative seat of player ``p`` for the observer (``rel`` = observer), -1 for none."""
    if p < 0:
        return -1
    n = s[L.NUM_PLAYERS]
    return (p - rel) % n


@njit(cache=True)
def _encode_seat(s: np.ndarray, q: int, out: np.ndarray, i: int) -> int:
    b = pb(q)
    out[i] = 1.0
    i += 1
    out[i] = min(s[b + L.P_GOODS], 160) / 20.0  # corn is unlimited: cap at OBS_HIGH
    for g in range(1, 5):
        out[i + g] = s[b + L.P_GOODS + g] / 10.0
    i += 5
    out[i] = s[b + L.P_SUPPLY] / 12.0
    i += 1
    for d in range(6):
        out[i + d] = s[b + L.P_INCAS + d] / 6.0
    i += 6
    prince = s[b + L.P_PRINCE]
    i = _onehot(out, i, NUM_DISTRICTS + 1, prince if prince >= 0 else NUM_DISTRICTS)
    out[i] = s[b + L.P_SCOUT] / 20.0
    i += 1
    for k in range(3):
        out[i + k] = s[b + L.P_PRIESTS + k] / 6.0
    i += 3
    hand = s[b + L.P_HAND]
    cnt = 0
    for c in range(NUM_CARDS):
        cnt += (hand >> c) & 1
    out[i] = cnt / 10.0
    i += 1
    for t in range(NUM_MOON_TILES):
        out[i + t] = 1.0 if s[L.MOON_OWNER + t] == q else 0.0
    i += NUM_MOON_TILES
    out[i] = s[b + L.P_SUMMIT_VP] / 5.0
    i += 1
    out[i] = s[b + L.P_PEND_CORN] / 3.0
    out[i + 1] = s[b + L.P_PEND_LLAMA] / 3.0
    out[i + 2] = s[b + L.P_PEND_SUMMIT] / 3.0
    return i + 3


@njit(cache=True)
def encode(s: np.ndarray, p: int, out: np.ndarray) -> None:
    """Write player ``p``'s observation into ``out`` (length ``OBS_SIZE``)."""
    out[:] = 0.0
    n = s[L.NUM_PLAYERS]
    i = _onehot(out, 0, 4, n - 2)
    i = _onehot(out, i, 9, s[L.DAY] - 1)
    out[i] = s[L.MOONS_TODAY] / 7.0
    i += 1
    out[i] = 1.0 if s[L.SUN] >= 0 else 0.0
    i += 1
    i = _onehot(out, i, MAX_PLAYERS, _seat(s, s[L.SUN], p))
    out[i] = max(s[L.LAST_TURNS], 0) / 5.0
    i += 1
    i = _onehot(out, i, MAX_PLAYERS, _seat(s, s[L.ACTIVE], p))
    for t in range(NUM_MOON_TILES):
        out[i + t] = 1.0 if s[L.MOON_OWNER + t] < 0 else 0.0
    i += NUM_MOON_TILES
    for g in range(4):
        out[i + g] = s[L.BANK + 1 + g] / 38.0
        out[i + 4 + g] = s[L.MARKET + 1 + g] / 4.0
    i += 8
    for d in range(9):
        out[i + d] = s[L.BONUS + d] / 2.0
    i += 9
    for k in range(3):
        left = PRIEST_ROW_SIZE[k] - s[L.PRIESTS_TAKEN + k]
        out[i + k] = left / PRIEST_ROW_SIZE[k]
        if left < PRIEST_ROW_SIZE[k]:  # R4.4.2: a value exists once a card was taken
            out[i + 3 + k] = (PRIEST_ROW_SIZE[k] + 4 - s[L.PRIESTS_TAKEN + k]) / 9.0
    i += 6
    out[i] = s[L.DECK_COUNT] / 28.0
    i += 1
    out[i] = s[L.GAME_OVER]
    i += 1
    i = _onehot(out, i, 2, s[L.END_KIND] - 1)
    # the pending decision
    st = s[L.STAGE]
    i = _onehot(out, i, S.NUM_DECISION_KINDS, st)
    decides = st < S.NUM_DECISION_KINDS
    i = _onehot(out, i, MAX_PLAYERS, _seat(s, s[L.DECIDER], p) if decides else -1)
    d = s[L.CTX_DISTRICT]
    ctx = st == S.D_PRODUCE or st == S.D_SACRIFICE or st == S.D_OFFER or st == S.D_PLACE
    ctx = ctx or st == S.D_ACQUIRE
    i = _onehot(out, i, NUM_DISTRICTS, d if ctx else -1)
    i = _onehot(out, i, NUM_MOON_TILES, s[L.CTX_TILE] if st == S.D_REDEEM else -1)
    for t in range(5):
        out[i + t] = (s[L.CTX_PLACED] >> t) & 1 if st == S.D_PLACE else 0
    i += 5
    for g in range(4):
        if st == S.D_MARKET_TRADE:
            out[i + g] = (s[L.MKT_BOUGHT] >> (g + 1)) & 1
            out[i + 4 + g] = (s[L.MKT_SOLD] >> (g + 1)) & 1
    i += 8
    out[i] = s[L.CTX_COUNT] / 2.0 if st == S.D_RETURN else 0.0
    i += 1
    # the seats, observer first
    for j in range(MAX_PLAYERS):
        if j < n:
            _encode_seat(s, (p + j) % n, out, i)
        i += SEAT_SIZE
    # private: own cards
    hand = s[pb(p) + L.P_HAND]
    for c in range(NUM_CARDS):
        if (hand >> c) & 1:
            out[i + c] = 1.0
            out[i + NUM_CARDS + CARD_ICONS[c, 0]] += 1.0 / 7.0
            out[i + NUM_CARDS + CARD_ICONS[c, 1]] += 1.0 / 7.0
    i += NUM_CARDS + 8
    out[i] = victory_points(s, p) / 50.0
    out[i + 1] = gold(s, p) / 50.0


def field_offsets() -> dict[str, tuple[int, int]]:
    """``{name: (offset, length)}`` of every field; seat fields give seat slot 0 (add
    ``j * SEAT_SIZE`` for slot j)."""
    offsets: dict[str, tuple[int, int]] = {}
    i = 0
    for name, k, _ in OBS_FIELDS:
        offsets[name] = (i, k)
        i += k
        if name == "seat_pending":
            i += (MAX_PLAYERS - 1) * SEAT_SIZE
    return offsets
