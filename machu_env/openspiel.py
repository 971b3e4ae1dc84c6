"""The game for OpenSpiel (the ``open_spiel`` extra): importing this module registers
``python_machu_picchu`` with ``pyspiel``.

    import pyspiel
    import machu_env.openspiel  # noqa: F401 (registers the game)

    game = pyspiel.load_game("python_machu_picchu", {"players": 3})

Parameters: ``players`` (2-5, default 2), ``learning_game`` (False), ``reward`` (``win``:
+1 to the winner(s), -1 to the others; ``rank`` or ``score`` as in the other envs,
``machu_env.rewards``) and ``max_decisions`` (5000: a game still running then ends with
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
observation followed by the decision history (up to ``HISTORY_LIMIT`` decisions: who decided
and the visible action id; longer games keep the first ``HISTORY_LIMIT``).
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
(``tests/test_openspiel.py``; ``evaluate_bots`` needs it to answer ``restart_at``).
"""

from __future__ import annotations

import json

import numpy as np

try:
    import pyspiel
except ImportError:  # pragma: no cover - exercised where the extra is missing
    raise ImportError("machu_env.openspiel needs OpenSpiel: pip install "
                      "'machu-env[openspiel]'") from None

from . import layout as L
from .actions import HIDDEN_RETURN, NUM_ACTIONS, notation, parse_action, visible_notation
from .data import CARDS, NUM_CARDS
from .engine.observation import OBS_SIZE
from .game import DEFAULT_MAX_DECISIONS, Game
from .rewards import check_reward_mode, terminal_rewards

GAME_NAME = "python_machu_picchu"
HISTORY_LIMIT = 1000  # decisions kept in the information-state tensor
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
        self.max_decisions = int(params.get("max_decisions", DEFAULT_MAX_DECISIONS))
        if self.max_decisions < 1:
            raise ValueError(f"max_decisions must be >= 1, got {self.max_decisions}")
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
        return MachuPicchuObserver(perfect_recall)


class MachuPicchuState(pyspiel.State):
    """A position: the setup's chance outcomes so far, then an engine ``Game``."""

    def __init__(self, game: MachuPicchuGame) -> None:
        super().__init__(game)
        self.num_players_ = game.players
        self.reward = game.reward
        self.max_decisions = game.max_decisions
        self.learning_game = game.learning_game
        self.start_player: int | None = None
        self.dealt: list[int] = []  # card ids: the initial cards in seat order, then the deck
        self.game: Game | None = None
        self.initial_cards: list[int] = []
        self.hand_changes: list[tuple[int, int, int]] = []  # (decision index, seat, hand mask)

    # --- OpenSpiel's API ---------------------------------------------------------------------
    def current_player(self) -> int:
        if self.game is None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.game.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.game.legal_action_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.start_player is None:
            return [(p, 1.0 / self.num_players_) for p in range(self.num_players_)]
        left = [c for c in range(NUM_CARDS) if c not in self.dealt]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise ValueError("the game is over (finished or truncated at "
                             f"{self.max_decisions} decisions): no action applies")
        if self.game is not None:
            self.game.play(int(action))  # IllegalActionError names the legal actions
            self._note_hands()
            return
        allowed = [c for c, _ in self.chance_outcomes()]
        if isinstance(action, bool) or int(action) != action or int(action) not in allowed:
            what = "start player" if self.start_player is None else "card"
            raise ValueError(f"{action!r} is not a possible chance outcome here (a {what}: one "
                             f"of {allowed})")
        if self.start_player is None:
            self.start_player = int(action)
            return
        self.dealt.append(int(action))
        if len(self.dealt) == NUM_CARDS:
            n = self.num_players_
            hands = [[c] for c in self.dealt[:n]]
            self.game = Game(n, 0, start_player=self.start_player, hands=hands,
                             deck=self.dealt[n:], learning_game=self.learning_game)
            self.initial_cards = self.dealt[:n]
            self._note_hands()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.start_player is None:
                return f"start player {action}"
            return f"deal {CARDS[action]}"
        return notation(int(action))

    def is_terminal(self) -> bool:
        return self.game is not None and (self.game.is_over
                                          or len(self.game.history) >= self.max_decisions)

    def returns(self) -> list[float]:
        if self.game is None or not self.game.is_over:
            return [0.0] * self.num_players_
        return terminal_rewards(self.game.scores(), self.reward)

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
        if self.game is None:
            raise ValueError("resample_from_infostate needs a position after the setup")
        if not (isinstance(player_id, int) and 0 <= player_id < self.num_players_):
            raise ValueError(f"player_id must be a seat in 0..{self.num_players_ - 1}, got "
                             f"{player_id!r}")
        held = 0
        for _k, q, hand in self.hand_changes:
            if q == player_id:
                held |= hand
        unseen = [c for c in range(NUM_CARDS) if not held >> c & 1]
        rng = np.random.default_rng(int(probability_sampler() * 2**62))
        relabel = list(range(NUM_CARDS))
        for c, d in zip(unseen, rng.permutation(unseen), strict=True):
            relabel[c] = int(d)
        clone = MachuPicchuState(self.get_game())
        for outcome in [self.start_player, *(relabel[c] for c in self.dealt)]:
            clone.apply_action(outcome)
        for _by, action in self.game.history:
            if action.startswith("return "):
                action = f"return {CARDS[relabel[CARDS.index(action[7:])]]}"
            clone.apply_action(parse_action(action))
        return clone

    def __str__(self) -> str:
        if self.game is None:
            return f"setup: start player {self.start_player}, dealt " \
                   f"{[CARDS[c] for c in self.dealt]}"
        return repr(self.game)

    # --- helpers -----------------------------------------------------------------------------
    def _note_hands(self) -> None:
        """Record each hand that changed since the last decision (for perfect recall)."""
        k = len(self.game.history)
        for p in range(self.num_players_):
            hand = int(self.game.state[L.player_base(p) + L.P_HAND])
            last = next((h for i, q, h in reversed(self.hand_changes) if q == p), None)
            if hand != last:
                self.hand_changes.append((k, p, hand))

    def hand_cards(self, mask: int) -> list[str]:
        return [CARDS[c] for c in range(NUM_CARDS) if mask >> c & 1]


class MachuPicchuObserver:
    """OpenSpiel's PyObserver: the engine's observation, and with ``perfect_recall`` the
    decision history too (see the module docstring)."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        size = OBS_SIZE + (2 * HISTORY_LIMIT if perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:OBS_SIZE]}
        if perfect_recall:
            self.dict["history"] = self.tensor[OBS_SIZE:].reshape(HISTORY_LIMIT, 2)

    def set_from(self, state: MachuPicchuState, player: int) -> None:
        self.tensor.fill(0)
        if state.game is None:
            return
        self.dict["observation"][:] = state.game.observation(player)
        if self.perfect_recall:
            history = self.dict["history"]
            for i, (by, action) in enumerate(state.game.history[:HISTORY_LIMIT]):
                shown = visible_notation(action, by, player)
                history[i, 0] = by + 1
                history[i, 1] = (HIDDEN_ACTION if shown == HIDDEN_RETURN
                                 else parse_action(action)) + 1

    def string_from(self, state: MachuPicchuState, player: int) -> str:
        if state.game is None:
            return f"p{player} setup"
        if not self.perfect_recall:  # everything the player sees now (Game.view)
            return f"p{player} {json.dumps(state.game.view(player), sort_keys=True)}"
        changes = {k: h for k, q, h in state.hand_changes if q == player}
        parts = [f"p{player}"]
        for i, (by, action) in enumerate([(-1, "")] + state.game.history):
            if i:
                parts.append(f"{by}:{visible_notation(action, by, player)}")
            if i in changes:
                parts.append(f"hand={'+'.join(state.hand_cards(changes[i])) or '-'}")
        return " ".join(parts)


pyspiel.register_game(_GAME_TYPE, MachuPicchuGame)
