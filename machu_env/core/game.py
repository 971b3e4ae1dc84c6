"""``machu_env.Game``: the scripting API over the engine's njit functions.

A ``Game`` owns one state array and the legal-action list of its pending decision; every rule
runs in the compiled engine. Decisions with a single legal option are played automatically
(R12.2) and do not appear in ``history``.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from machu_env.core.checks import check_bool, check_seed
from machu_env.core.checks import check_int as _check_int
from machu_env.core.errors import IllegalActionError
from machu_env.engine.flow import advance, step
from machu_env.engine.observation import OBS_SIZES, encode
from machu_env.engine.rng import seed_state
from machu_env.engine.scoring import NUM_SCORE_COLUMNS, final_scores, vp_details
from machu_env.engine.setup import init_state
from machu_env.engine.stages import D_REDEEM, DECISION_NAMES, NUM_DECISION_KINDS
from machu_env.rules import layout as L
from machu_env.rules.actions import ACTION_NOTATION, NUM_ACTIONS, parse_action
from machu_env.rules.data import (
    CARD_INDEX,
    CARDS,
    DISTRICTS,
    GOODS,
    ICONS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOON_TILES,
    NUM_CARDS,
    PRIEST_KINDS,
    PRIEST_ROW_SIZE,
    PRODUCTION_DISTRICTS,
)

_BONUS_DISTRICTS = DISTRICTS[:9]
PUBLIC = "public"  # Game.view(PUBLIC): what every player may see
# Nothing in the rules forces a game to end (a Prince may shuttle between two adjacent districts,
# R3.1; the day ends only with the third moon tile, R6.1): the environments and tournaments cut a
# game off after this many decisions (all players'; random games take 117-151).
DEFAULT_MAX_DECISIONS = 5000


def card_id(card: str | int) -> int:
    """The index (0..27) of a sacrifice card given by id string (``"corn+cloth"``) or index."""
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 0 <= int(card) < NUM_CARDS:
            return int(card)
    elif isinstance(card, str) and card.strip().lower() in CARD_INDEX:
        return CARD_INDEX[card.strip().lower()]
    raise ValueError(
        f"unknown sacrifice card {card!r}: give a card id such as 'corn+cloth' (two icons of "
        f"corn, llama, coca, pottery, cloth, condor, puma, virgin, in that order) or an index "
        f"0..{NUM_CARDS - 1}"
    )


def _hand_cards(mask: int) -> list[str]:
    return [CARDS[c] for c in range(NUM_CARDS) if mask >> c & 1]


class Game:
    """One game of The Princes of Machu Picchu.

    Args:
        num_players: 2 to 5.
        seed: the setup's only randomness (start player, deck order, initial cards; R12.3).
            ``None`` draws one (kept in ``self.seed``).
        start_player: seat of the start player; ``None`` draws it from the seed (R2.8).
        hands: one list of card ids per player, replacing the random initial draw: one card
            each (R2.7), unless ``scenario``.
        deck: card ids to put on top of the deck, first = top; the rest stay shuffled below.
        learning_game: the learning-game variant (R2.11).
        scenario: allow hands of any size, a deal the rules cannot produce (rule tests set up
            end-of-game hands so). Such a game's observations may leave their declared boxes
            and its record does not replay (``replay`` deals by the rules only).
    """

    def __init__(
        self,
        num_players: int,
        seed: int | None = None,
        *,
        start_player: int | None = None,
        hands: Sequence[Sequence[str | int]] | None = None,
        deck: Sequence[str | int] | None = None,
        learning_game: bool = False,
        scenario: bool = False,
    ) -> None:
        n = _check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
        if seed is None:
            seed = secrets.randbits(63)
        check_seed("seed", seed)
        if start_player is not None:
            _check_int("start_player", start_player, 0, n - 1)
        check_bool("learning_game", learning_game)
        check_bool("scenario", scenario)
        hand_ids = _check_hands(hands, n, scenario)
        deck_ids = _check_deck(deck)
        self.num_players = n
        self.seed = int(seed)
        self.learning_game = bool(learning_game)
        # the setup arguments beside the seed (records and re-deals rebuild the game from them)
        self.setup: dict[str, Any] = {}
        if start_player is not None:
            self.setup["start_player"] = int(start_player)
        if hand_ids is not None:
            self.setup["hands"] = [[CARDS[c] for c in h] for h in hand_ids]
        if deck_ids is not None:
            self.setup["deck"] = [CARDS[c] for c in deck_ids]
        self._s = np.zeros(L.STATE_SIZE, dtype=np.int32)
        self._buf = np.zeros(NUM_ACTIONS, dtype=np.int32)
        init_state(
            self._s, n, seed_state(self.seed), -1 if start_player is None else start_player,
            self.learning_game,
        )  # fmt: skip
        if hand_ids is not None or deck_ids is not None:
            _arrange_cards(self._s, hand_ids, deck_ids)
        self._n = int(advance(self._s, self._buf))
        self.history: list[tuple[int, str]] = []

    # --- state ------------------------------------------------------------------------------
    @property
    def state(self) -> np.ndarray:
        """A read-only view of the raw state array (layout: ``machu_env.rules.layout``)."""
        v = self._s.view()
        v.flags.writeable = False
        return v

    @property
    def is_over(self) -> bool:
        """True once the game has ended (the Rescue or the Spanish conquest, R8)."""
        return bool(self._s[L.GAME_OVER])

    @property
    def current_player(self) -> int | None:
        """The player who must decide now (not always the active player), None once over."""
        return None if self.is_over else int(self._s[L.DECIDER])

    @property
    def active_player(self) -> int:
        """The player whose turn it is (who moved the Prince)."""
        return int(self._s[L.ACTIVE])

    @property
    def day(self) -> int:
        """The current day on the time track, 1 to 9 (R2.6: the game ends after day 9)."""
        return int(self._s[L.DAY])

    @property
    def decision(self) -> str | None:
        """The pending decision's kind (``stages.DECISION_NAMES``), None once over."""
        st = int(self._s[L.STAGE])
        return DECISION_NAMES[st] if st < NUM_DECISION_KINDS else None

    @property
    def end(self) -> str | None:
        """None while running, then ``"rescue"`` or ``"conquest"`` (R8)."""
        return L.END_NAMES[int(self._s[L.END_KIND])]

    # --- actions ----------------------------------------------------------------------------
    def legal_action_ids(self) -> list[int]:
        """The pending decision's legal action ids, ascending (empty once over)."""
        return [int(a) for a in self._buf[: self._n]]

    def legal_actions(self) -> list[str]:
        """The pending decision's legal actions in notation (RULES §12.4)."""
        return [ACTION_NOTATION[a] for a in self._buf[: self._n]]

    def action_mask(self) -> np.ndarray:
        """An int8 mask with one entry per action id (1 = legal now)."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self._buf[: self._n]] = 1
        return mask

    def play(self, action: str | int) -> None:
        """Play one decision given as notation string or action id.

        Raises ``IllegalActionError`` (a ``ValueError``) listing the legal actions when the
        action is unknown or not legal now; the game is then unchanged.
        """
        self._play_id(self._resolve(action))

    def _play_id(self, a: int) -> int:
        """Play the legal action id ``a`` (unchecked: the caller checked it); returns the
        seat that decided."""
        player = int(self._s[L.DECIDER])
        self._n = int(step(self._s, a, self._buf))
        self.history.append((player, ACTION_NOTATION[a]))
        return player

    def _resolve(self, action: str | int) -> int:
        try:
            a = parse_action(action)
        except ValueError as e:
            raise IllegalActionError(action, self.legal_actions(), str(e)) from None
        if self.is_over:
            raise IllegalActionError(action, [], "the game is over")
        if a not in self._buf[: self._n]:
            raise IllegalActionError(action, self.legal_actions())
        return a

    def _snapshot(self) -> tuple[np.ndarray, np.ndarray, int, int]:
        """What ``_restore`` needs to undo the decisions played after this call."""
        return self._s.copy(), self._buf.copy(), self._n, len(self.history)

    def _restore(self, saved: tuple[np.ndarray, np.ndarray, int, int]) -> None:
        s, buf, n, h = saved
        self._s[:], self._buf[:], self._n = s, buf, n
        del self.history[h:]

    def play_all(self, actions: Iterable[str | int]) -> None:
        """Play several decisions in order (stops at the first illegal one, which raises)."""
        for a in actions:
            self.play(a)

    def clone(self) -> Game:
        """An independent copy (state, legal list and history)."""
        g = Game._from_arrays(self.num_players, self.seed, self.learning_game, self._s,
                              self._buf, self._n, self.history)
        g.setup = {k: list(v) if isinstance(v, list) else v for k, v in self.setup.items()}
        return g

    def initial(self) -> Game:
        """A new game with this game's setup (seed, ``setup``, variant), before any decision:
        replaying ``history`` on it gives this game again. ValueError for a game that was not
        set up by ``Game(...)`` (a batch row)."""
        if self.seed is None:
            raise ValueError("this game has no seed (a batch row): its setup is unknown")
        return Game(self.num_players, self.seed, learning_game=self.learning_game,
                    **self.setup)

    @classmethod
    def _from_arrays(cls, num_players: int, seed: int | None, learning_game: bool,
                     state: np.ndarray, buf: np.ndarray, n: int,
                     history: list[tuple[int, str]]) -> Game:
        """A Game over copies of an engine state and its legal list (clone, batch rows)."""
        g = cls.__new__(cls)
        g.num_players, g.seed, g.learning_game = num_players, seed, learning_game
        g.setup = {}
        g._s, g._buf, g._n = state.copy(), buf.copy(), int(n)
        g.history = list(history)
        return g

    # --- results and views ------------------------------------------------------------------
    def scores(self) -> list[dict[str, Any]]:
        """One dict per player: ``vp``, ``gold``, ``multiplier``, ``score``, ``goods_units``,
        ``winner``. Before the end, the multiplier is 1 and nobody is a winner."""
        out = np.zeros((MAX_PLAYERS, NUM_SCORE_COLUMNS), dtype=np.int32)
        final_scores(self._s, out)
        keys = ("vp", "gold", "multiplier", "score", "goods_units")
        return [
            {**{k: int(out[p, i]) for i, k in enumerate(keys)}, "winner": bool(out[p, 5])}
            for p in range(self.num_players)
        ]

    def vp_details(self, player: int) -> dict[str, int]:
        """Where player ``player``'s victory points come from (R9.1–R9.3): one entry per icon
        (``corn`` … ``virgin``: icons on the player's cards x holdings), ``trail`` (the
        Scout's bonus) and ``summits`` (3 VP per summit without a card); they add up to
        ``scores()[player]["vp"]``. The icons reveal the player's hand: show them at the end."""
        p = _check_int("player", player, 0, self.num_players - 1)
        out = np.zeros(len(ICONS) + 2, dtype=np.int64)
        vp_details(self._s, p, out)
        return dict(zip((*ICONS, "trail", "summits"), (int(x) for x in out), strict=True))

    def observation(self, player: int, version: int = 1) -> np.ndarray:
        """Player ``player``'s observation (float32; fields in
        ``machu_env.engine.observation``): version 1 (``OBS_SIZE``: ``OBS_FIELDS``), 2
        (``OBS_V2_SIZE``: version 1 followed by ``RACE_FIELDS``, the race for the gold
        majority as the player may know it) or 3 (``OBS_V3_SIZE``: version 2 followed by
        ``HISTORY_FIELDS``, each seat's public decisions so far)."""
        p = _check_int("player", player, 0, self.num_players - 1)
        if version not in OBS_SIZES or isinstance(version, bool):
            raise ValueError(f"observation version must be 1, 2 or 3, got {version!r}")
        out = np.empty(OBS_SIZES[version], dtype=np.float32)
        encode(self._s, p, out)
        return out

    def view(self, player: int | str | None = None) -> dict[str, Any]:
        """The game as a plain dict: omniscient for ``player=None``, else what ``player`` may
        see (other players' ``cards`` are None); ``"public"``: what every player may see (no
        one's cards). ``bonus`` counts units per district (one unit on the Corn Terraces is 3
        corn); ``market``/``bank`` count the 4 market goods."""
        if player is not None and player != PUBLIC:
            if not isinstance(player, (int, np.integer)) or isinstance(player, bool):
                raise ValueError(f"player must be an int in 0..{self.num_players - 1} (a seat), "
                                 f"None (everything) or {PUBLIC!r}, got {player!r}")
            _check_int("player", player, 0, self.num_players - 1)
        s = self._s
        n = self.num_players
        st = int(s[L.STAGE])
        return {
            "num_players": n,
            "day": int(s[L.DAY]),
            "active_player": int(s[L.ACTIVE]),
            "current_player": self.current_player,
            "start_player": int(s[L.START_PLAYER]),
            "sun_player": int(s[L.SUN]) if s[L.SUN] >= 0 else None,
            "decision": DECISION_NAMES[st] if st < NUM_DECISION_KINDS else None,
            "moon_tiles": [MOON_TILES[t] for t in range(7) if s[L.MOON_OWNER + t] < 0],
            "bonus": {d: int(s[L.BONUS + i]) for i, d in enumerate(_BONUS_DISTRICTS)},
            "market": {GOODS[g]: int(s[L.MARKET + g]) for g in range(1, 5)},
            "bank": {GOODS[g]: int(s[L.BANK + g]) for g in range(1, 5)},
            "priest_rows": {
                k: int(PRIEST_ROW_SIZE[i] - s[L.PRIESTS_TAKEN + i])
                for i, k in enumerate(PRIEST_KINDS)
            },
            "deck_size": int(s[L.DECK_COUNT]),
            "game_over": self.is_over,
            "end": self.end,

            "players": [self._player_view(p, player is None or (player != PUBLIC and p == player))
                        for p in range(n)],
        }

    def _player_view(self, p: int, show_cards: bool) -> dict[str, Any]:
        s = self._s
        b = L.player_base(p)
        hand = int(s[b + L.P_HAND])
        incas = {d: int(s[b + L.P_INCAS + i]) for i, d in enumerate(PRODUCTION_DISTRICTS)}
        incas["sun_clock"] = int(s[b + L.P_SUN_CLOCK])
        prince = int(s[b + L.P_PRINCE])
        return {
            "goods": {g: int(s[b + L.P_GOODS + i]) for i, g in enumerate(GOODS)},
            "incas_supply": int(s[b + L.P_SUPPLY]),
            "incas": incas,
            "prince": DISTRICTS[prince] if prince >= 0 else None,
            "scout": int(s[b + L.P_SCOUT]),
            "priests": {k: int(s[b + L.P_PRIESTS + i]) for i, k in enumerate(PRIEST_KINDS)},
            "cards": _hand_cards(hand) if show_cards else None,
            "num_cards": hand.bit_count(),
            "moon_tiles": [MOON_TILES[t] for t in range(7) if s[L.MOON_OWNER + t] == p],
            # the tile this player decides to redeem now (R7.1: at night it is already back on
            # the board while its owner pays for it; R7.5: on day 9 still the player's)
            "redeeming": MOON_TILES[int(s[L.CTX_TILE])]
            if s[L.STAGE] == D_REDEEM and s[L.DECIDER] == p else None,
            "summit_vp": 3 * int(s[b + L.P_SUMMIT_VP]),
        }

    # The board picture a notebook shows (every hand): drawn by the views, which ``machu_env``
    # wires in here (``Game.picture = views.svg.board_svg``); the game core imports no view.
    picture: ClassVar[Callable[[Game], str] | None] = None

    def _repr_svg_(self) -> str | None:
        """The board as SVG (``Game.picture``): Jupyter shows it."""
        return None if Game.picture is None else Game.picture(self)

    def __repr__(self) -> str:
        who = f"{self.decision} by {self.current_player}"
        status = f"over ({self.end})" if self.is_over else who
        return f"Game(num_players={self.num_players}, seed={self.seed}, day={self.day}, {status})"


# --- argument checks ---------------------------------------------------------------------------
def _check_hands(hands: object, n: int, scenario: bool = False) -> list[list[int]] | None:
    if hands is None:
        return None
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence) or len(hands) != n:
        raise ValueError(f"hands must be a list of {n} lists of card ids (one per player)")
    out: list[list[int]] = []
    seen: dict[int, int] = {}
    for p, hand in enumerate(hands):
        if isinstance(hand, (str, bytes)) or not isinstance(hand, Sequence):
            raise ValueError(f"hands[{p}] must be a list of card ids, got {hand!r}")
        ids = [card_id(c) for c in hand]
        if len(ids) != 1 and not scenario:
            raise ValueError(f"hands[{p}] holds {len(ids)} cards; every player starts with "
                             "exactly 1 sacrifice card (R2.7)")
        for c in ids:
            if c in seen:
                raise ValueError(f"duplicate card {CARDS[c]!r} in hands (players {seen[c]}, {p})")
            seen[c] = p
        out.append(ids)
    return out


def _check_deck(deck: object) -> list[int] | None:
    if deck is None:
        return None
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise ValueError(f"deck must be a list of card ids, got {deck!r}")
    ids = [card_id(c) for c in deck]
    if len(set(ids)) != len(ids):
        dup = next(CARDS[c] for c in ids if ids.count(c) > 1)
        raise ValueError(f"duplicate card {dup!r} in deck")
    return ids


def _arrange_cards(s: np.ndarray, hands: list[list[int]] | None, top: list[int] | None) -> None:
    """Replace the initial hands and/or stack the top of the deck (the rest keeps the seed's
    shuffled order)."""
    n = int(s[L.NUM_PLAYERS])
    shuffled = [int(s[L.DECK + i]) for i in range(NUM_CARDS)]  # the full shuffled order
    if hands is None:
        dealt = {c: p for p in range(n) for c in _mask_cards(s, p)}
        hands = [[c for c, q in dealt.items() if q == p] for p in range(n)]
    in_hand = {c: p for p, h in enumerate(hands) for c in h}
    top = top or []
    for c in top:
        if c in in_hand:
            raise ValueError(f"card {CARDS[c]!r} cannot be in the deck: it is in player "
                             f"{in_hand[c]}'s hand")
    rest = [c for c in shuffled if c not in in_hand and c not in top]
    order = top + rest
    for p in range(n):
        s[L.player_base(p) + L.P_HAND] = sum(1 << c for c in hands[p])
    s[L.DECK : L.DECK + NUM_CARDS] = 0
    s[L.DECK : L.DECK + len(order)] = order
    s[L.DECK_TOP] = 0
    s[L.DECK_COUNT] = len(order)


def _mask_cards(s: np.ndarray, p: int) -> list[int]:
    hand = int(s[L.player_base(p) + L.P_HAND])
    return [c for c in range(NUM_CARDS) if hand >> c & 1]


def _refresh(game: Game) -> None:
    """Recompute the pending decision after a test or tool edited ``game._s`` directly."""
    game._n = int(advance(game._s, game._buf))
