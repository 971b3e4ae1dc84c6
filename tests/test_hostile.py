"""A property-based hostile-input suite over every layer (issue #25): hypothesis throws
arbitrary values at ``Game``, the batch engine, the envs, the VecEnvs, records, agent files,
the CLI, the web API, OpenSpiel and RLlib. The promise checked everywhere: a bad input gets
the layer's clear error (``ValueError`` and its kinds, a one-line CLI error with exit 2, an
HTTP 4xx) and changes nothing; nothing crashes with another exception, a 5xx or a traceback.

A new surface gets its strategy here from its first commit."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from machu_env import Game, MachuPicchuGymEnv
from machu_env.batch import BatchEngine
from machu_env.errors import IllegalActionError, ResetNeeded
from machu_env.records import game_record, replay

# MACHU_HOSTILE_EXAMPLES=1000 for a longer hunt (the default run: 60 examples per test)
SETTINGS = settings(max_examples=int(os.environ.get("MACHU_HOSTILE_EXAMPLES", "60")),
                    deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# anything JSON can carry, and a few things it cannot
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=30), st.integers(-2**80, 2**80))
json_values = st.recursive(scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=10), kids, max_size=4)),
    max_leaves=12)
actions = st.one_of(json_values, st.sampled_from([
    -1, 157, 2**31, 2**63, 1.0, 0.5, True, "", "stay ", "move", "return a card",
    np.int64(2**40), np.float32(1.0), np.array([1, 2]), b"stay", object()]))


def _game(seed: int = 0, decisions: int = 7) -> Game:
    game = Game(3, seed=seed)
    for _ in range(decisions):
        game.play(game.legal_action_ids()[-1])
    return game


# --- Game ----------------------------------------------------------------------------------------
@SETTINGS
@given(n=json_values, seed=json_values, learning=json_values)
def test_game_options(n, seed, learning):
    try:
        game = Game(n, seed=seed, learning_game=learning)
    except ValueError as e:
        assert str(e)
    else:
        assert game.num_players in range(2, 6)


@SETTINGS
@given(action=actions)
def test_game_play(action):
    game = _game()
    before, history = game.state.copy(), list(game.history)
    legal = set(game.legal_action_ids()) | set(game.legal_actions())
    try:
        game.play(action)
    except IllegalActionError as e:
        assert "Legal" in str(e) or "legal" in str(e)
        assert np.array_equal(game.state, before) and game.history == history
    else:
        assert isinstance(action, int | str | np.integer) and (
            action in legal or str(action).strip().lower() in legal)


# --- batch engine and VecEnvs --------------------------------------------------------------------
arrays = st.one_of(
    st.lists(st.integers(-2**40, 2**40), min_size=0, max_size=6).map(np.array),
    st.lists(st.floats(), min_size=4, max_size=4).map(np.array),
    st.lists(st.text(max_size=3), min_size=4, max_size=4).map(np.array),
    json_values)


@SETTINGS
@given(bad=arrays)
def test_batch_engine_step(bad):
    be = BatchEngine(4, 3, seed=0)
    before = be.states.copy()
    legal = be.legal_ids()[:, 0]
    if isinstance(bad, np.ndarray) and bad.shape == (4,) and bad.dtype.kind in "iu" \
            and all(bad[i] in be.legal_ids()[i] for i in range(4)):
        return  # (a legal step: not a hostile one)
    with pytest.raises(ValueError):
        be.step(bad)
    assert np.array_equal(be.states, before)
    be.step(legal)


def _all_legal(actions, masks: np.ndarray) -> bool:
    """Whether ``actions`` is a legal int array for every row of ``masks``."""
    n = masks.shape[0]
    return (isinstance(actions, np.ndarray) and actions.shape == (n,)
            and actions.dtype.kind in "iu"
            and all(0 <= actions[i] < masks.shape[1] and masks[i, actions[i]] for i in range(n)))


@SETTINGS
@given(bad=arrays)
def test_vecenv_step(bad):
    pytest.importorskip("stable_baselines3")
    from machu_env.sb3 import MachuPicchuVecEnv

    env = MachuPicchuVecEnv(4, 2, seed=1)
    env.reset()
    before = env.states.copy()
    masks = env.action_masks()
    if _all_legal(bad, masks):
        return  # (a legal step: not a hostile one)
    with pytest.raises(ValueError):
        env.step(bad)
    assert np.array_equal(env.states, before)


@SETTINGS
@given(options=st.dictionaries(st.sampled_from(["num_envs", "num_players", "seed",
                                                "learner_seat", "reward", "learning_game",
                                                "max_decisions", "colour"]),
                               json_values, max_size=3))
def test_vecenv_options(options):
    pytest.importorskip("stable_baselines3")
    from machu_env.sb3 import MachuPicchuVecEnv

    options.setdefault("num_envs", 2)
    try:
        MachuPicchuVecEnv(**options)
    except (ValueError, TypeError) as e:  # TypeError: an unknown keyword, named by Python
        assert str(e)


@SETTINGS
@given(bad=arrays, options=st.dictionaries(
    st.sampled_from(["num_envs", "num_players", "opponents", "learner_seat", "reward",
                     "learning_game", "max_decisions", "seed", "colour"]), json_values,
    max_size=3))
def test_gymnasium_vector_env(bad, options):
    """The Gymnasium VectorEnv: hostile actions change no game; hostile options are refused
    with a message (TypeError: an unknown keyword, named by Python)."""
    import gymnasium as gym

    from machu_env.vector import MachuPicchuVectorEnv

    try:
        gym.make_vec("MachuPicchu-v0", **{"num_envs": 2, **options})
    except (ValueError, TypeError) as e:
        assert str(e)
    env = MachuPicchuVectorEnv(4, 2, seed=1)
    env.reset()
    before = env._core.states.copy()
    masks = env.action_masks()
    if _all_legal(bad, masks):
        return  # (a legal step: not a hostile one)
    with pytest.raises(ValueError):
        env.step(bad)
    assert np.array_equal(env._core.states, before)


# --- envs ----------------------------------------------------------------------------------------
@SETTINGS
@given(action=actions)
def test_gym_env_step(action):
    env = MachuPicchuGymEnv(2, learner_seat=0, illegal_action="raise")
    env.reset(seed=3)
    before = env.game.state.copy()
    try:
        env.step(action)
    except IllegalActionError:
        assert np.array_equal(env.game.state, before)


@SETTINGS
@given(action=actions)
def test_pettingzoo_step(action):
    import machu_env

    env = machu_env.raw_env(num_players=2)
    env.reset(seed=3)
    before = env.game.state.copy()
    try:
        env.step(action)
    except IllegalActionError:
        assert np.array_equal(env.game.state, before)


# --- records and agent files ---------------------------------------------------------------------
def _record() -> dict:
    return game_record(_game(1, 12))


@SETTINGS
@given(key=st.sampled_from(["format", "version", "options", "actions", "result", "agents"]),
       value=json_values, step=st.integers(0, 11), field=st.sampled_from(["player", "action"]))
def test_record_fields(key, value, step, field):
    record = _record()
    for target in ({**record, key: value},
                   {**record, "actions": [dict(a, **({field: value} if k == step else {}))
                                          for k, a in enumerate(record["actions"])]}):
        try:
            game = replay(json.loads(json.dumps(target)) if _jsonable(target) else target)
        except ValueError as e:
            assert str(e)
        else:
            assert len(game.history) <= 12


def _jsonable(value) -> bool:
    try:
        json.dumps(value, allow_nan=False)
        return True
    except (ValueError, TypeError):
        return False


@SETTINGS
@given(data=st.binary(max_size=300), keep=st.integers(0, 2000))
def test_agent_file_bytes(data, keep):
    pytest.importorskip("torch")
    from machu_env.agents import policy_file, shipped_policies

    real = shipped_policies()["ppo-2p"].read_bytes()
    for blob in (data, real[:keep] + data, data + real[keep:]):
        if blob == real:
            continue
        with pytest.raises(ValueError):
            policy_file.parse(blob, "fuzzed.safetensors")


# --- CLI -----------------------------------------------------------------------------------------
@SETTINGS
@given(content=st.one_of(json_values.map(json.dumps), st.text(max_size=200)))
def test_cli_replay_of_any_file(content, tmp_path_factory, capsys):
    from machu_env.cli import main

    folder = tmp_path_factory.mktemp("r")
    (folder / "r.json").write_text(content)
    code = main(["replay", str(folder / "r.json")])
    err = capsys.readouterr().err
    assert code in (0, 2)
    if code == 2:
        assert err.startswith("machu replay: error:") and err.count("\n") == 1


@SETTINGS
@given(agents=st.text(max_size=40), games=st.sampled_from(["1", "0", "-1", "x", "1e3", "²"]),
       seconds=st.sampled_from(["1", "0", "inf", "nan", "-1", "1e309", "x"]))
def test_cli_tournament_options(agents, games, seconds, tmp_path_factory, capsys):
    from machu_env.cli import main

    out = tmp_path_factory.mktemp("t")
    code = main(["tournament", "--agents", agents, "--players", "2", "--games", games,
                 "--mcts-seconds", seconds, "--mcts-iterations", "2", "--workers", "1",
                 "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert code in (0, 2)
    if code == 2:
        assert captured.err.startswith("machu") and captured.err.count("\n") == 1


@SETTINGS
@given(typed=st.lists(st.text(max_size=8), max_size=6))
def test_cli_play_prompt(typed, tmp_path_factory):
    from typer.testing import CliRunner

    from machu_env.cli import app

    record = tmp_path_factory.mktemp("p") / "game.json"
    r = CliRunner().invoke(app, ["play", "--players", "2", "--opponents", "random", "--record",
                                 str(record)], input="\n".join([*typed, "q"]) + "\n")
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert replay(json.loads(record.read_text())).num_players == 2


# --- web API -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def web():
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from machu_env.web import Limits, create_app

    PATIENT = Limits(agent_seconds=600)

    with TestClient(create_app(limits=PATIENT), base_url="http://127.0.0.1:8000") as client:
        gid = client.post("/api/games", json={"opponents": "random", "seed": 2}).json()["id"]
        yield client, gid


@SETTINGS
@given(body=json_values, raw=st.binary(max_size=60), which=st.integers(0, 3))
def test_web_api_bodies(web, body, raw, which):
    client, gid = web
    before = client.get(f"/api/games/{gid}").json()
    path = ["/api/games", f"/api/games/{gid}/play", "/api/replay", f"/api/games/{gid}/play"][which]
    for kw in ({"json": body} if _jsonable(body) else {"content": repr(body)},
               {"content": raw, "headers": {"content-type": "application/json"}},
               {"content": raw, "headers": {"content-type": "text/plain"}}):
        r = client.post(path, **kw)
        assert r.status_code < 500, (path, kw, r.text)
        if r.status_code >= 400:
            assert r.json()["error"] if r.headers["content-type"].startswith(
                "application/json") else r.text
    after = client.get(f"/api/games/{gid}").json()
    if which in (1, 3) and after["history"] != before["history"]:  # a legal move was played
        assert len(after["history"]) > len(before["history"])


@SETTINGS
@given(game_id=st.text(max_size=30), host=st.text(max_size=20))
def test_web_api_paths_and_hosts(web, game_id, host):
    from urllib.parse import quote

    client, _ = web
    r = client.get(f"/api/games/{quote(game_id, safe='')}")
    assert r.status_code < 500
    try:
        r = client.get("/api/agents", headers={"host": host})
    except Exception:  # httpx refuses a header it cannot send: nothing reached the app
        return
    assert r.status_code in (200, 400)


# --- OpenSpiel and RLlib -------------------------------------------------------------------------
@SETTINGS
@given(action=st.integers(-2**31 + 2, 2**31 - 1), text=st.text(max_size=40))
def test_openspiel_actions_and_serialized_states(action, text):
    pyspiel = pytest.importorskip("pyspiel")
    import machu_env.openspiel  # noqa: F401

    game = pyspiel.load_game("python_machu_picchu", {"players": 2})
    state = game.new_initial_state()
    for outcome in (1, *range(28)):
        state.apply_action(outcome) if action != -1 else None
    if action == -1:
        return  # (OpenSpiel's own check: kInvalidAction)
    history = state.history()
    try:
        state.apply_action(action)
    except (ValueError, pyspiel.SpielError):
        assert state.history() == history
    try:
        game.deserialize_state(text)
    except ValueError as e:
        assert "serialized" in str(e)


@SETTINGS
@given(config=st.dictionaries(st.sampled_from(["num_players", "reward", "max_decisions",
                                               "learning_game", "seed", "x"]),
                              json_values, max_size=3),
       action=actions)
def test_rllib_env(config, action):
    pytest.importorskip("ray.rllib")
    from machu_env.rllib import MachuPicchuMultiAgentEnv

    try:
        env = MachuPicchuMultiAgentEnv(config)
    except ValueError as e:
        assert str(e)
        return
    obs, _ = env.reset()
    (agent,) = obs
    before = env.game.state.copy()
    try:
        env.step({agent: action})
    except (IllegalActionError, ResetNeeded):
        assert np.array_equal(env.game.state, before)
