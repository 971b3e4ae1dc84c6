"""The game for OpenSpiel (the ``open_spiel`` extra): importing this module registers
``python_machu_picchu`` with ``pyspiel``.

    import pyspiel
    import machu_env.envs.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_machu_picchu", {"players": 3})

Parameters: ``players`` (2-5, default 2), ``learning_game`` (False), ``reward`` (``win``:
+1 to the winner(s), -1 to the others; ``rank`` or ``score`` as in the other envs,
``machu_env.core.reward_modes``) and ``max_decisions`` (5000: a game still running then ends with
returns 0, as the envs truncate; nothing in the rules forces a game to end).

A thin adapter over ``machu_env.Game``. The setup is explicit chance: first the start player
(one outcome per seat), then the cards one at a time: each player's initial card in seat order,
then the deck from top to bottom (outcome = card id, uniform over the cards left). After the
setup the game has no randomness, and the players decide with the engine's action ids
(``NUM_ACTIONS`` distinct actions, notation strings as ``action_to_string``).

Observations (``make_py_observer``): ``observation_tensor`` is the engine's observation of the
player (``Game.observation``); the information state has perfect recall: its string lists the
player's initial card, every decision as that player may see it (another player's summit
return is ``return a card``, R10.2) and the player's hand whenever it changed; its tensor is the
observation followed by the whole decision history (``max_decisions`` rows of (seat + 1,
visible action id + 1), zero after the last decision; ``HIDDEN_ACTION`` + 1 for another
player's summit return), both written by compiled code.
Speed: a state is one object (``_Position``) that OpenSpiel's ``clone`` copies through
``Game.clone``; the player to move, the legal actions and the end are kept up to date after
each decision, so OpenSpiel's many calls to them cost one attribute read.
``resample_from_infostate`` re-deals the cards the player has never held (other hands, deck
order, others' hidden summit returns) by relabelling them through the whole game and replaying
it, so the cards it put at the bottom of the deck stay there (R10.2) and every player's
information state is consistent; OpenSpiel's IS-MCTS can determinise with it.
Impossible chance outcomes (a sixth start player, a card dealt twice) and actions after the end
are refused with ``ValueError`` naming what is allowed.
``serialize``/``deserialize_state`` work through the action history: the state is replayed
from it, and the pickled ``__dict__`` that OpenSpiel's default writes beside it is never read
(loading a pickle can run code).

What does not apply: AlphaZero (OpenSpiel's is for 2-player zero-sum perfect-information
games), CFR and other tabular solvers (the game tree is far too large), and the C++
``pyspiel.ISMCTSBot`` (with open_spiel 2.0.2 its first ``step`` on this Python game ended the
process with a segmentation fault); OpenSpiel's Python ``ISMCTSBot`` works
(``tests/envs/test_openspiel.py``; ``evaluate_bots`` needs it to answer ``restart_at``).
"""

from __future__ import annotations

import json
from array import array

import numpy as np
from numba import njit

from machu_env._extras import install_hint

try:
    import pyspiel
except ImportError:  # pragma: no cover - exercised where the extra is missing
    raise ImportError("machu_env.envs.openspiel needs OpenSpiel: "
                      + install_hint("openspiel")) from None

from machu_env.core.checks import check_decisions
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.reward_modes import check_reward_mode, terminal_rewards
from machu_env.engine.observation import OBS_SIZE, encode
from machu_env.rules import layout as L
from machu_env.rules.actions import A_RETURN, NUM_ACTIONS, notation, visible_notation
from machu_env.rules.data import CARDS, NUM_CARDS

GAME_NAME = "python_machu_picchu"
HIDDEN_ACTION = NUM_ACTIONS  # another player's summit return, in the tensor


def _game_type(utility=pyspiel.GameType.Utility.GENERAL_SUM) -> pyspiel.GameType:
    """The game's type; ``utility``: ZERO_SUM for the ``score`` reward (a player's score minus
    the others' mean sums to 0), GENERAL_SUM for ``win`` and ``rank`` (a shared win gives +1 to
    each winner; tied ranks share the better one)."""
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="The Princes of Machu Picchu (machu-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=5,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2, "learning_game": False, "reward": "win",
                                 "max_decisions": DEFAULT_MAX_DECISIONS},
    )


_GAME_TYPE = _game_type()


class MachuPicchuGame(pyspiel.Game):
    """``python_machu_picchu`` (see the module docstring)."""

    def __init__(self, params=None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 2))
        if not 2 <= players <= 5:
            raise ValueError(f"players must be 2 to 5, got {players}")
        self.reward = str(params.get("reward", "win"))
        check_reward_mode(self.reward)
        # bounded: the information-state tensor holds 2 floats per decision
        self.max_decisions = check_decisions("max_decisions",
                                             params.get("max_decisions", DEFAULT_MAX_DECISIONS))
        self.learning_game = bool(params.get("learning_game", False))
        zero_sum = self.reward == "score"
        bound = 4.0 if zero_sum else 1.0
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_CARDS,
            num_players=players, min_utility=-bound, max_utility=bound,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=1 + NUM_CARDS + self.max_decisions)
        super().__init__(_game_type(pyspiel.GameType.Utility.ZERO_SUM) if zero_sum
                         else _GAME_TYPE, info, params)
        self.players = players

    def new_initial_state(self) -> MachuPicchuState:
        return MachuPicchuState(self)

    def deserialize_state(self, text: str) -> MachuPicchuState:
        """The state ``serialize()`` wrote, rebuilt by replaying its first line
        (``history=<player>:<action>,...``); ValueError naming what is wrong for anything else
        (not OpenSpiel's internal check). The other lines are ignored: OpenSpiel's default for
        Python games would unpickle its ``__dict__=`` line, and unpickling can run code."""
        if not isinstance(text, str) or not text.startswith("history="):
            raise ValueError(f"not a serialized {GAME_NAME} state (it starts with 'history=' "
                             f"and lists <player>:<action> pairs); got {str(text)[:60]!r}")
        state = self.new_initial_state()
        body = text.split("\n", 1)[0][len("history="):].strip()
        for k, item in enumerate(body.split(",") if body else []):
            player, sep, action = item.partition(":")
            if not sep or not action.strip().isdigit() or player.strip().lstrip("-") \
                    and not player.strip().lstrip("-").isdigit():
                raise ValueError(f"serialized state, item {k}: {item[:40]!r} is not "
                                 "<player>:<action id>")
            try:
                state.apply_action(int(action))
            except ValueError as e:
                raise ValueError(f"serialized state, item {k}: {e}") from None
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> MachuPicchuObserver:
        """OpenSpiel's observer: with ``perfect_recall`` the information state, else the
        observation (``MachuPicchuObserver``)."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return MachuPicchuObserver(perfect_recall, self.max_decisions)


class _Position:
    """Everything a state holds, in one object: OpenSpiel clones a Python state by making a
    fresh one and deep-copying each attribute, so a state has just this one, whose
    ``__deepcopy__`` copies the engine game with ``Game.clone`` and shares what is immutable."""

    __slots__ = ("players", "reward", "max_decisions", "learning_game", "start_player",
                 "dealt", "left", "game", "actions", "hand_log", "hands", "current",
                 "terminal", "legal")

    def __deepcopy__(self, memo) -> _Position:
        c = _Position.__new__(_Position)
        for name in _Position.__slots__:  # ints, strings, tuples, lists replaced (not mutated)
            setattr(c, name, getattr(self, name))
        if self.game is not None:
            c.game = self.game.clone()
        c.actions, c.hand_log = self.actions[:], self.hand_log.copy()
        return c


_CHANCE, _TERMINAL = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)
_HAND_INDEX = np.array([L.player_base(p) + L.P_HAND for p in range(5)])


class MachuPicchuState(pyspiel.State):
    """A position: the setup's chance outcomes so far, then an engine ``Game``."""

    def __init__(self, game: MachuPicchuGame) -> None:
        super().__init__(game)
        p = _Position.__new__(_Position)
        p.players, p.reward = game.players, game.reward
        p.max_decisions, p.learning_game = game.max_decisions, game.learning_game
        p.start_player, p.dealt, p.left = None, (), tuple(range(NUM_CARDS))
        p.game, p.actions, p.hand_log = None, array("i"), []  # actions: (seat, id) pairs
        p.hands, p.current, p.terminal, p.legal = (-1,) * game.players, _CHANCE, False, []
        self._p = p

    @property
    def game(self) -> Game | None:
        """The engine game after the setup (None before)."""
        return self._p.game

    @property
    def start_player(self) -> int | None:
        return self._p.start_player

    @property
    def dealt(self) -> tuple[int, ...]:
        """The card ids dealt so far: the initial cards in seat order, then the deck."""
        return self._p.dealt

    @property
    def hand_changes(self) -> list[tuple[int, int, int]]:
        """(decision index, seat, hand mask) for every hand that changed (perfect recall)."""
        return self._p.hand_log

    # --- OpenSpiel's API ---------------------------------------------------------------------
    def current_player(self) -> int:
        return self._p.current

    def _legal_actions(self, player: int) -> list[int]:
        return self._p.legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = self._p
        if p.start_player is None:
            return [(q, 1.0 / p.players) for q in range(p.players)]
        share = 1.0 / len(p.left)
        return [(c, share) for c in p.left]

    def _apply_action(self, action: int) -> None:
        p = self._p
        if p.terminal:
            raise ValueError("the game is over (finished or truncated at "
                             f"{p.max_decisions} decisions): no action applies")
        game = p.game
        if game is not None:
            if action not in p.legal:
                game.play(int(action))  # raises IllegalActionError naming the legal actions
            p.actions.extend((game._play_id(action), action))
            self._refresh()
            return
        allowed = [c for c, _ in self.chance_outcomes()]
        if isinstance(action, bool) or int(action) != action or int(action) not in allowed:
            what = "start player" if p.start_player is None else "card"
            raise ValueError(f"{action!r} is not a possible chance outcome here (a {what}: one "
                             f"of {allowed})")
        if p.start_player is None:
            p.start_player = int(action)
            return
        p.dealt += (int(action),)
        p.left = tuple(c for c in p.left if c != action)
        if not p.left:
            n = p.players
            p.game = Game(n, 0, start_player=p.start_player, hands=[[c] for c in p.dealt[:n]],
                          deck=p.dealt[n:], learning_game=p.learning_game)
            self._refresh()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._p.start_player is None:
                return f"start player {action}"
            return f"deal {CARDS[action]}"
        return notation(int(action))

    def is_terminal(self) -> bool:
        return self._p.terminal

    def returns(self) -> list[float]:
        game = self._p.game
        if game is None or not game.is_over:
            return [0.0] * self._p.players
        return terminal_rewards(game.scores(), self._p.reward)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> MachuPicchuState:
        """A state from ``player_id``'s information set: the cards it has never held are
        relabelled by a random permutation (from ``probability_sampler``, a callable returning
        a number in [0, 1)) through the whole game, which is then replayed.

        So the other hands, the deck order and the other players' hidden summit returns are
        re-dealt, while every card the player has held stays where it is, at the bottom of the
        deck included (R10.2), and the resampled game is a real game: its history is legal and
        every player's information state is that of a game that could have been played.
        (Approximation: a card the player returned that another player has since drawn stays
        in that player's hand or in the returns where it truly is, which the player may not
        know; it can happen only once the deck has been drawn through.)"""
        p = self._p
        if p.game is None:
            raise ValueError("resample_from_infostate needs a position after the setup")
        if not (isinstance(player_id, int) and 0 <= player_id < p.players):
            raise ValueError(f"player_id must be a seat in 0..{p.players - 1}, got "
                             f"{player_id!r}")
        held = 0
        for _k, q, hand in p.hand_log:
            if q == player_id:
                held |= hand
        unseen = [c for c in range(NUM_CARDS) if not held >> c & 1]
        rng = np.random.default_rng(int(probability_sampler() * 2**62))
        relabel = list(range(NUM_CARDS))
        for c, d in zip(unseen, rng.permutation(unseen), strict=True):
            relabel[c] = int(d)
        clone = MachuPicchuState(self.get_game())
        for outcome in [p.start_player, *(relabel[c] for c in p.dealt)]:
            clone.apply_action(outcome)
        for by, a in zip(p.actions[::2], p.actions[1::2], strict=True):
            if by != player_id and A_RETURN <= a < A_RETURN + NUM_CARDS:
                a = A_RETURN + relabel[a - A_RETURN]
            clone.apply_action(a)
        return clone

    def __str__(self) -> str:
        p = self._p
        if p.game is None:
            return f"setup: start player {p.start_player}, dealt " \
                   f"{[CARDS[c] for c in p.dealt]}"
        return repr(p.game)

    # --- helpers -----------------------------------------------------------------------------
    def _refresh(self) -> None:
        """After a decision: note the hands that changed (for perfect recall), the player to
        move, whether the game is over and the legal actions."""
        p, game = self._p, self._p.game
        hands = tuple(game._s[_HAND_INDEX[:p.players]].tolist())
        if hands != p.hands:
            k = len(game.history)
            p.hand_log.extend((k, q, h) for q, (h, old) in enumerate(zip(hands, p.hands,
                                                                           strict=True))
                              if h != old)
            p.hands = hands
        if game._s[L.GAME_OVER] or len(game.history) >= p.max_decisions:
            p.terminal, p.current, p.legal = True, _TERMINAL, []
        else:
            p.current, p.legal = int(game._s[L.DECIDER]), game._buf[:game._n].tolist()

    def hand_cards(self, mask: int) -> list[str]:
        return [CARDS[c] for c in range(NUM_CARDS) if mask >> c & 1]


@njit(cache=True)
def _write_history(actions: np.ndarray, player: int, out: np.ndarray) -> None:
    """``out[i]`` = (seat + 1, action id + 1) of decision ``i`` as ``player`` sees it (another
    seat's summit return is ``HIDDEN_ACTION``); the rows after the last decision are 0."""
    out[:] = 0.0
    for i in range(min(actions.size // 2, out.shape[0])):
        by, a = actions[2 * i], actions[2 * i + 1]
        out[i, 0] = by + 1
        hidden = by != player and A_RETURN <= a < A_RETURN + NUM_CARDS
        out[i, 1] = (HIDDEN_ACTION if hidden else a) + 1


class MachuPicchuObserver:
    """OpenSpiel's PyObserver: the engine's observation, and with ``perfect_recall`` the
    whole decision history too (see the module docstring); both written by compiled code."""

    def __init__(self, perfect_recall: bool, history_limit: int) -> None:
        self.perfect_recall = perfect_recall
        size = OBS_SIZE + (2 * history_limit if perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if perfect_recall:
            self.dict["history"] = self.tensor[OBS_SIZE:].reshape(history_limit, 2)

    def set_from(self, state: MachuPicchuState, player: int) -> None:
        p = state._p
        if p.game is None:
            self.tensor.fill(0)
            return
        encode(p.game._s, player, self.dict["observation"])
        if self.perfect_recall:
            _write_history(np.frombuffer(p.actions, np.int32), player, self.dict["history"])

    def string_from(self, state: MachuPicchuState, player: int) -> str:
        p = state._p
        if p.game is None:
            return f"p{player} setup"
        if not self.perfect_recall:  # everything the player sees now (Game.view)
            return f"p{player} {json.dumps(p.game.view(player), sort_keys=True)}"
        changes = {k: h for k, q, h in p.hand_log if q == player}
        parts = [f"p{player}"]
        for i, (by, action) in enumerate([(-1, "")] + p.game.history):
            if i:
                parts.append(f"{by}:{visible_notation(action, by, player)}")
            if i in changes:
                parts.append(f"hand={'+'.join(state.hand_cards(changes[i])) or '-'}")
        return " ".join(parts)


pyspiel.register_game(_GAME_TYPE, MachuPicchuGame)
