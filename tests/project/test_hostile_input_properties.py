"""A property-based hostile-input suite over every layer: hypothesis throws
arbitrary values at ``Game``, the batch engine, the envs, the VecEnvs, records, agent files,
the CLI, the web API, OpenSpiel and RLlib. The promise checked everywhere: a bad input gets
the layer's clear error (``ValueError`` and its kinds, a one-line CLI error with exit 2, an
HTTP 4xx) and changes nothing; nothing crashes with another exception, a 5xx or a traceback.

A new surface gets its strategy here from its first commit."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from machu_env import Game, MachuPicchuGymEnv
from machu_env.core.errors import IllegalActionError, ResetNeeded
from machu_env.core.records import game_record, replay
from machu_env.envs.batch_engine import BatchEngine

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
    from machu_env.envs.sb3 import MachuPicchuVecEnv

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
    from machu_env.envs.sb3 import MachuPicchuVecEnv

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

    from machu_env.envs.vector import MachuPicchuVectorEnv

    try:
        gym.make_vec("MachuPicchu-v0", **{"num_envs": 2, **options})
    except (ValueError, TypeError) as e:
        assert str(e)
    env = MachuPicchuVectorEnv(4, 2, seed=1)
    env.reset()
    before = env.batch.states.copy()
    masks = env.action_masks()
    if _all_legal(bad, masks):
        return  # (a legal step: not a hostile one)
    with pytest.raises(ValueError):
        env.step(bad)
    assert np.array_equal(env.batch.states, before)


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


@SETTINGS
@given(key=st.sampled_from(["seed", "start_player", "hands", "deck", "num_players"]),
       value=st.one_of(json_values, st.lists(st.lists(st.integers(-3, 30), max_size=30),
                                             max_size=6),
                       st.lists(st.sampled_from(["corn+llama", "coca+cloth", 3, 27]),
                                max_size=30)),
       version=st.sampled_from([1, 2, 3]))
def test_dealt_record_options(key, value, version):
    """Version-2 records (a deal instead of a seed,): any option is refused with a
    ValueError naming it, or replays."""
    import random as _random

    from machu_env.core.positions import redealt

    record = game_record(redealt(_game(2, 12), 0, _random.Random(0)))
    target = {**record, "version": version, "options": {**record["options"], key: value}}
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
    import machu_env.envs.openspiel  # noqa: F401

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
    from machu_env.envs.rllib import MachuPicchuMultiAgentEnv

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


# --- records, deals and files a reviewer crafted: one test per defect ------------------------
def _policy_meta(**change):
    """(tensors, metadata) of the shipped 2-player policy with ``change`` in its metadata."""
    pytest.importorskip("torch")
    from machu_env.agents import policy_file, shipped_policies

    tensors, config, _ = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    meta = {"format": policy_file.FORMAT, "version": "1", "config": json.dumps(config)}
    return tensors, config, {**meta, **change}


@pytest.mark.parametrize("t", [1e-9, 1e-300, 5e-324, 0.005])
def test_tiny_temperatures_are_refused(tmp_path, t):
    """Item 7: a play temperature in (0, 0.01) is refused naming the file and the range."""
    from safetensors.torch import save_file

    from machu_env.agents import make_agent

    tensors, _, meta = _policy_meta(play=json.dumps({"temperature": t}))
    path = tmp_path / "tiny.safetensors"
    save_file(tensors, str(path), metadata=meta)
    with pytest.raises(ValueError, match=r"T = 0 \(argmax\) or a number in \[0.01, 100\]"):
        make_agent(f"policy:{path}")
    with pytest.raises(ValueError, match="0.01"):
        make_agent("ppo-2p", temperature=t)


def test_the_lowest_temperature_still_plays_legal_actions():
    """Item 7: at the lowest temperature allowed, the mask is applied after the scaling: only
    legal actions, no NaN, over a whole game."""
    import random

    from machu_env.agents import make_agent

    agent = make_agent("ppo-2p", temperature=0.01, seed=1)
    game, rng = Game(2, seed=3), random.Random(0)
    while not game.is_over and len(game.history) < 400:
        probs = agent.probabilities(game)
        assert np.isfinite(probs).all()
        a = agent.act(game) if game.current_player == 0 else rng.choice(game.legal_action_ids())
        assert a in game.legal_action_ids()
        game.play(a)


def test_population_weights_inside_the_tolerance_are_normalised(tmp_path):
    """Item 9: weights summing to 1 - 9e-7 pass the check and are normalised before a draw."""
    from safetensors.torch import save_file

    from machu_env.agents import make_agent, policy_file

    tensors, config, _ = _policy_meta()
    members = [{"config": config, "weight": w} for w in (0.3, 0.7 - 9e-7)]
    both = {f"members.{k}.{n}": t.clone() for k in range(2) for n, t in tensors.items()}
    path = tmp_path / "pop.safetensors"
    save_file(both, str(path), metadata={"format": policy_file.POPULATION_FORMAT,
                                        "version": "1", "members": json.dumps(members)})
    agent = make_agent(f"policy:{path}", seed=0)
    assert abs(agent.weights.sum() - 1) < 1e-12
    for seed in range(3):  # the member draw at each game's first decision
        assert make_agent(f"policy:{path}", seed=seed).act(Game(2, seed=seed)) >= 0


@pytest.mark.parametrize("field,value", [("obs_size", 377.0), ("num_actions", 157.0),
                                         ("obs_size", True), ("num_actions", "157")])
def test_config_sizes_must_be_integers(tmp_path, field, value):
    """Item 10: a float (or bool, or text) size is refused with the file's name, not a
    traceback later."""
    from safetensors.torch import save_file

    from machu_env.agents import make_agent

    tensors, config, meta = _policy_meta()
    meta["config"] = json.dumps({**config, field: value})
    path = tmp_path / "floaty.safetensors"
    save_file(tensors, str(path), metadata=meta)
    with pytest.raises(ValueError, match=f"{path}: config's obs_size and num_actions must be "
                                         "integers"):
        make_agent(f"policy:{path}")


def _cli(argv, capsys):
    from machu_env.cli import main

    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_population_checks_its_outputs_before_any_game(tmp_path, capsys):
    """Items 5 and 11: --out a folder, under a file, or (with --psro) a best response's file
    that is an input: refused in one line before the games."""
    afile = tmp_path / "afile"
    afile.write_text("")
    folder = tmp_path / "pop.safetensors"
    folder.mkdir()
    pytest.importorskip("torch")
    from machu_env.agents import shipped_policies

    psro_dir = tmp_path / "pop2_psro"
    psro_dir.mkdir()
    br0 = psro_dir / "br_0.safetensors"
    br0.write_bytes(shipped_policies()["ppo-2p"].read_bytes())
    before = br0.read_bytes()
    cases = [
        (["--out", str(folder)], "is a folder"),
        (["--out", str(afile / "p.safetensors")], str(afile)),
        (["--members", f"ppo-2p,policy:{br0}", "--out", str(tmp_path / "pop2.safetensors"),
          "--psro", "1"], "also an input"),
    ]
    for extra, message in cases:
        argv = ["population", "--members", "ppo-2p,ppo-2p-v2", "--games", "100000", *extra]
        code, _, err = _cli(argv, capsys)
        assert code == 2 and message in err and err.count("\n") == 1, err
    assert br0.read_bytes() == before
    from machu_env.train.probe.population import psro

    with pytest.raises(ValueError, match="also a member"):
        psro(["ppo-2p", f"policy:{br0}"], 2, 1, tmp_path / "pop2.safetensors", 1, 1)


def test_tournament_workers_are_capped_at_the_cpu_count(capsys, tmp_path):
    """Item 13: 1,000 workers are refused before any process starts."""
    from machu_env.agents.tournament import local_worker_limit

    code, _, err = _cli(["tournament", "--agents", "random,gold", "--players", "2", "--games",
                         "2", "--workers", "1000", "--out", str(tmp_path / "t")], capsys)
    assert code == 2 and f"at most {local_worker_limit()}" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["train", "--n-envs", "100000", "--n-steps", "100000"],
    ["exploit", "--agent", "gold", "--n-envs", "100000", "--n-steps", "100000"],
])
def test_a_huge_rollout_buffer_is_refused_in_one_line(argv, capsys, tmp_path):
    """Item 14: n_envs x n_steps is checked against the machine's memory before allocation."""
    pytest.importorskip("torch")
    code, _, err = _cli([*argv, "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "rollout buffer of" in err and "GiB" in err, err


def test_shipped_agent_files_go_to_a_private_folder_and_are_checked(tmp_path, monkeypatch):
    """Item 15: a Ray worker's copy of an agent file lives in a folder of its own process
    (mode 0700, a fresh name), and a copy whose content changed is written again."""
    import hashlib
    import stat

    from machu_env.agents import tournament

    data = b"agent bytes"
    planted = tmp_path / "machu-env-agents"  # the old shared place: never used
    planted.mkdir()
    name = hashlib.sha256(data).hexdigest() + ".safetensors"
    (planted / name).write_bytes(b"planted")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    local = Path(tournament._local_copy("x.safetensors", data))
    assert local.read_bytes() == data and local.parent != planted
    assert stat.S_IMODE(local.parent.stat().st_mode) == 0o700
    local.write_bytes(b"tampered")
    assert Path(tournament._local_copy("x.safetensors", data)).read_bytes() == data


def test_a_shared_numba_cache_folder_of_another_owner_is_not_used(tmp_path, monkeypatch):
    """Item 15: the temp-folder fallback of numba's cache must be private to this user."""
    from machu_env import _cache

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    open_to_all = tmp_path / "machu-env-someone"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    assert not _cache._writable(open_to_all)
    assert _cache._writable(tmp_path / "machu-env-mine")
    assert (tmp_path / "machu-env-mine").stat().st_mode & 0o077 == 0


def test_vector_env_decision_limits_and_snapshots(capsys):
    """Items 18 and 20: decision limits are bounded in every layer; set_opponent_policies(None)
    is a ValueError naming what is allowed."""
    from machu_env.core.checks import MAX_DECISIONS
    from machu_env.envs.vector import MachuPicchuVectorEnv

    for key in ("max_decisions", "max_learner_steps"):
        for bad in (2**63, MAX_DECISIONS + 1, 0):
            with pytest.raises(ValueError, match=f"{key} must be an int in 1..{MAX_DECISIONS}"):
                MachuPicchuVectorEnv(num_envs=2, **{key: bad})
    env = MachuPicchuVectorEnv(num_envs=2, opponents="random:1,self:1")
    with pytest.raises(ValueError, match="snapshots must be a list"):
        env.set_opponent_policies(None)
    pytest.importorskip("pyspiel")
    import pyspiel

    import machu_env.envs.openspiel  # noqa: F401  (registers the game)

    with pytest.raises((ValueError, pyspiel.SpielError), match="max_decisions"):
        pyspiel.load_game("python_machu_picchu", {"max_decisions": 10**9})


@pytest.mark.parametrize("seed", [1.5, "x", True, 2**64, -1])
def test_pettingzoo_reset_checks_its_seed(seed):
    """Item 19: one seed check for every env."""
    import machu_env

    env = machu_env.env(2)
    with pytest.raises(ValueError, match="seed must be an int in 0..18446744073709551615"):
        env.reset(seed=seed)


def test_rllib_script_refuses_a_file_as_out(tmp_path, capsys):
    """Item 21: --out at an existing file or under a file: one line, before Ray starts."""
    from machu_env.train.ppo.rllib_ppo import main

    afile = tmp_path / "afile"
    afile.write_text("")
    for out in (afile, afile / "sub"):
        assert main(["--iterations", "1", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "--out" in err and err.count("\n") == 1 and "Traceback" not in err
