"""Positions to play on from: a copy of a game with the cards one player cannot know re-dealt.

A saved position or a branch of a record is played on as a new game. Copying the state as it is
would hand its human player the original game's hidden cards (the opponents' hands, the deck
order still to come) and, through the seed, the whole original deal. ``redealt`` gives instead
an *alternative past*: the cards that the player has never held (R10: the other hands, the deck,
the others' summit returns) are relabelled by a random permutation over the whole game — the
initial deal and every ``return <card>`` of another player alike. Sacrifice cards matter only
through their faces at the end (R9) and through the summit returns that name them (R5.3), so the
relabelled history replays legally to the same public position, the player's own cards stay
where it knows them (its hand, the cards it put at the bottom of the deck, R10.2), and
everything hidden is a fresh uniform deal, independent of the original. The new game is dealt by
hand (``Game(hands=..., deck=..., start_player=...)``): its record (version 2) carries that deal
and no seed of the original.
"""

from __future__ import annotations

import secrets
from typing import Any

from machu_env.core.game import Game
from machu_env.rules import layout as L
from machu_env.rules.data import CARD_INDEX, CARDS, NUM_CARDS

RETURN = "return "


def _hand(game: Game, p: int) -> int:
    return int(game.state[L.player_base(p) + L.P_HAND])


def seen_cards(game: Game, seat: int | None) -> int:
    """Bit mask of the cards ``seat`` has held at some point of ``game`` (its initial card,
    every card it drew at a summit): the faces it knows. None (a watcher) knows none."""
    if seat is None:
        return 0
    replayed = game.initial()
    seen = _hand(replayed, seat)
    for _, action in game.history:
        replayed.play(action)
        seen |= _hand(replayed, seat)
    return seen


def _deal(game: Game) -> tuple[int, list[list[int]], list[int]]:
    """(start player, initial hands, initial deck top first) of ``game``'s setup."""
    s = game.initial().state
    hands = [[c for c in range(NUM_CARDS) if int(s[L.player_base(p) + L.P_HAND]) >> c & 1]
             for p in range(game.num_players)]
    top, count = int(s[L.DECK_TOP]), int(s[L.DECK_COUNT])
    deck = [int(s[L.DECK + (top + i) % NUM_CARDS]) for i in range(count)]
    return int(s[L.START_PLAYER]), hands, deck


def redealt(game: Game, seat: int | None, rng: Any = None) -> Game:
    """A new game at ``game``'s position (its history, relabelled) in which every card that
    ``seat`` has never held is dealt anew at random (``rng``: a ``random.Random``-like object
    with ``shuffle``; default: the system's entropy). ``seat`` None re-deals every card (a
    watched game). ValueError for a game without a known setup (a batch row)."""
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                             or not 0 <= seat < game.num_players):
        raise ValueError(f"seat must be None (a watcher) or a seat 0..{game.num_players - 1}, "
                         f"got {seat!r}")
    rng = rng or secrets.SystemRandom()
    keep = seen_cards(game, seat)
    hidden = [c for c in range(NUM_CARDS) if not keep >> c & 1]
    shuffled = list(hidden)
    rng.shuffle(shuffled)
    sigma = list(range(NUM_CARDS))
    for old, new in zip(hidden, shuffled, strict=True):
        sigma[old] = new
    start, hands, deck = _deal(game)
    copy = Game(game.num_players, start_player=start,
                hands=[[sigma[c] for c in h] for h in hands], deck=[sigma[c] for c in deck],
                learning_game=game.learning_game)
    for _, action in game.history:
        if action.startswith(RETURN):
            action = RETURN + CARDS[sigma[CARD_INDEX[action[len(RETURN):]]]]
        copy.play(action)
    return copy
