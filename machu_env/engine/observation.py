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
from machu_env.engine.scoring import _holding, gold, trail_bonus, victory_points
from machu_env.rules import layout as L
from machu_env.rules.data import (
    CARD_GOLD,
    CARD_ICONS,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_DISTRICTS,
    NUM_MOON_TILES,
    PRIEST_ROW_SIZE,
    SUMMIT_VP,
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

# Observation v2 = v1 followed by the race for the gold majority (R9.4): what the observer may
# know of each opponent's cards from public information and its own (R10). The cards it cannot
# place, U, are all cards less its hand and the cards it put at the bottom of the deck that no
# one has drawn since (``P_RETURNED``): a set that no hidden arrangement changes. An opponent
# holding k cards (public) holds k of U; its gold is its trail bonus (public) plus their gold,
# its VP its public VP (trail, summits without a card) plus their icons x its holdings (public).
RACE_FIELDS: tuple[tuple[str, int, str], ...] = (
    # --- each opponent, next player clockwise first (4 blocks of 9; absent seats zeros) ---
    ("race_summits", 1, "summits it reached: cards held - 1 + summits without a card / 10"),
    ("race_gold_expected", 1, "its expected gold: trail bonus + k x mean gold of U / 50"),
    ("race_gold_max", 1, "the most gold it can hold: the k richest cards of U / 50"),
    ("race_gold_min", 1, "the least gold it can hold: the k poorest cards of U / 50"),
    ("race_vp_expected", 1, "its expected VP (public VP + k x mean value of U for it) / 50"),
    ("race_vp_max", 1, "its most VP: the k cards of U worth most to it / 50"),
    ("race_surely_behind", 1, "1 if the observer's gold is above its most"),
    ("race_surely_ahead", 1, "1 if the observer's gold is below its least"),
    ("race_gold_gap", 1, "(observer's gold - its expected gold) / 60 + 0.5, within 0..1"),
    # --- the observer's standing in the gold ranking ---
    ("race_rank_expected", 1, "opponents whose expected gold is above the observer's / 4"),
    ("race_rank_worst", 1, "opponents that may have more gold (most above) / 4"),
    ("race_rank_best", 1, "opponents that surely have more gold (least above) / 4"),
    ("race_unseen", 1, "cards in U / 28"),
)
RACE_SEAT_SIZE = 9
RACE_SIZE = (MAX_PLAYERS - 1) * RACE_SEAT_SIZE + 4
OBS_V2_SIZE = OBS_SIZE + RACE_SIZE

# Observation v3 = v2 followed by a history summary: how often each seat
# chose each kind of public decision so far (``L.HISTORY_KINDS``), a memory of the game that the
# policy lacks, so that it can tell a racer from a builder. Public information only (R10.1).
HISTORY_FIELDS: tuple[tuple[str, int, str], ...] = tuple(
    (f"history_{kind}", 1, f"{kind} decisions so far / 50") for kind in L.HISTORY_KINDS)
HISTORY_SEAT_SIZE = len(L.HISTORY_KINDS)  # 5 blocks, observer first then clockwise
HISTORY_SIZE = MAX_PLAYERS * HISTORY_SEAT_SIZE
OBS_V3_SIZE = OBS_V2_SIZE + HISTORY_SIZE
OBS_SIZES = {1: OBS_SIZE, 2: OBS_V2_SIZE, 3: OBS_V3_SIZE}  # observation version -> length
OBS_MAX_SIZE = OBS_V3_SIZE  # every version is a prefix of the largest
_MAX_CARD_GOLD = int(CARD_GOLD.max())


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
def _count(mask: int) -> int:
    n = 0
    for c in range(NUM_CARDS):
        n += (mask >> c) & 1
    return n


@njit(cache=True)
def _gold_bounds(unseen: int, k: int) -> tuple[int, int, int]:
    """(least, most, total) gold of k cards of ``unseen``: by gold levels, no allocation."""
    most, left = 0, k
    for v in range(_MAX_CARD_GOLD, -1, -1):
        for c in range(NUM_CARDS):
            if left > 0 and (unseen >> c) & 1 and CARD_GOLD[c] == v:
                most += v
                left -= 1
    least, left, total = 0, k, 0
    for v in range(_MAX_CARD_GOLD + 1):
        for c in range(NUM_CARDS):
            if (unseen >> c) & 1 and CARD_GOLD[c] == v:
                total += v
                if left > 0:
                    least += v
                    left -= 1
    return least, most, total


@njit(cache=True)
def _value(s: np.ndarray, b: int, c: int) -> int:
    """What card ``c`` would be worth in VP to the player of base ``b`` (R9.1)."""
    return _holding(s, b, CARD_ICONS[c, 0]) + _holding(s, b, CARD_ICONS[c, 1])


@njit(cache=True)
def _vp_bounds(s: np.ndarray, b: int, unseen: int, k: int) -> tuple[int, int]:
    """(most, total) VP value of k cards of ``unseen`` for the player of base ``b``."""
    top, total = 0, 0
    for c in range(NUM_CARDS):
        if (unseen >> c) & 1:
            v = _value(s, b, c)
            total += v
            top = max(top, v)
    most, left = 0, k
    for v in range(top, -1, -1):
        for c in range(NUM_CARDS):
            if left > 0 and (unseen >> c) & 1 and _value(s, b, c) == v:
                most += v
                left -= 1
    return most, total


@njit(cache=True)
def encode_race(s: np.ndarray, p: int, out: np.ndarray, i: int) -> None:
    """Write the race fields (``RACE_FIELDS``) of observer ``p`` at ``out[i:]``."""
    n = s[L.NUM_PLAYERS]
    bp = pb(p)
    unseen = ((1 << NUM_CARDS) - 1) & ~s[bp + L.P_HAND] & ~s[bp + L.P_RETURNED]
    m = _count(unseen)
    mine = gold(s, p)
    above_exp, above_worst, above_best = 0, 0, 0
    for j in range(1, MAX_PLAYERS):
        o = i + (j - 1) * RACE_SEAT_SIZE
        if j >= n:
            for f in range(RACE_SEAT_SIZE):
                out[o + f] = 0.0
            continue
        q = (p + j) % n
        b = pb(q)
        k = _count(s[b + L.P_HAND])
        least, most, total = _gold_bounds(unseen, k)
        trail = trail_bonus(s[b + L.P_SCOUT])
        expected = trail + (k * total / m if m else 0.0)
        vp_most, vp_total = _vp_bounds(s, b, unseen, k)
        public_vp = trail + SUMMIT_VP * s[b + L.P_SUMMIT_VP]
        out[o] = (k - 1 + s[b + L.P_SUMMIT_VP]) / 10.0
        out[o + 1] = expected / 50.0
        out[o + 2] = (trail + most) / 50.0
        out[o + 3] = (trail + least) / 50.0
        out[o + 4] = (public_vp + (k * vp_total / m if m else 0.0)) / 50.0
        out[o + 5] = (public_vp + vp_most) / 50.0
        out[o + 6] = 1.0 if mine > trail + most else 0.0
        out[o + 7] = 1.0 if mine < trail + least else 0.0
        out[o + 8] = min(1.0, max(0.0, (mine - expected) / 60.0 + 0.5))
        above_exp += expected > mine
        above_worst += trail + most > mine
        above_best += trail + least > mine
    o = i + (MAX_PLAYERS - 1) * RACE_SEAT_SIZE
    out[o] = above_exp / 4.0
    out[o + 1] = above_worst / 4.0
    out[o + 2] = above_best / 4.0
    out[o + 3] = m / 28.0


@njit(cache=True)
def encode_history(s: np.ndarray, p: int, out: np.ndarray, i: int) -> None:
    """Write the history fields (``HISTORY_FIELDS`` per seat, observer first) at ``out[i:]``."""
    n = s[L.NUM_PLAYERS]
    for j in range(MAX_PLAYERS):
        o = i + j * HISTORY_SEAT_SIZE
        b = pb((p + j) % n)
        for h in range(HISTORY_SEAT_SIZE):
            out[o + h] = min(s[b + L.P_HISTORY + h] / 50.0, OBS_HIGH) if j < n else 0.0


@njit(cache=True)
def encode(s: np.ndarray, p: int, out: np.ndarray) -> None:
    """Write player ``p``'s observation into ``out``: version 1 (``OBS_SIZE`` values) or, for
    an ``out`` of ``OBS_V2_SIZE``, version 2 (version 1 followed by ``RACE_FIELDS``), for one of
    ``OBS_V3_SIZE`` version 3 (version 2 followed by the history, ``HISTORY_FIELDS``)."""
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
    if out.shape[0] >= OBS_V2_SIZE:
        encode_race(s, p, out, OBS_SIZE)
    if out.shape[0] >= OBS_V3_SIZE:
        encode_history(s, p, out, OBS_V2_SIZE)


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
