"""Hostile and careless input in every layer: refused with a message that names what was wrong
and what is allowed, and nothing changes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import machu_env
from machu_env import Game, IllegalActionError, MachuPicchuGymEnv
from machu_env.cli import main
from machu_env.core.errors import OpponentError, ResetNeeded
from machu_env.core.records import game_record, replay
from machu_env.envs.batch_engine import BatchEngine

MAX_SEED = 2**64 - 1


def _first_legal(obs, masks):
    return masks.argmax(axis=1)


# --- item 3: action arrays of the batch engine and the VecEnv -------------------------------------
def _bad_action_arrays(legal: np.ndarray) -> list:
    n = legal.size
    return [
        legal.astype(np.int64) + 2**32,            # would wrap to a legal id as int32
        legal.astype(np.uint64) + np.uint64(2**32),
        legal.astype(float) + 0.9,                 # floats are not truncated
        legal.astype(bool),
        legal.astype(object),
        legal.astype(str),                         # string digits
        legal.reshape(1, n),                       # 2-D of the right size
        -np.ones(n, dtype=np.int64),
        np.full(n, 157),
    ]


def test_batch_engine_accepts_only_integer_arrays_of_action_ids():
    be = BatchEngine(4, 3, seed=0)
    legal = be.legal_ids()[:, 0].copy()
    before = be.states.copy()
    for bad in _bad_action_arrays(legal):
        with pytest.raises(ValueError, match=r"integer array of shape \(4,\)|ids must be in"):
            be.step(bad)
        assert (be.states == before).all()
    be.step(legal.astype(np.uint8))  # any integer dtype holding legal ids is fine
    assert not (be.states == before).all()


def test_vecenv_accepts_only_integer_arrays_of_legal_ids():
    pytest.importorskip("stable_baselines3")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    env = MachuPicchuVecEnv(4, 2, seed=1)
    env.reset()
    legal = env.action_masks().argmax(axis=1)
    before = env.states.copy()
    for bad in _bad_action_arrays(legal):
        with pytest.raises(ValueError, match=r"integer array of shape \(4,\)|ids must be in"):
            env.step(bad)
        assert (env.states == before).all()
    env.step(legal)


# --- item 4: opponent policies of the VecEnvs -----------------------------------------------------
@pytest.mark.parametrize("answer, message", [
    (lambda o, m: m.argmax(axis=1) - 157, "ids must be in 0..156"),   # wraps to legal ids
    (lambda o, m: np.full(len(m), 200), "ids must be in 0..156"),
    (lambda o, m: m.argmax(axis=1)[:-1] if len(m) > 1 else np.zeros(2, int), "shape"),
    (lambda o, m: m.argmin(axis=1), "chose illegal actions"),
    (lambda o, m: m.argmax(axis=1).astype(float), "integer array"),
    (lambda o, m: 1 / 0, "raised ZeroDivisionError"),
])
def test_vecenv_opponent_output_is_checked_and_a_refused_step_changes_nothing(answer, message):
    pytest.importorskip("stable_baselines3")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    sound = {"on": True}

    def opponent(obs, masks):  # sound during reset, then the answer under test
        return _first_legal(obs, masks) if sound["on"] else answer(obs, masks)

    env = MachuPicchuVecEnv(16, 3, seed=2, opponent=opponent)
    env.reset()
    sound["on"] = False
    b = env.batch
    saved = [a.copy() for a in (b.states, b._bufs, b._counts, b._rngs, b.seats)]
    with pytest.raises(OpponentError, match=message) as info:
        env.step(env.action_masks().argmax(axis=1))
    assert "opponent policy" in str(info.value)
    for x, y in zip(saved, (b.states, b._bufs, b._counts, b._rngs, b.seats), strict=True):
        assert (x == y).all()
    sound["on"] = True  # a sound opponent again: the same step now goes through
    env.step(env.action_masks().argmax(axis=1))


def test_pool_vecenv_snapshot_failure_changes_no_game():
    pytest.importorskip("stable_baselines3")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    env = MachuPicchuVecEnv(16, 2, seed=3, pool="gold:1,self:3")
    env.set_snapshots([_first_legal])
    env.reset()
    env.set_snapshots([lambda o, m: m.argmax(axis=1) - 157])
    env.batch.pool.cum = env.batch.pool.cumulative(1)
    before = (env.states.copy(), env.batch.kinds.copy(), env.batch._learner_steps.copy())
    for _ in range(5):  # until a snapshot is asked
        try:
            env.step(env.action_masks().argmax(axis=1))
            before = (env.states.copy(), env.batch.kinds.copy(), env.batch._learner_steps.copy())
        except OpponentError as e:
            assert "snapshot 0" in str(e)
            break
    else:
        pytest.fail("no snapshot was asked")
    assert (env.states == before[0]).all() and (env.batch.kinds == before[1]).all()
    assert (env.batch._learner_steps == before[2]).all()


# --- item 5: order of calls -----------------------------------------------------------------------
def test_vecenv_step_before_reset_and_wait_before_async_are_clear_errors():
    pytest.importorskip("stable_baselines3")
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    for env in (MachuPicchuVecEnv(2, 2), MachuPicchuVecEnv(2, 2)):
        with pytest.raises(ResetNeeded, match="call reset"):
            env.step(np.zeros(2, dtype=int))
        env.reset()
        with pytest.raises(ResetNeeded, match="step_async"):
            env.step_wait()


# --- item 6, 7: the Gymnasium env -----------------------------------------------------------------
@pytest.mark.parametrize("bad", [0.7, True, np.float32(3), None, math.nan,
                                 np.array([1, 2]), "0", "fly"])
def test_gym_env_treats_non_actions_as_illegal_actions(bad):
    env = MachuPicchuGymEnv(2, learner_seat=0, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    state = env.game.state.copy()
    with pytest.raises(IllegalActionError, match="action"):
        env.step(bad)
    assert (env.game.state == state).all()
    env = MachuPicchuGymEnv(2, learner_seat=0)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(ResetNeeded, match="ended episode"):
        env.step(int(np.flatnonzero(env.game.action_mask())[0]))
    env.reset(seed=1)  # ... until reset
    env.step(np.int64(env.game.legal_action_ids()[0]))
    env.step(np.array(env.game.legal_action_ids()[0]))  # a 0-d integer array is an id


def test_gym_env_step_before_reset():
    with pytest.raises(ResetNeeded, match="reset"):
        MachuPicchuGymEnv(2).step(0)


@pytest.mark.parametrize("policy, message", [
    (lambda game: 156 if 156 not in game.legal_action_ids() else 155, "seat 1 answered"),
    (lambda game: 1 / 0, "seat 1 raised ZeroDivisionError"),
    (lambda game: 0.5, "seat 1 answered"),
])
def test_gym_env_opponent_failure_names_the_seat_and_undoes_the_learners_move(policy, message):
    calls = {"n": 0}

    def opponent(game):
        calls["n"] += 1
        return game.legal_action_ids()[0] if calls["n"] <= 1 else policy(game)

    env = MachuPicchuGymEnv(2, learner_seat=0, opponents=opponent)
    env.reset(seed=5)
    while env.game.current_player == 0 and calls["n"] <= 1:  # play until the opponent fails
        state, history = env.game.state.copy(), list(env.game.history)
        try:
            env.step(env.game.legal_action_ids()[0])
        except OpponentError as e:
            assert message in str(e)
            break
    else:
        pytest.fail("the opponent was never asked")
    assert (env.game.state == state).all() and env.game.history == history
    assert env.game.current_player == 0  # the learner decides again, not the opponent


# --- item 8: the PettingZoo env -------------------------------------------------------------------
def test_raw_pettingzoo_env_refuses_non_actions_and_calls_before_reset():
    raw = machu_env.raw_env(2)
    for call in (lambda: raw.step(0), lambda: raw.observe("player_0"), lambda: raw.last()):
        with pytest.raises(ResetNeeded, match="reset"):
            call()
    raw.reset(seed=0)
    state = raw.game.state.copy()
    for bad in (0.9, "0", True, None, np.array([0])):
        with pytest.raises(IllegalActionError, match="action"):
            raw.step(bad)
        assert (raw.game.state == state).all()
    raw.step(raw.game.legal_actions()[0])  # a notation string is an action
    assert len(raw.game.history) == 1


def test_wrapped_pettingzoo_env_refuses_non_actions_clearly():
    env = machu_env.env(2)
    env.reset(seed=0)
    state = env.unwrapped.game.state.copy()
    for bad in (True, 0.9, "0", 157, -1):
        with pytest.raises(IllegalActionError, match="action"):
            env.step(bad)
        assert (env.unwrapped.game.state == state).all()
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    env.step(illegal)  # a well-formed illegal id: -1 and the game ends (PettingZoo's wrapper)
    assert all(env.terminations.values())


# --- item 9: render shows what the rendered player may see ----------------------------------------
def _hands(game):
    return [", ".join(p["cards"]) for p in game.view()["players"]]


def test_gym_render_shows_the_learners_view():
    env = MachuPicchuGymEnv(3, learner_seat=1, render_mode="ansi")
    env.reset(seed=3)
    hands = _hands(env.game)
    text = env.render()
    assert hands[1] in text and hands[0] not in text and hands[2] not in text
    every = MachuPicchuGymEnv(3, learner_seat=1, render_mode="ansi", render_player=None)
    every.reset(seed=3)
    assert all(h in every.render() for h in hands)
    with pytest.raises(ValueError, match="render_player"):
        MachuPicchuGymEnv(3, render_player=7)


def test_pettingzoo_render_shows_public_information_by_default():
    raw = machu_env.raw_env(3, render_mode="ansi")
    raw.reset(seed=3)
    hands = _hands(raw.game)
    assert not any(h in raw.render() for h in hands)
    seat = machu_env.raw_env(3, render_mode="ansi", render_player=2)
    seat.reset(seed=3)
    assert hands[2] in seat.render() and hands[0] not in seat.render()
    every = machu_env.raw_env(3, render_mode="ansi", render_player=None)
    every.reset(seed=3)
    assert all(h in every.render() for h in hands)


# --- items 11, 12: seeds and constructor arguments ------------------------------------------------
def test_seeds_beyond_64_bits_are_refused_everywhere():
    assert Game(3, MAX_SEED).seed == MAX_SEED
    for make in (lambda s: Game(3, s), lambda s: BatchEngine(2, 3, seed=s)):
        for seed in (2**64 + 5, -1, 1.7, True):
            with pytest.raises(ValueError, match="seed must be an int in 0..18446744073709551615"):
                make(seed)


def test_constructor_arguments_are_checked():
    pytest.importorskip("stable_baselines3")
    from machu_env.core.opponent_pool import check_pool, parse_pool
    from machu_env.envs.sb3 import MachuPicchuVecEnv

    with pytest.raises(ValueError, match="learning_game must be True or False"):
        MachuPicchuVecEnv(2, learning_game="no")
    with pytest.raises(ValueError, match="seed must be an int"):
        MachuPicchuVecEnv(2, seed=1.7)
    with pytest.raises(ValueError, match="max_learner_steps must be an int"):
        MachuPicchuVecEnv(2, max_learner_steps=1.5)
    with pytest.raises(ValueError, match="add up to inf"):
        parse_pool("gold:1e308,builder:1e308")
    with pytest.raises(ValueError, match="given twice"):
        parse_pool("gold:1,gold:2")
    assert check_pool({"gold": np.float32(0.5), "random": np.int64(1)}) == {"gold": 0.5,
                                                                           "random": 1.0}
    with pytest.raises(ValueError, match="pool weight of gold"):
        check_pool({"gold": True})
    for make, where in ((lambda: machu_env.env(seed=5), "takes no seed"),
                        (lambda: MachuPicchuGymEnv(seed=1), "takes no seed"),
                        (lambda: machu_env.raw_env(colour="red"), "unknown option")):
        with pytest.raises(ValueError, match=where):
            make()


# --- items 15-17: records and the machu command ---------------------------------------------------
def _record():
    game = Game(2, seed=0)
    for _ in range(3):
        game.play(game.legal_action_ids()[0])
    return game_record(game)


@pytest.mark.parametrize("change", [
    {"options": [2, 0]}, {"options": "2"}, {"actions": {"a": 1}}, {"actions": "move"},
    {"actions": ["start corn_terraces"]}, {"actions": None}, {"actions": [{"player": 0}]},
    {"result": "won"}, {"options": {"num_players": "2", "seed": 0}},
    {"options": {"num_players": 2, "seed": 2**70}},
    {"version": True}, {"version": 1.0}, {"result": {"end": "conquest"}},
    {"result": {"end": "conquest", "scores": "x"}}, {"result": {"end": "x", "scores": [1]}},
])
def test_malformed_records_raise_value_errors_naming_the_problem(change):
    with pytest.raises(ValueError, match=r"record|must|seed"):
        replay({**_record(), **change})


def test_records_name_the_real_type_and_refuse_bool_players_and_long_games():
    with pytest.raises(ValueError, match="got str 'x'"):
        replay({**_record(), "result": {"end": "conquest", "scores": "x"}})
    record = _record()
    record["actions"][0]["player"] = bool(record["actions"][0]["player"])
    with pytest.raises(ValueError, match="step 0"):
        replay(record)
    with pytest.raises(ValueError, match="at most 5000"):
        replay({**_record(), "actions": [{"player": 0, "action": "stay"}] * 5001})


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_machu_prints_one_line_for_bad_records(tmp_path, capsys):
    cases = {"list.json": json.dumps({**_record(), "options": [1]}),
             "deep.json": "[" * 100_000,
             "text.json": "not json",
             "markup.json": json.dumps({**_record(), "actions": [
                 {"player": Game(2, seed=0).current_player,
                  "action": "[link=http://example.invalid]x[/link] [/x]"}]})}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        code, out, err = _run(["replay", str(tmp_path / name)], capsys)
        assert code == 2 and err.count("\n") == 1 and err.startswith("machu replay: error:"), err
        assert "Traceback" not in err
    assert "[link=http://example.invalid]" in err  # printed as text, not as a link
    code, _, err = _run(["replay", "/dev/zero"], capsys)  # a device: never read
    assert code == 2 and "not a regular file" in err
    (tmp_path / "huge.json").write_bytes(b" " * (16 * 2**20 + 1))
    code, _, err = _run(["replay", str(tmp_path / "huge.json")], capsys)
    assert code == 2 and "larger than 16 MiB" in err


def test_machu_checks_output_paths_before_the_work(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    for argv in (["tournament", "--games", "2", "--out", str(afile)],
                 ["play", "--record", str(afile / "x.json")],
                 ["bench", "--out", str(afile)],
                 ["train", "--out", str(afile)]):
        code, out, err = _run(argv, capsys)
        assert code == 2 and err.count("\n") == 1 and str(afile) in err, (argv, err)
        assert out == ""  # nothing played, nothing trained
    code, _, err = _run(["tournament", "--players", "9"], capsys)
    assert code == 2 and "--players" in err and err.count("\n") == 1


def test_resume_refuses_a_config_with_wrongly_typed_settings(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from machu_env.train.run.selfplay import TrainConfig

    (tmp_path / "config.json").write_text(json.dumps({"players": "2"}))
    with pytest.raises(ValueError, match="setting 'players' must be a int"):
        TrainConfig.load(tmp_path / "config.json")
    (tmp_path / "latest.safetensors").write_bytes(b"")
    code, _, err = _run(["train", "--resume", "--out", str(tmp_path)], capsys)
    assert code == 2 and "players" in err and "Traceback" not in err


def test_play_prompt_text_is_not_markup(tmp_path):
    from typer.testing import CliRunner

    from machu_env.cli import app

    moves = "\n".join(["[/x]", "[link=http://example.invalid]a[/link]"] + ["1"] * 400) + "\n"
    r = CliRunner().invoke(app, ["play", "--players", "2", "--opponents", "random", "--seed",
                                 "1"], input=moves)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "'[/x]' is not a legal action" in r.output
    assert "game over" in r.output


def test_tournaments_stream_their_games():
    from machu_env.agents import tournament

    def jobs():  # endless: a tournament must not build its job list
        i = 0
        while True:
            yield (i, ("random", "random"), i, {}, False, False, 5000, None)
            i += 1

    stream = tournament._play_in_order(jobs(), workers=1)
    assert [next(stream)["index"] for _ in range(3)] == [0, 1, 2]
    with pytest.raises(ValueError, match="games must be an int >= 1"):
        tournament.run_tournament(["random", "gold"], 2, 0, progress=False)


# --- the CLI refuses what it must, with one line ------------------------------------
def test_no_command_writes_over_its_own_input(tmp_path, capsys):
    record = tmp_path / "game.json"
    record.write_text(json.dumps(_record()))
    before = record.read_text()
    for target in (record, tmp_path / "." / "game.json"):
        code, _, err = _run(["replay", str(record), "--html", str(target)], capsys)
        assert code == 2 and "also an input" in err and err.count("\n") == 1
    assert record.read_text() == before
    agent = tmp_path / "me.safetensors"
    from machu_env.agents import shipped_policies

    agent.write_bytes(shipped_policies()["ppo-2p"].read_bytes())
    for argv in (["play", "--opponents", f"policy:{agent}", "--record", str(agent)],
                 ["tournament", "--agents", f"search:policy:{agent},gold", "--out",
                  str(tmp_path)],
                 ["exploit", "--agent", f"policy:{agent}", "--out", str(tmp_path)]):
        code, _, err = _run(argv, capsys)
        assert code == 2 and str(agent) in err and err.count("\n") == 1, (argv, err)
    assert agent.read_bytes() == shipped_policies()["ppo-2p"].read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["tournament", "--agents", "mcts,random", "--games", "1", "--mcts-seconds", "inf"],
     "seconds must be a number in (0, 3600]"),
    (["tournament", "--agents", "mcts,random", "--games", "1", "--mcts-seconds", "nan"],
     "seconds must be a number in (0, 3600]"),
    (["play", "--mcts-seconds", "inf"], "seconds must be a number in (0, 3600]"),
    (["exploit", "--agent", "gold", "--threads", "100000"], "--threads"),
    (["train", "--threads", "100000"], "--threads"),
    (["train", "--device", "cuda:abc"], "--device must be auto, cpu, cuda"),
    (["train", "--net-arch", "5000"], "layer sizes in 1..4096"),
    (["train", "--learning-rate", "1e30"], "--learning-rate must be a number in (0, 1]"),
    (["train", "--ent-coef", "-1e30"], "--ent-coef must be a number in [0, 10]"),
    (["tournament", "--seed", "100000000000000"], "--seed"),
    (["serve", "--host", "999.1.1.1"], "neither an IP address nor a name"),
])
def test_impossible_settings_get_one_line_naming_the_option(argv, message, tmp_path, capsys):
    if argv[0] in ("train", "exploit"):
        pytest.importorskip("torch")
    code, out, err = _run([*argv, *(["--out", str(tmp_path / "o")] if argv[0] in (
        "train", "tournament") else [])], capsys)
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "o").exists() or argv[0] == "tournament"


def test_mcts_takes_any_seed_a_command_derives(tmp_path, capsys):
    code, out, err = _run(["tournament", "--agents", "mcts,random", "--seed", "1000",
                           "--players", "2", "--games", "2", "--workers", "1",
                           "--mcts-iterations", "3", "--no-progress", "--out", str(tmp_path)],
                          capsys)
    assert code == 0, err
    from machu_env.agents import make_agent

    agent = make_agent("mcts", 3_000_000_000 * 8 + 1, iterations=3)
    assert agent.act(Game(2, seed=1)) in Game(2, seed=1).legal_action_ids()


def test_replay_of_a_record_without_scores_is_one_line(tmp_path, capsys):
    game = Game(2, seed=0)
    while not game.is_over:
        game.play(game.legal_action_ids()[-1])
    record = game_record(game)
    del record["result"]["scores"]
    (tmp_path / "r.json").write_text(json.dumps(record))
    code, _, err = _run(["replay", str(tmp_path / "r.json")], capsys)
    assert code == 2 and "'result' must be null or an object with 'end' and 'scores'" in err


def test_resume_with_a_short_history_row_names_the_file_and_line(tmp_path, capsys):
    pytest.importorskip("torch")
    from machu_env.train.run.selfplay import read_history

    path = tmp_path / "history.csv"
    path.write_text("timesteps,win_vs_gold\n1000,0.5\n2000\n")
    with pytest.raises(ValueError, match=f"{path}, line 3"):
        read_history(path)


def test_a_superscript_digit_at_the_prompt_is_just_not_legal(tmp_path):
    from typer.testing import CliRunner

    from machu_env.cli import app

    record = tmp_path / "game.json"
    r = CliRunner().invoke(app, ["play", "--players", "2", "--opponents", "random", "--record",
                                 str(record)], input="\u00b2\nq\n")
    assert "'\u00b2' is not a legal action" in r.output
    assert record.exists()  # quitting keeps the game so far
    assert replay(json.loads(record.read_text())).num_players == 2


def test_a_tournament_one_agent_wins_entirely_draws_its_chart():
    from machu_env.agents.standings import wilson

    for n in range(1, 20_001, 7):
        lo, hi = wilson(n, n)
        assert hi == 1.0 and 0 <= lo <= 1
        lo, hi = wilson(0, n)
        assert lo == 0.0 and 0 <= hi <= 1


def test_a_one_sided_tournament_writes_its_chart(tmp_path, capsys):
    code, out, err = _run(["tournament", "--agents", "random,gold", "--players", "2", "--games",
                           "6", "--workers", "1", "--no-progress", "--out", str(tmp_path)],
                          capsys)
    assert code == 0, err
    assert (tmp_path / "win_shares.png").stat().st_size > 0


def test_an_agent_name_cannot_break_the_html_replay(tmp_path):
    from machu_env.views.replay_html import html_replay

    record = _record()
    record["agents"] = ["<!--<script>", "</script><script>alert(1)</script>"]
    page = html_replay(record)
    meta = page.split('<script type="application/json" id="meta">', 1)[1].split("</script>")[0]
    assert "<" not in meta and ">" not in meta
    assert json.loads(meta)["agents"] == record["agents"]
