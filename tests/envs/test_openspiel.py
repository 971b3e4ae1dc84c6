"""The OpenSpiel game ``python_machu_picchu`` (machu_env.envs.openspiel): OpenSpiel's own random
simulation test, the observer's consistency under re-dealt hidden cards, OpenSpiel's Python
IS-MCTS and random bots through ``evaluate_bots``, and a game played through OpenSpiel equal to
the same game played through ``Game``. Runs where the ``openspiel`` extra is installed."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import machu_env.envs.openspiel  # noqa: E402,F401 (registers the game)
from machu_env import Game  # noqa: E402
from machu_env.envs.openspiel import NUM_CARDS  # noqa: E402


def _play(state, rng, decisions=None):
    """Random chance outcomes and random legal actions, up to ``decisions`` decisions."""
    made = 0
    while not state.is_terminal() and (state.is_chance_node() or decisions is None
                                       or made < decisions):
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            made += 1
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_openspiels_random_simulation_test_passes(players):
    game = pyspiel.load_game("python_machu_picchu", {"players": players})
    assert game.num_players() == players and game.num_distinct_actions() == 157
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_a_game_through_openspiel_equals_the_same_game_through_game():
    game = pyspiel.load_game("python_machu_picchu", {"players": 3, "reward": "rank"})
    state = _play(game.new_initial_state(), np.random.default_rng(4))
    history = state.history()
    start, cards, actions = history[0], history[1:1 + NUM_CARDS], history[1 + NUM_CARDS:]
    direct = Game(3, 12345, start_player=start, hands=[[c] for c in cards[:3]], deck=cards[3:])
    for a in actions:
        direct.play(a)
    assert direct.is_over and np.array_equal(direct.state, state.game.state)
    from machu_env.core.reward_modes import terminal_rewards

    assert state.returns() == terminal_rewards(direct.scores(), "rank")
    # serialize / deserialize through OpenSpiel restores the very same position
    again = game.deserialize_state(state.serialize())
    assert np.array_equal(again.game.state, state.game.state)


def test_the_setup_is_explicit_chance():
    game = pyspiel.load_game("python_machu_picchu", {"players": 2})
    state = game.new_initial_state()
    assert state.is_chance_node() and [a for a, _ in state.chance_outcomes()] == [0, 1]
    state.apply_action(1)
    for k in range(NUM_CARDS):
        outcomes = state.chance_outcomes()
        assert len(outcomes) == NUM_CARDS - k and abs(sum(p for _, p in outcomes) - 1) < 1e-9
        state.apply_action(outcomes[-1][0])
    assert not state.is_chance_node() and state.game.view(None)["start_player"] == 1


def test_the_observer_sees_what_its_player_may_know_and_resampling_keeps_it():
    game = pyspiel.load_game("python_machu_picchu", {"players": 3})
    rng = np.random.default_rng(8)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others_changed = 0
    for decisions in (0, 25, 60, 110):
        state = _play(game.new_initial_state(), rng, decisions)
        if state.is_terminal():
            continue
        p = state.current_player()
        assert np.array_equal(state.observation_tensor(p), state.game.observation(p))
        info = (state.information_state_string(p), state.information_state_tensor(p),
                state.observation_string(p), state.observation_tensor(p))
        for _ in range(5):
            world = state.resample_from_infostate(p, sampler)
            assert (world.information_state_string(p), world.information_state_tensor(p),
                    world.observation_string(p), world.observation_tensor(p)) == info
            assert world.legal_actions() == state.legal_actions()
            others_changed += any(world.information_state_string(q)
                                  != state.information_state_string(q)
                                  for q in range(3) if q != p)
    assert others_changed > 0  # the re-deal does change what the others hold
    # another player's summit return is hidden in the information state
    text = " ".join(state.information_state_string(q) for q in range(3))
    assert "return a card" in text or "return " not in text


def test_python_ismcts_and_random_bots_play_through_evaluate_bots():
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    class ISMCTS(ismcts.ISMCTSBot):
        def restart_at(self, state):  # evaluate_bots asks every bot; this one keeps no state
            self.reset()

    game = pyspiel.load_game("python_machu_picchu", {"players": 2})
    rs = np.random.RandomState(0)
    search = ISMCTS(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
                              max_simulations=4, random_state=rs)
    bots = [search, pyspiel.make_uniform_random_bot(1, 7)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
    assert sorted(returns) in ([-1.0, 1.0], [1.0, 1.0])


def test_bad_parameters_are_refused_with_what_is_allowed():
    with pytest.raises(Exception, match="players must be 2 to 5"):
        pyspiel.load_game("python_machu_picchu", {"players": 6})
    with pytest.raises(Exception, match="reward must be one of"):
        pyspiel.load_game("python_machu_picchu", {"reward": "gold"})


# --- impossible input refused, resampling keeps what the player knows -----------------
def test_impossible_chance_outcomes_and_moves_after_the_end_are_refused():
    game = pyspiel.load_game("python_machu_picchu", {"players": 2, "max_decisions": 12})
    state = game.new_initial_state()
    for bad in (99, -3, 2):
        with pytest.raises(ValueError, match="not a possible chance outcome.*start player"):
            state.apply_action(bad)
    state.apply_action(0)
    state.apply_action(5)
    for bad in (5, -5, 1000):  # a card dealt twice, no such card
        with pytest.raises(ValueError, match="not a possible chance outcome.*card"):
            state.apply_action(bad)
    assert state.history() == [0, 5]  # nothing changed
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0] if not state.is_chance_node()
                           else state.chance_outcomes()[0][0])
    assert len(state.game.history) == 12  # truncated
    with pytest.raises(ValueError, match="the game is over"):
        state.apply_action(0)
    for text in ("garbage", "history=x:1", "history=-1:0,-1:3,-1:3", "history=-1:0,-1:", 5):
        with pytest.raises(ValueError, match="serialized"):
            game.deserialize_state(text)
    again = game.deserialize_state(state.serialize())
    assert again.history() == state.history()


def _to_first_own_return(game, p, rng):
    """A position after player p returned a card at a summit (R10.2), p to decide."""
    for _attempt in range(200):
        state = _play(game.new_initial_state(), rng, 0)
        while not state.is_terminal():
            mine = [a for q, a in state.game.history if q == p and a.startswith("return ")]
            if mine and state.current_player() == p:
                return state, mine
            state.apply_action(int(rng.choice(state.legal_actions())))
    raise AssertionError("no summit return found")


def test_resampling_keeps_the_cards_the_player_returned_and_is_a_real_game():
    from machu_env.rules import layout as L
    from machu_env.rules.data import CARDS

    game = pyspiel.load_game("python_machu_picchu", {"players": 3})
    rng = np.random.default_rng(3)
    state, returned = _to_first_own_return(game, 0, rng)
    deck = [int(x) for x in state.game.state[L.DECK:L.DECK + NUM_CARDS]]
    top, count = int(state.game.state[L.DECK_TOP]), int(state.game.state[L.DECK_COUNT])
    order = [deck[(top + i) % NUM_CARDS] for i in range(count)]
    mine = {CARDS.index(a[7:]) for a in returned} & set(order)
    assert mine  # p's returned cards are in the deck, at places p knows
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for _ in range(100):
        world = state.resample_from_infostate(0, sampler)
        w = world.game.state
        world_order = [int(w[L.DECK + (int(w[L.DECK_TOP]) + i) % NUM_CARDS])
                       for i in range(int(w[L.DECK_COUNT]))]
        assert all(world_order[order.index(c)] == c for c in mine)  # still at the bottom
        assert world.information_state_string(0) == state.information_state_string(0)
        replayed = game.new_initial_state()  # the world is a real game: its own history
        for a in world.history():            # replays to every player's same view
            replayed.apply_action(a)
        for q in range(3):
            assert (replayed.information_state_string(q)
                    == world.information_state_string(q))
        changed += world_order != order
    assert changed > 90


def test_the_game_type_says_zero_sum_exactly_for_the_score_reward():
    """``score`` (own score minus the others' mean) is zero-sum; ``win`` and
    ``rank`` are not (a shared win is +1 for each winner)."""
    import random

    for reward, utility in (("win", pyspiel.GameType.Utility.GENERAL_SUM),
                            ("rank", pyspiel.GameType.Utility.GENERAL_SUM),
                            ("score", pyspiel.GameType.Utility.ZERO_SUM)):
        game = pyspiel.load_game("python_machu_picchu", {"reward": reward, "players": 3})
        assert game.get_type().utility == utility
    rng = random.Random(0)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert abs(sum(state.returns())) < 1e-9 and game.utility_sum() == 0.0


def test_clones_are_independent_at_every_stage():
    """``clone`` goes through ``Game.clone``; a clone and its original then
    share nothing, in the setup (the deal) as after it."""
    game = pyspiel.load_game("python_machu_picchu", {"players": 3})
    rng = np.random.default_rng(2)
    for chance_steps, decisions in ((1, 0), (10, 0), (None, 0), (None, 40)):
        state = game.new_initial_state()
        if chance_steps is None:
            _play(state, rng, decisions)
        else:
            for _ in range(chance_steps):
                state.apply_action(state.chance_outcomes()[0][0])
        before = (state.serialize(), state.information_state_string(0),
                  state.information_state_tensor(0))
        twin = state.clone()
        assert twin.serialize() == before[0] and twin.history() == state.history()
        _play(twin, rng)  # play the clone to its end
        assert twin.is_terminal()
        assert (state.serialize(), state.information_state_string(0),
                state.information_state_tensor(0)) == before
        ended = twin.serialize()
        _play(state, rng, 5)  # and the original on, without touching the clone
        assert twin.serialize() == ended


def test_the_information_state_tensor_holds_the_whole_history():
    """Every decision (seat + 1, visible action + 1), another player's
    summit return as HIDDEN_ACTION + 1; as many rows as ``max_decisions``."""
    from machu_env.engine.observation import OBS_SIZE
    from machu_env.envs.openspiel import HIDDEN_ACTION
    from machu_env.rules.actions import ACTION_IDS

    game = pyspiel.load_game("python_machu_picchu", {"players": 3, "max_decisions": 2000})
    assert game.information_state_tensor_shape() == [OBS_SIZE + 2 * 2000]
    state, _ = _to_first_own_return(game, 0, np.random.default_rng(3))
    _play(state, np.random.default_rng(5), 3)
    history = state.game.history
    assert any(a.startswith("return ") for q, a in history if q != 1)
    t = np.array(state.information_state_tensor(1))
    assert np.array_equal(t[:OBS_SIZE], state.game.observation(1))
    rows = t[OBS_SIZE:].reshape(2000, 2)
    expected = [[q + 1, (HIDDEN_ACTION if q != 1 and a.startswith("return ")
                         else ACTION_IDS[a]) + 1] for q, a in history]
    assert rows[:len(history)].tolist() == expected and not rows[len(history):].any()
