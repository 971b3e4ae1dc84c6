"""Agents, tournaments, game records and the ``machu`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from machu_env import Game
from machu_env.agents import make_agent
from machu_env.agents.search import MCTSAgent
from machu_env.agents.standings import wilson
from machu_env.agents.tournament import run_tournament, seatings
from machu_env.cli import app, main
from machu_env.core.records import game_record, load_record, replay, save_record


def _play(agents, seed):
    game = Game(len(agents), seed=seed)
    while not game.is_over:
        action = agents[game.current_player].act(game)
        assert action in game.legal_action_ids()
        game.play(action)
    return game


@pytest.mark.parametrize("name", ["random", "builder", "gold"])
def test_agents_play_legal_actions_to_the_end(name):
    for n in (2, 5):
        game = _play([make_agent(name, seed=p) for p in range(n)], seed=n)
        assert game.is_over


def test_mcts_plays_legal_actions_and_is_deterministic_with_iterations():
    games = [_play([MCTSAgent(seed=1, iterations=30), make_agent("random", 2)], seed=3)
             for _ in range(2)]
    assert games[0].history == games[1].history
    with pytest.raises(ValueError, match="iterations"):
        MCTSAgent(iterations=0)


def test_search_plays_legal_actions_deterministically_and_checks_its_settings():
    pytest.importorskip("torch")
    games = [_play([make_agent("search:ppo-2p", seed=1, simulations=24, batch=8),
                    make_agent("random", 2)], seed=4) for _ in range(2)]
    assert games[0].is_over and games[0].history == games[1].history
    for kwargs, message in [({"simulations": 0}, "simulations"), ({"seconds": 0}, "seconds"),
                            ({"batch": 0}, "batch"), ({"rollout_weight": 1.5}, "rollout_weight"),
                            ({"confident": -0.1}, "confident"), ({"max_depth": 0}, "max_depth")]:
        with pytest.raises(ValueError, match=message):
            make_agent("search:ppo-2p", **kwargs)
    # play-out leaf values: legal, deterministic, and a confident policy is followed at once
    opts = {"simulations": 16, "batch": 8, "rollout_weight": 0.5, "max_depth": 20}
    games = [_play([make_agent("search:ppo-2p", seed=1, **opts), make_agent("random", 2)],
                   seed=7) for _ in range(2)]
    assert games[0].is_over and games[0].history == games[1].history
    policy, confident = make_agent("ppo-2p"), make_agent("search:ppo-2p", confident=0.0)
    game = Game(2, seed=8)
    for _ in range(30):
        assert confident.act(game) == policy.act(game)
        game.play(policy.act(game))


def test_search_and_rollout_take_a_time_cap_beside_a_count_budget(monkeypatch):
    """simulations/rounds with seconds: at most that many, no batch or round that would end
    past the cap (the first always runs); a cap that never bites changes nothing."""
    pytest.importorskip("torch")
    from machu_env.agents import puct, rollout

    game = Game(2, seed=4)
    for _ in range(12):
        game.play(make_agent("random", 0).act(game))
    calls = {"descend": 0, "round": 0}
    descend, one_round = puct.SearchAgent._descend, rollout.RolloutAgent._round

    def count_descend(self, *a):
        calls["descend"] += 1
        return descend(self, *a)

    def count_round(self, *a):
        calls["round"] += 1
        return one_round(self, *a)

    monkeypatch.setattr(puct.SearchAgent, "_descend", count_descend)
    monkeypatch.setattr(rollout.RolloutAgent, "_round", count_round)
    search = {"simulations": 32, "batch": 8, "confident": 1.0, "max_depth": 30}
    plain = make_agent("search:ppo-2p", seed=1, **search).act(game)
    assert calls["descend"] == 32
    calls["descend"] = 0
    assert make_agent("search:ppo-2p", seed=1, seconds=1e-9, **search).act(game) in \
        game.legal_action_ids()
    assert calls["descend"] == 8  # one batch, then the cap
    assert make_agent("search:ppo-2p", seed=1, seconds=600, **search).act(game) == plain
    opts = {"rounds": 3, "deals": 2, "candidates": 3, "cover": 1.0, "max_depth": 30}
    plain = make_agent("rollout:ppo-2p", seed=1, **opts).act(game)
    assert calls["round"] == 3
    calls["round"] = 0
    make_agent("rollout:ppo-2p", seed=1, seconds=1e-9, **opts).act(game)
    assert calls["round"] == 1
    assert make_agent("rollout:ppo-2p", seed=1, seconds=600, **opts).act(game) == plain
    for bad in (0, -1.0, float("nan"), True, "1"):
        for name in ("search:ppo-2p", "rollout:ppo-2p"):
            with pytest.raises(ValueError, match=r"seconds must be a number in \(0, 3600\]"):
                make_agent(name, seconds=bad)


def test_play_out_plays_the_policy_to_the_end_or_asks_the_value_head():
    """``play_out`` (the rollouts of ``rollout:`` and ``search:``) is the deterministic policy
    playing every seat: the winners of the game played on with ``PolicyAgent``, or the value
    head's estimate where it is still running after ``max_depth`` decisions."""
    pytest.importorskip("torch")
    from machu_env import NUM_ACTIONS
    from machu_env.agents.rollout import forward, head_values, play_out
    from machu_env.engine.flow import advance
    from machu_env.engine.observation import OBS_SIZE
    from machu_env.rules import layout as L

    policy = make_agent("ppo-2p")

    def expected(g: Game, depth: int) -> np.ndarray:
        g = g.clone()
        for _ in range(depth):
            if g.is_over:
                return np.array([1.0 if s["winner"] else -1.0 for s in g.scores()])
            g.play(policy.act(g))
        _, v = forward(policy.net, g.observation(g.current_player)[None].astype(np.float32))
        return head_values(v, np.array([g.state[L.DECIDER]]), 2)[0]

    starts, game = [], Game(2, seed=9)
    while len(starts) < 4:  # (from one of them the policy shuttles for ever: cut by max_depth)
        for _ in range(40):
            game.play(make_agent("random", len(starts)).act(game))
        starts.append(game.clone())
    rows = len(starts)
    S = np.stack([g.state for g in starts]).astype(np.int32)
    B = np.zeros((rows, NUM_ACTIONS), np.int32)
    C = np.array([advance(S[i], B[i]) for i in range(rows)], np.int32)
    obs, masks = np.zeros((rows, OBS_SIZE), np.float32), np.zeros((rows, NUM_ACTIONS), bool)
    scores = np.zeros((5, 6), np.int32)
    for depth in (3, 400):
        result = play_out(policy.net, S.copy(), C.copy(), B.copy(), obs, masks, 2, depth, scores)
        for i, g in enumerate(starts):
            np.testing.assert_allclose(result[i], expected(g, depth), rtol=1e-5, atol=1e-6)


def test_rollout_plays_legal_actions_deterministically_and_checks_its_settings():
    pytest.importorskip("torch")
    opts = {"rounds": 1, "deals": 2, "candidates": 2, "max_depth": 30}
    games = [_play([make_agent("random", 2), make_agent("rollout:ppo-2p", seed=1, **opts)],
                   seed=5) for _ in range(2)]
    assert games[0].is_over and games[0].history == games[1].history
    agent = make_agent("rollout:ppo-2p", cover=1.0, candidates=3)
    game = Game(2, seed=6)
    ranked = agent.ranked(game)
    assert len(ranked) == min(3, len(game.legal_action_ids()))
    assert ranked[0] == make_agent("ppo-2p").act(game)  # the policy's own choice first
    for kwargs, message in [({"rounds": 0}, "rounds"), ({"seconds": 0}, "seconds"),
                            ({"deals": 0}, "deals"), ({"candidates": 0}, "candidates"),
                            ({"cover": 1.5}, "cover"), ({"max_depth": 0}, "max_depth")]:
        with pytest.raises(ValueError, match=message):
            make_agent("rollout:ppo-2p", **kwargs)
    with pytest.raises(ValueError, match="rollout needs a trained policy"):
        make_agent("rollout:gold")


def test_heuristics_beat_random_in_two_player_games():
    for name in ("builder", "gold"):
        s = run_tournament([name, "random"], 2, 20, seed=1, progress=False)
        row = next(a for a in s["agents"] if a["agent"] == name)
        assert row["win_share"] >= 0.85, s


def test_seatings_are_the_sorted_distinct_permutations_without_building_them():
    import itertools
    import random
    import tracemalloc

    for trial in range(200):
        rng = random.Random(trial)
        names = [rng.choice("abcdef") for _ in range(rng.randint(2, 7))]
        k = rng.randint(2, min(5, len(names)))
        assert list(seatings(names, k)) == sorted(set(itertools.permutations(names, k)))
    tracemalloc.start()
    try:
        many = seatings([f"agent{i:02d}" for i in range(40)], 5)  # the review's 4.5 GB
        assert len(many) == 40 * 39 * 38 * 37 * 36
        assert many[len(many) - 1] == ("agent39", "agent38", "agent37", "agent36", "agent35")
        assert tracemalloc.get_traced_memory()[1] < 10 * 2**20
    finally:
        tracemalloc.stop()
    with pytest.raises(ValueError, match="at most 64 agent names"):
        seatings(["random"] * 65, 2)


def test_a_tournament_of_forty_names_at_five_players_plays_at_once(tmp_path, capsys):
    from machu_env.cli import main

    names = ",".join(["random", "gold", "builder", "racer"] * 10)
    code = main(["tournament", "--agents", names, "--players", "5", "--games", "1",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 0 and "1 games over 1024 seatings: some seatings are not played" in err, err


def test_seatings_and_tournament_determinism_and_errors():
    assert len(seatings(["a", "b", "c"], 3)) == 6
    assert len(seatings(["a", "b", "b"], 3)) == 3  # distinct seatings of a repeated agent
    assert len(seatings(["a", "b", "c", "d"], 2)) == 12
    with pytest.raises(ValueError, match="need at least 3 agents"):
        seatings(["a", "b"], 3)
    a = run_tournament(["random", "builder", "gold"], 3, 12, seed=5, progress=False)
    b = run_tournament(["random", "builder", "gold"], 3, 12, seed=5, workers=2, progress=False)
    assert a == b
    assert sum(r["win_share"] * r["games"] for r in a["agents"]) == pytest.approx(12)
    assert a["rescue_share"] + a["conquest_share"] == pytest.approx(1)
    with pytest.raises(ValueError, match="games must be an int >= 1"):
        run_tournament(["random", "gold"], 2, 0, progress=False)
    with pytest.raises(ValueError, match="unknown agent 'alphazero'"):
        run_tournament(["random", "alphazero"], 2, 2, progress=False)
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.19, abs=0.01)


def test_a_game_past_max_decisions_ends_truncated_without_a_result(tmp_path):
    # nothing in the rules forces an end (R3.1, R6.1); random games take 117+ decisions
    s = run_tournament(["random", "gold"], 2, 4, seed=3, progress=False, max_decisions=30,
                       records_dir=tmp_path, html=True)
    assert s["truncated_share"] == 1 and s["rescue_share"] == s["conquest_share"] == 0
    assert s["mean_decisions"] == 30
    for row in s["agents"]:
        assert row["games"] == 4 and row["win_share"] == 0 and row["rating_mu"] == 25
    record = json.loads(sorted(tmp_path.glob("*.json"))[0].read_text())
    assert len(record["actions"]) == 30 and not replay(record).is_over
    assert sorted(tmp_path.glob("*.html"))
    full = run_tournament(["random", "gold"], 2, 4, seed=3, progress=False)
    assert full["truncated_share"] == 0
    with pytest.raises(ValueError, match="max_decisions must be an int in 1..100000"):
        run_tournament(["random", "gold"], 2, 2, progress=False, max_decisions=0)


def test_tournament_workers_keep_torch_to_one_thread(monkeypatch):
    torch = pytest.importorskip("torch")
    from machu_env.agents import tournament

    before = torch.get_num_threads()
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    monkeypatch.setenv("MKL_NUM_THREADS", "4")
    try:
        tournament._one_thread_per_worker()
        assert torch.get_num_threads() == 1
        assert tournament.os.environ["OMP_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(before)


def test_records_replay_to_the_identical_final_state(tmp_path):
    game = _play([make_agent("gold", 1), make_agent("random", 2), make_agent("builder", 3)], 8)
    path = tmp_path / "game.json"
    save_record(game, path, ["gold", "random", "builder"])
    again = load_record(path)
    assert (again.state == game.state).all() and again.scores() == game.scores()
    rec = game_record(game)
    rec["actions"][3]["action"] = "move the_moon"
    with pytest.raises(ValueError, match="record step 3"):
        replay(rec)
    with pytest.raises(ValueError, match="not a machu-env game record"):
        replay({"format": "chess-pgn"})
    with pytest.raises(ValueError, match="unsupported record version"):
        replay({**game_record(game), "version": 99})


# --- the machu command ---------------------------------------------------------------------
runner = CliRunner()


def _text(result) -> str:
    """The command's output with rich's line wrapping undone."""
    return " ".join(result.output.split())


def test_cli_rules_tournament_and_replay(tmp_path, capsys):
    r = runner.invoke(app, ["rules"])
    assert r.exit_code == 0 and " 156  take coca,pottery,cloth" in r.output
    out = tmp_path / "t"
    r = runner.invoke(app, ["tournament", "--agents", "random,gold", "--players", "2",
                            "--games", "4", "--workers", "1", "--out", str(out), "--records",
                            "--no-progress"])
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 4 and (out / "summary.csv").exists()
    record = sorted((out / "records").glob("*.json"))[0]
    r = runner.invoke(app, ["replay", str(record)])
    assert r.exit_code == 0 and "final position" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["replay", str(bad)]) == 2
    assert "not a machu-env game record" in capsys.readouterr().err
    r = runner.invoke(app, ["tournament", "--agents", "random,nobody", "--players", "2",
                            "--games", "2", "--no-progress"])
    assert r.exit_code != 0 and "unknown agent 'nobody'" in _text(r)
    r = runner.invoke(app, ["tournament", "--agents", "random,gold", "--players", "2",
                            "--games", "2", "--max-decisions", "0", "--no-progress"])
    assert r.exit_code != 0 and "--max-decisions" in _text(r)


def test_cli_human_play_with_invalid_input(tmp_path):
    moves = "\n".join(["fly", "999"] + ["1"] * 400) + "\n"
    r = runner.invoke(app, ["play", "--players", "2", "--opponents", "random", "--seed", "3",
                            "--record", str(tmp_path / "g.json")], input=moves)
    assert r.exit_code == 0, r.output[-2000:]
    assert "'fly' is not a legal action" in _text(r) and "'999' is not a legal action" in _text(r)
    assert "game over" in _text(r)
    assert load_record(tmp_path / "g.json").is_over
    first = load_record(tmp_path / "g.json").history
    assert f"P{first[0][0]} (you): {first[0][1]}" in r.output or "P0 (you): " in r.output
    from machu_env.cli.commands import console

    panel = [line for line in r.output.splitlines() if line.startswith(("│", "╭", "╰"))]
    assert panel and max(map(len, panel)) <= console.width  # (wrapped to the terminal, not cut)
    import re

    joined = " ".join(line.strip("│ ") for line in panel)
    assert re.search(r"bank: llama \d+ +coca \d+ +pottery \d+ +cloth \d+", joined), joined[:400]


def test_policy_agent_loads_a_trained_model_and_plays(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from machu_env import MachuPicchuGymEnv
    from machu_env.agents.policy import PolicyAgent
    from machu_env.agents.policy_file import save_sb3_policy

    model = sb3_contrib.MaskablePPO("MlpPolicy", MachuPicchuGymEnv(2), n_steps=64, batch_size=64,
                                    seed=0, device="cpu")
    model.learn(total_timesteps=64)
    path = save_sb3_policy(tmp_path / "tiny.safetensors", model.policy)
    agent = make_agent(f"policy:{path}")
    assert isinstance(agent, PolicyAgent) and agent.name == "policy:tiny"
    game = _play([agent, make_agent("random", 1)], seed=2)
    assert game.is_over
    s = run_tournament([f"policy:{path}", "random"], 2, 4, seed=0, progress=False)
    assert s["games"] == 4
    sampler = PolicyAgent(path, seed=3, deterministic=False)
    assert _play([sampler, make_agent("random", 1)], seed=4).is_over
    with pytest.raises(ValueError, match="no policy file"):
        make_agent(f"policy:{tmp_path / 'missing.safetensors'}")
    (tmp_path / "junk.safetensors").write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="is not a safetensors file"):
        make_agent(f"policy:{tmp_path / 'junk.safetensors'}")


def test_the_tournament_table_does_not_wrap_in_a_log(tmp_path, capsys):
    """Printed to a file or CI (not a terminal), no line is cut at 80 columns."""
    assert main(["tournament", "--agents", "random,builder", "--players", "2", "--games", "2",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "t")]) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    head = next(line for line in lines if line.startswith("2 games, 2 players"))
    assert head.endswith("decisions/game") and len(head) > 80
