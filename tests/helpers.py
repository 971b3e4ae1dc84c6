"""Scenario helpers: read and edit a game's players and board by RULES.md names."""

from __future__ import annotations

import random

import numpy as np

from machu_env import Game
from machu_env.core.game import _refresh
from machu_env.rules import layout as L
from machu_env.rules.data import DISTRICTS, GOODS, NUM_CARDS, PRIEST_KINDS


def goods(game: Game, p: int) -> dict[str, int]:
    return game.view()["players"][p]["goods"]


def player(game: Game, p: int) -> dict:
    return game.view()["players"][p]


def set_player(game: Game, p: int, *, incas: dict | None = None, priests: dict | None = None,
               prince: str | None = None, scout: int | None = None, supply: int | None = None,
               **goods_kw: int) -> None:
    """Overwrite parts of player ``p`` (goods by name, incas by district, priests by kind)."""
    b = L.player_base(p)
    for g, k in goods_kw.items():
        game._s[b + L.P_GOODS + GOODS.index(g)] = k
    for d, k in (incas or {}).items():
        game._s[b + (L.P_SUN_CLOCK if d == "sun_clock" else L.P_INCAS + DISTRICTS.index(d))] = k
    for kind, k in (priests or {}).items():
        game._s[b + L.P_PRIESTS + PRIEST_KINDS.index(kind)] = k
    if prince is not None:
        game._s[b + L.P_PRINCE] = DISTRICTS.index(prince)
    if scout is not None:
        game._s[b + L.P_SCOUT] = scout
    if supply is not None:
        game._s[b + L.P_SUPPLY] = supply
    _refresh(game)


def set_board(game: Game, *, bonus: dict | None = None, market: dict | None = None,
              bank: dict | None = None, priests_taken: dict | None = None,
              day: int | None = None) -> None:
    for d, k in (bonus or {}).items():
        game._s[L.BONUS + DISTRICTS.index(d)] = k
    for g, k in (market or {}).items():
        game._s[L.MARKET + GOODS.index(g)] = k
    for g, k in (bank or {}).items():
        game._s[L.BANK + GOODS.index(g)] = k
    for kind, k in (priests_taken or {}).items():
        game._s[L.PRIESTS_TAKEN + PRIEST_KINDS.index(kind)] = k
    if day is not None:
        game._s[L.DAY] = day
    _refresh(game)


def started(num_players: int = 3, starts=None, **kw) -> Game:
    """A game with seat 0 as start player after the initial Incas (default: all on the
    corn_terraces), at seat 0's first turn."""
    game = Game(num_players, seed=kw.pop("seed", 7), start_player=0, **kw)
    for p in range(num_players):
        d = (starts or ["corn_terraces"] * num_players)[p]
        game.play(f"start {d}")
    return game


def play(game: Game, *actions: str) -> None:
    for a in actions:
        game.play(a)


def check_invariants(game: Game) -> None:
    """Conservation and range invariants that hold after every decision (R1, R1.1, R10)."""
    from machu_env.rules.data import BANK_START, INCAS_PER_PLAYER, PRIEST_ROW_SIZE

    s = game.state
    n = game.num_players
    pbs = [L.player_base(p) for p in range(n)]
    for g in range(1, 5):  # goods conservation: bank + market + bonus + players
        total = s[L.BANK + g] + s[L.MARKET + g] + s[L.BONUS + g] + sum(s[b + g] for b in pbs)
        assert total == BANK_START[g], (GOODS[g], total)
        assert s[L.BANK + g] >= 0 and 0 <= s[L.MARKET + g] <= 4
    for b in pbs:
        assert all(s[b + L.P_GOODS + g] >= 0 for g in range(5))
        incas = s[b + L.P_SUPPLY] + sum(s[b + L.P_INCAS + d] for d in range(6))
        assert incas == INCAS_PER_PLAYER[n]  # Incas conservation
        assert min(s[b + L.P_INCAS + d] for d in range(6)) >= 0 and s[b + L.P_SUPPLY] >= 0
        assert 0 <= s[b + L.P_SCOUT] < 20
    for k in range(3):  # priests: row + owners
        owned = sum(s[b + L.P_PRIESTS + k] for b in pbs)
        assert owned == s[L.PRIESTS_TAKEN + k] <= PRIEST_ROW_SIZE[k]
    hands = [int(s[b + L.P_HAND]) for b in pbs]
    deck = {int(s[L.DECK + (s[L.DECK_TOP] + i) % 28]) for i in range(s[L.DECK_COUNT])}
    cards = sum(h.bit_count() for h in hands) + len(deck)
    union = deck.union(*({c for c in range(28) if h >> c & 1} for h in hands))
    assert cards == 28 == len(union)  # every card exactly once
    assert all(0 <= s[L.BONUS + d] <= 2 for d in range(9))
    assert 1 <= s[L.DAY] <= 9 and 0 <= s[L.MOONS_TODAY] <= 7
    if game.is_over:
        assert game.legal_actions() == [] and game.current_player is None
    else:
        legal = game.legal_action_ids()
        assert len(legal) >= 2 and len(set(legal)) == len(legal)  # R12.2
        assert legal == sorted(legal)


def hidden_permuted(game: Game, rng: random.Random) -> Game:
    """A copy of ``game`` whose hidden cards (for the deciding player) are dealt differently:
    the other hands and the deck, but for the cards the decider put at the bottom of the deck
    itself (``P_RETURNED``: it knows where they are, R10.2), which stay in place."""
    g = game.clone()
    s, p, n = g._s, g.current_player, g.num_players
    known = int(s[L.player_base(p) + L.P_RETURNED])
    hands = {q: int(s[L.player_base(q) + L.P_HAND]) for q in range(n) if q != p}
    deck = [int(s[L.DECK + (s[L.DECK_TOP] + i) % NUM_CARDS]) for i in range(s[L.DECK_COUNT])]
    pool = [c for q in hands for c in range(NUM_CARDS) if hands[q] >> c & 1]
    pool += [c for c in deck if not known >> c & 1]
    rng.shuffle(pool)
    for q, mask in hands.items():
        size = bin(mask).count("1")
        s[L.player_base(q) + L.P_HAND] = sum(1 << c for c in pool[:size])
        pool = pool[size:]
    s[L.DECK : L.DECK + len(deck)] = [c if known >> c & 1 else pool.pop() for c in deck]
    s[L.DECK_TOP] = 0
    _refresh(g)
    assert g.legal_action_ids() == game.legal_action_ids()
    for version in (1, 2, 3):
        assert np.array_equal(g.observation(p, version), game.observation(p, version))
    return g


def others_since(history: list[dict], seat: int) -> list[dict]:
    """The others' decisions between ``seat``'s previous turn and its present one (its own
    decisions of this turn skipped), oldest first: what the page's since-line and the board's
    outlines show (``history`` as ``machu serve``'s state gives it)."""
    to = len(history)
    while to and history[to - 1]["player"] == seat:
        to -= 1
    start = to
    while start and history[start - 1]["player"] != seat:
        start -= 1
    return history[start:to]
