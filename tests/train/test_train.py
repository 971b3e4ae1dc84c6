"""Self-play training: the opponent-pool VecEnv, the trainer (short runs), resume, export, CLI."""

from __future__ import annotations

import csv
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from train_kit import tiny  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.agents import make_agent  # noqa: E402
from machu_env.cli import app  # noqa: E402
from machu_env.core.errors import OpponentError  # noqa: E402
from machu_env.core.opponent_pool import parse_pool  # noqa: E402
from machu_env.engine import pool as O  # noqa: E402
from machu_env.envs.sb3 import MachuPicchuVecEnv  # noqa: E402
from machu_env.rules import layout as L  # noqa: E402
from machu_env.train.run.selfplay import TrainConfig, Trainer, train  # noqa: E402


def _random_actions(env: MachuPicchuVecEnv, rng: np.random.Generator) -> np.ndarray:
    masks = env.action_masks()
    return np.argmax(masks * rng.random(masks.shape), axis=1)  # a uniform legal action each


def _play(env: MachuPicchuVecEnv, steps: int, seed: int = 0) -> list[dict]:
    """Random learner actions for ``steps`` steps; the infos of the finished games."""
    rng = np.random.default_rng(seed)
    env.reset()
    finished = []
    for _ in range(steps):
        _, rewards, dones, infos = env.step(_random_actions(env, rng))
        for i in np.flatnonzero(dones):
            finished.append({**infos[i], "reward": float(rewards[i])})
    return finished


# --- the opponent pool ----------------------------------------------------------------------------
def test_parse_pool_and_its_errors():
    assert parse_pool("random:1, gold:0.5") == {"random": 1.0, "gold": 0.5}
    for bad, message in [("gold", "name:weight"), ("chess:1", "name:weight"),
                         ("gold:x", "bad pool weight"), ("gold:-1", ">= 0"),
                         ("gold:0", "positive weight"), ("gold:nan", "finite")]:
        with pytest.raises(ValueError, match=message):
            parse_pool(bad)
    for bad, message in [({"chess": 1.0}, "unknown pool members"), ({"gold": -1.0}, ">= 0"),
                         ({"gold": "1"}, ">= 0"), ({"gold": 0.0}, "positive weight")]:
        with pytest.raises(ValueError, match=message):
            MachuPicchuVecEnv(2, pool=bad)


def test_bad_snapshots_are_refused_and_change_nothing():
    env = MachuPicchuVecEnv(4, pool="gold:1,self:1")
    before = env.batch.probabilities()
    with pytest.raises(ValueError, match="snapshot 1 is not callable"):
        env.set_snapshots([lambda o, m: None, "policy.zip"])
    assert env.batch.pool.snapshots == [] and env.batch.probabilities() == before
    self_play = MachuPicchuVecEnv(4, pool="self:1")  # pure self-play: snapshots come later
    with pytest.raises(ValueError, match="no snapshots yet"):
        self_play.reset()
    first_legal = lambda obs, masks: masks.argmax(axis=1)  # noqa: E731
    self_play.set_snapshots([first_legal])
    self_play.reset()
    with pytest.raises(ValueError, match="no snapshots yet"):
        self_play.set_snapshots([])
    assert self_play.batch.pool.snapshots == [first_legal]


def test_pool_probabilities_follow_the_weights_and_share_self_among_snapshots():
    env = MachuPicchuVecEnv(4, pool="random:1,gold:1,self:2")
    assert env.batch.probabilities() == pytest.approx({"random": 0.5, "builder": 0.0, "gold": 0.5,
                                                 "racer": 0.0})
    env.set_snapshots([lambda o, m: None, lambda o, m: None])
    assert env.batch.probabilities() == pytest.approx(
        {"random": 0.25, "builder": 0.0, "gold": 0.25, "racer": 0.0, "snapshot:0": 0.25,
         "snapshot:1": 0.25})


def test_games_draw_opponents_with_the_pool_weights():
    env = MachuPicchuVecEnv(2000, 3, seed=1, pool="random:3,builder:1")
    env.reset()
    opponents = env.batch.kinds[np.arange(2000)[:, None], np.arange(3)[None, :]]
    opponents = opponents[opponents >= 0]  # the learner's seat is -1
    assert opponents.size == 4000
    assert set(np.unique(opponents)) == {O.RANDOM, O.BUILDER}
    assert (opponents == O.RANDOM).mean() == pytest.approx(0.75, abs=0.03)
    assert np.bincount(env.seats, minlength=3) == pytest.approx([667] * 3, abs=80)


def test_heuristic_opponents_beat_a_random_learner_and_random_ones_do_not():
    """The compiled builder, gold and racer opponents are the agents' heuristics: a random learner
    almost never wins against them, and wins about half its games against random play."""
    results = _play(MachuPicchuVecEnv(64, 2, seed=2, pool="random:1,builder:1,gold:1,racer:1"), 400)
    share = {}
    for name in ("random", "builder", "gold", "racer"):
        games = [r for r in results if r["opponent"] == name]
        assert len(games) > 30
        share[name] = np.mean([r["won"] for r in games])
    assert 0.3 < share["random"] < 0.7
    assert share["builder"] < 0.1 and share["gold"] < 0.1 and share["racer"] < 0.1
    for r in results:  # the win reward says the same as the info
        assert r["reward"] == (1.0 if r["won"] else -1.0)
        assert not r["TimeLimit.truncated"]


def test_the_pool_gold_opponent_decides_exactly_like_agents_heuristic_choose():
    """Replaying every learner move by hand, with the gold agent's ``choose_fair`` (and the
    same tie-breaking noise and re-deals, drawn from the game's generator) for the opponent,
    reproduces the environment's game state after every step."""
    from machu_env.engine.lookahead import GOLD_WEIGHTS, choose_fair
    from machu_env.engine.rng import below

    env = MachuPicchuVecEnv(1, 2, seed=3, pool="gold:1", learner_seat=0)
    env.reset()
    rng = np.random.default_rng(0)
    compared = 0
    while True:
        game = env.batch.game(0)
        rngs = env.batch._rngs.copy()
        action = int(_random_actions(env, rng)[0])
        env.step(np.array([action]))
        game.play(action)
        while not game.is_over and game.current_player == 1:
            ids = np.array(game.legal_action_ids(), dtype=np.int32)
            noise = np.zeros(len(ids))
            for k in range(len(ids)):
                noise[k] = below(rngs, 0, 1 << 20) * 1e-12
            game.play(int(choose_fair(game.state.copy(), ids, GOLD_WEIGHTS, noise, rngs, 0)))
            compared += 1
        if game.is_over:
            break
        assert (game.state == env.states[0]).all()
    assert compared > 20


# --- the training env's other duties ------------------------------------------------------------
def test_snapshots_play_only_their_seats_with_legal_masks():
    calls = []

    def first_legal(obs, masks):
        calls.append((obs.shape, masks.sum(axis=1).min()))
        return masks.argmax(axis=1)

    env = MachuPicchuVecEnv(32, 3, seed=4, pool="gold:1,self:1")
    env.set_snapshots([first_legal])
    results = _play(env, 150)
    assert calls and all(shape[1] == 377 and fewest >= 1 for shape, fewest in calls)
    assert {"gold", "self", "mixed"} >= {r["opponent"] for r in results}
    assert (env.batch.kinds >= O.FIRST_POLICY).any()
    for i in range(32):  # whenever a game waits, it waits for the learner
        assert env.states[i, L.DECIDER] == env.seats[i]

    def illegal(obs, masks):
        return np.argmin(masks, axis=1)

    env.set_snapshots([illegal])
    with pytest.raises(OpponentError, match=r"snapshot 0 chose illegal actions in \d+ game"):
        _play(env, 150)


def test_games_are_truncated_after_max_learner_steps():
    env = MachuPicchuVecEnv(8, 2, seed=5, pool="random:1", max_learner_steps=3)
    results = _play(env, 9)
    assert len(results) >= 16
    cut = [r for r in results if r["TimeLimit.truncated"]]
    assert cut and all(r["reward"] == 0.0 and not r["won"] for r in cut)
    with pytest.raises(ValueError, match="max_learner_steps"):
        MachuPicchuVecEnv(2, max_learner_steps=0)


def test_pool_env_is_deterministic_for_a_seed_and_rejects_illegal_actions():
    a = _play(MachuPicchuVecEnv(16, 2, seed=6, pool="random:1,gold:1"), 100, seed=1)
    b = _play(MachuPicchuVecEnv(16, 2, seed=6, pool="random:1,gold:1"), 100, seed=1)
    assert [(r["opponent"], r["won"]) for r in a] == [(r["opponent"], r["won"]) for r in b]
    env = MachuPicchuVecEnv(2, pool="gold:1")
    env.reset()
    before = env.states.copy()
    with pytest.raises(ValueError, match="illegal learner action"):
        env.step(env.action_masks().argmin(axis=1))
    with pytest.raises(ValueError, match=r"ids must be in 0..156"):
        env.step(np.array([-1, -1]))
    assert (env.states == before).all()


# --- the trainer ----------------------------------------------------------------------------------
def _parameters(path):
    from machu_env.agents import policy_file

    return policy_file.parse(policy_file.read_bytes(path))[0]


def test_a_short_run_writes_every_output(tmp_path):
    out = tmp_path / "run"
    summary = train(tiny(out), verbose=False)
    assert summary["timesteps"] == 3072
    assert summary["steps_per_second"] > 0 and 0 < summary["simulator_share"] < 1
    assert summary["device"] == "cpu"
    with (out / "history.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows] == [0, 2048, 3072]
    for r in rows:
        assert all(0 <= float(r[f"win_vs_{n}"]) <= 1 for n in ("random", "builder", "gold"))
    for name in ("config.json", "curve.png", "latest.safetensors", "best.safetensors",
                 "latest_optimizer.pt", "latest.json", "summary.json",
                 "checkpoints/step_2048.safetensors", "checkpoints/step_3072.safetensors"):
        assert (out / name).is_file(), name
    assert not list(out.rglob("*.zip"))  # no pickle-based files
    assert list((out / "tb").rglob("events.out.tfevents.*"))
    snapshots = sorted(p.name for p in (out / "snapshots").iterdir())
    assert snapshots == ["step_2048.safetensors", "step_3072.safetensors"]  # max 2: oldest left
    agent = make_agent(f"policy:{out / 'best.safetensors'}")  # a checkpoint is an agent file
    game = Game(2, seed=0)
    assert agent.act(game) in game.legal_action_ids()
    assert json.loads((out / "config.json").read_text())["net_arch"] == "32,32"


def test_training_is_reproducible_for_a_seed_on_cpu(tmp_path):
    import torch

    runs = [train(tiny(tmp_path / name, timesteps=1024, seed=seed), verbose=False)
            for name, seed in (("a", 7), ("b", 7), ("c", 8))]
    a, b, c = (_parameters(tmp_path / name / "latest.safetensors") for name in "abc")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
    assert runs[0]["final_eval"]["win_vs_random"] == runs[1]["final_eval"]["win_vs_random"]


def test_resume_continues_the_run_and_bad_requests_are_refused(tmp_path):
    out = tmp_path / "run"
    train(tiny(out, timesteps=2048), verbose=False)
    with pytest.raises(ValueError, match="already holds a run"):
        Trainer(tiny(out))
    with pytest.raises(ValueError, match="nothing to resume"):
        Trainer(tiny(tmp_path / "none"), resume=True)
    trainer = Trainer(tiny(out, timesteps=4096, n_epochs=9), resume=True, verbose=False)
    assert trainer.config.n_epochs == 2  # the run's own settings
    assert trainer.config.timesteps == 4096  # but where and how long it runs: the command's
    assert len(trainer.snapshots) == 2 and trainer.model.num_timesteps == 2048
    summary = trainer.run()
    assert summary["timesteps"] == 4096
    with (out / "history.csv").open() as f:
        steps = [int(r["timesteps"]) for r in csv.DictReader(f)]
    assert steps == [0, 2048, 4096]


def test_a_resume_takes_exactly_the_resumable_settings_from_the_command(tmp_path, capsys):
    """The settings declared ``resumable`` (where and how long a run runs) come from the
    resuming command, every other one from the run's saved settings; ``--resume``'s help
    names the same ones."""
    from machu_env.cli import main
    from machu_env.train.run.settings import resumable

    names = resumable(TrainConfig)
    assert set(names) == {"timesteps", "out", "device", "threads", "overlap", "ray",
                          "rollout_workers", "minutes"}
    out = tmp_path / "run"
    train(tiny(out, timesteps=2048), verbose=False)
    given = tiny(out, timesteps=4096, threads=1, minutes=30.0, gamma=0.5, seed=9)
    config = Trainer(given, resume=True, verbose=False).config
    assert (config.timesteps, config.threads, config.minutes) == (4096, 1, 30.0)
    assert (config.gamma, config.seed) == (tiny(out).gamma, tiny(out).seed)
    assert main(["train", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    resume_help = said.split("--resume / --no-resume")[1].split("--json")[0]
    assert all("--" + n.replace("_", "-") in resume_help for n in names if n != "out")
    assert "--gamma" not in resume_help


def test_init_starts_from_a_trained_policy_and_refuses_a_wrong_one(tmp_path):
    import torch

    train(tiny(tmp_path / "a", timesteps=1024), verbose=False)
    start = tmp_path / "a" / "latest.safetensors"
    trainer = Trainer(tiny(tmp_path / "b", init=f"policy:{start}"), verbose=False)
    expected = _parameters(start)
    assert all(torch.equal(v, expected[k]) for k, v in trainer.model.net.state_dict().items())
    assert all(torch.equal(v, expected[k]) for k, v in  # the first snapshot is the start too
               _parameters(tmp_path / "b" / "snapshots" / "step_0.safetensors").items())
    for init, message in [("ppo-9p", "neither a shipped agent"),
                          (str(tmp_path / "none.safetensors"), "neither a shipped agent"),
                          ("ppo-2p-v1", "is not this run's")]:  # 256,256 into a 32,32 run
        with pytest.raises(ValueError, match=message):
            Trainer(tiny(tmp_path / "c", init=init), verbose=False)
        assert not (tmp_path / "c").exists()  # refused before anything is written


def test_config_errors_name_the_setting():
    for kw, message in [({"net_arch": "wide"}, "net_arch"), ({"batch_size": 1000},
                        "must divide"), ({"pool": "gold"}, "name:weight"),
                        ({"gamma": 1.5}, "gamma"), ({"players": 6}, "players"),
                        ({"eval_games": 0}, "eval_games"), ({"reward": "fun"}, "reward"),
                        ({"device": "gpu"}, "device must be")]:
        with pytest.raises(ValueError, match=message):
            tiny("unused", **kw).check()


def test_export_writes_an_agent_file_and_converts_zips_only_when_trusted(tmp_path):
    from sb3_contrib import MaskablePPO

    from machu_env.agents import policy_file
    from machu_env.train.run.export import export_policy

    out = tmp_path / "run"
    train(tiny(out, timesteps=1024, eval_every=1024, net_arch="64,64"), verbose=False)
    target = export_policy(out / "latest.safetensors", tmp_path / "agent.safetensors",
                           note="test")
    src, _, _ = policy_file.parse(policy_file.read_bytes(out / "latest.safetensors"))
    dst, config, info = policy_file.parse(policy_file.read_bytes(target))
    assert all((src[k] == dst[k]).all() for k in src) and config["pi"] == [64, 64]
    assert info["note"] == "test" and info["players"] == 2
    # an sb3 zip of the same policy converts only with trust_pickle, and plays the same moves
    model = MaskablePPO("MlpPolicy", MachuPicchuVecEnv(4, seed=1), device="cpu",
                        policy_kwargs={"net_arch": {"pi": [64, 64], "vf": [64, 64]}})
    model.policy.load_state_dict(dst)
    model.save(tmp_path / "model.zip")
    with pytest.raises(ValueError, match="unpickles Python objects"):
        export_policy(tmp_path / "model.zip", tmp_path / "x.safetensors")
    assert not (tmp_path / "x.safetensors").exists()
    converted = export_policy(tmp_path / "model.zip", tmp_path / "x.safetensors",
                              trust_pickle=True)
    env = MachuPicchuVecEnv(8, seed=1)
    obs = env.reset()
    masks = env.action_masks()
    agent = make_agent(f"policy:{converted}")
    import torch

    probs = agent.net.probabilities(torch.as_tensor(obs), torch.as_tensor(masks)).numpy()
    assert (probs.argmax(axis=1)
            == model.predict(obs, action_masks=masks, deterministic=True)[0]).all()
    with pytest.raises(ValueError, match="no checkpoint"):
        export_policy(tmp_path / "missing.safetensors", tmp_path / "y.safetensors")
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a MaskablePPO checkpoint"):
        export_policy(tmp_path / "junk.zip", tmp_path / "y.safetensors", trust_pickle=True)
    with pytest.raises(ValueError, match="must end in .safetensors"):
        export_policy(target, tmp_path / "y.zip")
    assert not (tmp_path / "y.safetensors").exists()
    # the play mode goes into the metadata: the catalogue and the agent read it
    from machu_env.agents.catalogue import _file_facts

    argmax = export_policy(target, tmp_path / "argmax.safetensors", temperature=0)
    assert _file_facts(argmax)["play"] == "argmax"
    assert make_agent(f"policy:{argmax}").temperature == 0
    warm = export_policy(target, tmp_path / "warm.safetensors", temperature=0.5)
    assert _file_facts(warm)["play"] == "sampled, temperature 0.5"
    with pytest.raises(ValueError, match="play must be"):
        export_policy(target, tmp_path / "bad.safetensors", temperature=-1)
    assert not (tmp_path / "bad.safetensors").exists()


# --- the command ----------------------------------------------------------------------------------
def test_machu_train_defaults_are_the_documented_config_defaults():
    from machu_env import cli

    params = inspect.signature(cli.training.train).parameters
    for name, value in TrainConfig().__dict__.items():
        default = params[name].default.default
        assert str(default) == str(value), name


def test_machu_train_runs_and_reports_bad_settings(tmp_path):
    runner = CliRunner()
    args = ["train", "--timesteps", "1024", "--n-envs", "16", "--n-steps", "64",
            "--batch-size", "256", "--net-arch", "16", "--eval-every", "1024",
            "--eval-games", "8", "--device", "cpu", "--imitate-games", "20",
            "--out", str(tmp_path / "run")]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output[-2000:]
    lines = r.stdout.strip().splitlines()
    assert lines[-3].startswith("trained 1,024 steps in ") and "against gold" in lines[-3]
    # the wall-clock and the rate of training alone, each named
    assert " of wall-clock (training alone: " in lines[-3] and " steps/s)" in lines[-3]
    assert lines[-1] == (f"next: machu tournament --agents "
                         f"policy:{tmp_path / 'run' / 'best.safetensors'},gold --players 2")
    r = runner.invoke(app, [*args[:-1], str(tmp_path / "again"), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["timesteps"] == 1024
    r = runner.invoke(app, [*args[:-1], str(tmp_path / "other"), "--pool", "chess:1"])
    assert r.exit_code != 0 and "chess:1" in r.output
    r = runner.invoke(app, [*args[:-1], str(tmp_path / "other"), "--max-grad-norm", "0"])
    text = " ".join(r.output.split())
    assert r.exit_code != 0 and "--max-grad-norm must be a number in (0, 1e+06]" in text
    assert not (tmp_path / "other").exists()  # refused before anything was written


def test_pure_self_play_trains_and_evaluation_refuses_no_games(tmp_path):
    from machu_env.train.ppo.evaluate import win_share

    summary = train(tiny(tmp_path / "self", pool="self:1", timesteps=1024), verbose=False)
    assert summary["timesteps"] == 1024
    with pytest.raises(ValueError, match="games must be >= 1"):
        win_share(lambda obs, masks: masks.argmax(axis=1), "gold", 0)
    with pytest.raises(ValueError, match="unknown pool members"):
        win_share(lambda obs, masks: masks.argmax(axis=1), "chess", 4)


@pytest.mark.parametrize("name,short", [("ppo-2p", 1), ("ppo-2p-race", 2)])
def test_a_policy_widened_to_a_longer_observation_plays_the_same(name, short):
    """``--init`` a shipped policy into a run of the next observation version: the
    widened network has zero weights on the new inputs (v2's race, v3's history), so it decides
    exactly as before."""
    import random

    import torch

    from machu_env import Game
    from machu_env.agents import policy_file, shipped_policies
    from machu_env.agents.policy_file import observation_version, widen_input

    tensors, config, _ = policy_file.parse(shipped_policies()[name].read_bytes())
    net = policy_file.build_net(tensors, config)
    wide = widen_input(net, short + 1)
    assert observation_version(config) == short
    assert observation_version(wide.config) == short + 1
    game, rng = Game(2, seed=8), random.Random(8)
    for _ in range(60):
        p = game.current_player
        with torch.no_grad():
            a = net(torch.as_tensor(game.observation(p, short))[None])[0]
            b = wide(torch.as_tensor(game.observation(p, short + 1))[None])[0]
        assert torch.allclose(a, b, atol=1e-5)
        game.play(rng.choice(game.legal_action_ids()))


@pytest.mark.parametrize("init,observation,size", [("ppo-2p", 2, 417), ("ppo-2p-race", 3, 457)])
def test_machu_train_observation_n_writes_an_agent_of_that_version(tmp_path, init, observation,
                                                                   size):
    from machu_env.agents import make_agent, policy_file
    from machu_env.train.run.config import TrainConfig
    from machu_env.train.run.selfplay import train

    out = tmp_path / "run"
    train(TrainConfig(players=2, timesteps=2048, n_envs=16, n_steps=64, batch_size=256,
                      eval_every=1024, eval_games=8, init=init, observation=observation,
                      out=str(out), threads=1, imitate_games=20), verbose=False)
    _, config, _ = policy_file.parse((out / "latest.safetensors").read_bytes())
    assert config["obs_size"] == size
    agent = make_agent(f"policy:{out / 'latest.safetensors'}")
    from machu_env import Game

    game = Game(2, seed=1)
    assert agent.act(game) in game.legal_action_ids()


def test_widening_to_an_unknown_observation_is_refused():
    from machu_env.agents import policy_file, shipped_policies
    from machu_env.agents.policy_file import widen_input

    tensors, config, _ = policy_file.parse(shipped_policies()["ppo-2p"].read_bytes())
    with pytest.raises(ValueError, match="observation must be 1, 2 or 3"):
        widen_input(policy_file.build_net(tensors, config), 4)


def test_the_starting_policy_is_the_best_checkpoint_until_training_beats_it(tmp_path,
                                                                           monkeypatch):
    """An --init run that never matches its start still writes best.safetensors (the start),
    as the docs' export command expects."""
    import torch

    train(tiny(tmp_path / "a", timesteps=1024), verbose=False)
    start = tmp_path / "a" / "latest.safetensors"
    scores = iter([1.0, 0.0, 0.0, 0.0])
    real = Trainer.evaluate

    def evaluate(self):
        row = real(self)
        row["win_vs_gold"] = next(scores)
        return row

    monkeypatch.setattr(Trainer, "evaluate", evaluate)
    train(tiny(tmp_path / "b", init=f"policy:{start}", timesteps=2048), verbose=False)
    best = _parameters(tmp_path / "b" / "best.safetensors")
    assert all(torch.equal(v, best[k]) for k, v in _parameters(start).items())


def test_no_eval_start_skips_the_starting_evaluation_and_still_ends_with_one(tmp_path):
    """--no-eval-start (a recipe's rounds: the start was just evaluated): the first row of
    history.csv is the first evaluation after training, and the run ends with a checkpoint
    even when --eval-every lies beyond its steps."""
    train(tiny(tmp_path / "a", timesteps=1024), verbose=False)
    start = tmp_path / "a" / "latest.safetensors"
    summary = train(tiny(tmp_path / "b", init=f"policy:{start}", timesteps=2048,
                         eval_every=10**6, eval_start=False), verbose=False)
    with open(tmp_path / "b" / "history.csv", newline="") as f:
        assert [int(r["timesteps"]) for r in csv.DictReader(f)] == [2048]
    assert summary["final_eval"]["timesteps"] == 2048
    assert (tmp_path / "b" / "best.safetensors").is_file()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in Linux /proc")
def test_threads_1_with_init_starts_no_openmp_worker(tmp_path):
    """``--threads 1`` holds for the whole run: the starting policy is read after the threads
    are set (an OpenMP worker started by the first torch op at the default size spun beside
    every later op: two runs side by side on 2 cores trained 4x slower). A fresh process,
    since the threads of this one are set already."""
    script = f"""
import os, torch
from machu_env.train.run.selfplay import Trainer, TrainConfig
before = len(os.listdir('/proc/self/task'))
t = Trainer(TrainConfig(players=2, timesteps=64, out={str(tmp_path / 'run')!r}, n_envs=4,
            n_steps=16, batch_size=64, init='ppo-2p', threads=1, device='cpu'), verbose=False)
x = torch.randn(4096, 417)
for _ in range(5):
    torch.tanh(x).abs().log1p()  # elementwise ops: OpenMP's team, at the size set
print(len(os.listdir('/proc/self/task')) - before, torch.get_num_threads())
"""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    env["NUMBA_NUM_THREADS"] = "2"  # (as on the 2-core machine)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    new_threads, torch_threads = map(int, out.stdout.split()[-2:])
    assert torch_threads == 1
    assert new_threads == 0, f"{new_threads} new threads after --threads 1"


def test_an_unknown_observation_version_is_refused_by_the_cli(tmp_path):
    from machu_env.cli import app

    for command in (["train", "--players", "2", "--out", str(tmp_path / "t")],
                    ["dataset", "--agents", "gold", "--out", str(tmp_path / "d")]):
        result = CliRunner().invoke(app, [*command, "--observation", "4"])
        words = ("--observation must be an int in 0..3, got 4" if command[0] == "train"
                 else "less than or equal to 3")
        assert result.exit_code == 2 and words in result.output, result.output
        assert not (tmp_path / "t").exists() and not (tmp_path / "d").exists()


def test_every_setting_is_declared_once():
    """Each setting of a run is a field of ``args`` with its help; the commands derive their
    options from it, none declares one again."""
    import re
    from dataclasses import fields

    from machu_env.train.run.args import PPOArgs, TrainArgs

    names = {f.name for f in fields(TrainArgs)}
    assert all(f.metadata.get("help") for f in fields(TrainArgs))
    assert {f.name for f in fields(PPOArgs)} <= names
    # each name in exactly one declaration (a run's other defaults reuse it: ``redefault``)
    import machu_env.train.run.args as args_module

    declared = re.findall(r"^\s+(\w+): [\w| ]+ = setting\(", inspect.getsource(args_module),
                          re.M)
    assert sorted(declared) == sorted(names), sorted({n for n in declared
                                                      if declared.count(n) > 1})
    from machu_env.cli import probing, training
    from machu_env.cli.probing import PPO_OPTIONS  # (the probe's PPO settings: PPOArgs')

    option = re.compile(r"^\s+(\w+): \w+ = typer\.Option\(", re.M)
    assert "typer.Option(" not in inspect.getsource(training.train)
    assert not set(option.findall(inspect.getsource(probing.exploit))) & {*PPO_OPTIONS,
                                                                          "threads"}
    from machu_env.cli import datasets

    for command in (probing.exploit, training.population, datasets.dataset):
        # the settings that mean the same in every command come from their one declaration
        # (an --out, an --eval-games, an --observation of another command is its own)
        shared = {"players", "seed", "threads"}
        assert not set(option.findall(inspect.getsource(command))) & shared, command
    from typer.main import get_command

    from machu_env.cli import app

    params = {p.name for p in get_command(app).commands["train"].params}
    assert names <= params


def test_machu_export_writes_an_agent_file_and_refuses_its_input_as_output(tmp_path, capsys):
    from machu_env.agents import shipped_policy
    from machu_env.cli import main

    target = tmp_path / "mine.safetensors"
    assert main(["export", str(shipped_policy("ppo-2p")), str(target), "--play-temperature",
                 "0.5"]) == 0
    assert "samples its moves at temperature 0.5" in capsys.readouterr().out
    assert target.is_file()
    assert main(["export", str(target), str(target)]) == 2
    err = capsys.readouterr().err
    assert "also an input of this command" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["train", "--timesteps", "10"], ["exploit", "--agent", "gold"],
                                  ["average", "--members", "ppo-2p,ppo-2p-v1", "--out", "x"]])
def test_without_torch_a_training_command_says_how_to_install_it(argv, monkeypatch, capsys,
                                                                 tmp_path):
    """The core install (no train extra): one line naming the install, before any work."""
    import sys

    from machu_env.cli import main

    monkeypatch.setitem(sys.modules, "torch", None)  # (import torch: ImportError)
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "needs the train extra" in err and "pip install -e '.[train]'" in err
    assert err.count("\n") == 1 and not any(tmp_path.iterdir())
