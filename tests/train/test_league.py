"""The faster trainer's parts: the policy bank, masked PPO, league training, the exploit probe."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from typer.testing import CliRunner  # noqa: E402

from machu_env.cli import app  # noqa: E402
from machu_env.core.learner_batch import LearnerBatch  # noqa: E402
from machu_env.train.ppo.bank import PolicyBank  # noqa: E402
from machu_env.train.ppo.evaluate import game_results  # noqa: E402
from machu_env.train.ppo.ppo import PPO, PPOSettings, masked_logits, net_config, new_net  # noqa: E402
from machu_env.train.probe.exploit import exploit  # noqa: E402
from machu_env.train.probe.probe_opponent import AgentBank, opponent_for  # noqa: E402
from machu_env.train.run.selfplay import TrainConfig, Trainer, train  # noqa: E402

SMALL = PPOSettings(n_envs=16, n_steps=32, batch_size=256, n_epochs=2)


def _nets(k: int, width: int = 32):
    return [new_net(net_config([width, width]), seed).eval() for seed in range(k)]


@pytest.mark.parametrize("rows", [5, 40, 200])
def test_the_bank_computes_each_members_own_policy(rows):
    """Row k gets exactly member which[k]'s logits, on both paths (broadcast and grouped);
    deterministic members play their most probable legal action."""
    nets = _nets(3)
    for net in nets:  # non-trivial action heads
        torch.nn.init.normal_(net.action_net.weight)
    rng = np.random.default_rng(rows)
    obs = rng.random((rows, 377), dtype=np.float32)
    which = rng.integers(0, 3, rows)
    masks = rng.random((rows, 157)) < 0.2
    masks[:, 3] = True
    bank = PolicyBank(nets, deterministic=True, seed=0)
    logits = bank.logits(obs, which)
    for k in range(rows):
        with torch.no_grad():
            own = nets[which[k]](torch.from_numpy(obs[k : k + 1]))[0][0]
        assert torch.allclose(logits[k], own, atol=1e-5)
    actions = bank(obs, masks, which)
    expected = masked_logits(logits, torch.from_numpy(masks)).argmax(1).numpy()
    assert (actions == expected).all() and masks[np.arange(rows), actions].all()


def test_bank_sampling_follows_the_masked_policy():
    net = _nets(1, 8)[0]
    with torch.no_grad():
        net.action_net.weight.zero_()
        net.action_net.bias.zero_()
        net.action_net.bias[5] = float(np.log(3.0))
    bank = PolicyBank([net], seed=1)
    masks = np.zeros((4000, 157), dtype=bool)
    masks[:, [2, 5]] = True
    a = bank(np.zeros((4000, 377), np.float32), masks, np.zeros(4000, np.int64))
    assert set(a.tolist()) == {2, 5}
    assert abs((a == 5).mean() - 0.75) < 0.03  # softmax of (0, log 3)
    with pytest.raises(ValueError, match="differ in shape"):
        PolicyBank([net, _nets(1, 16)[0]])


def test_bank_snapshots_play_in_the_pool_env_with_weights():
    env = LearnerBatch(32, 3, seed=2, pool="self:1")
    env.set_snapshots(PolicyBank(_nets(2), names=["self", "exploiter"]), weights=[0.0, 1.0])
    assert env.probabilities()["snapshot:0"] == 0.0
    env.reset()
    labels = set()
    rng = np.random.default_rng(0)
    for _ in range(300):
        masks = env.action_masks()
        r = env.advance(np.argmax(masks * rng.random(masks.shape), axis=1).astype(np.int32))
        labels.update(r.labels[k] for k in r.opponents)
    assert labels == {"exploiter"}
    with pytest.raises(ValueError, match="snapshot weights"):
        env.set_snapshots(PolicyBank(_nets(2)), weights=[1.0])


def test_ppo_learns_to_beat_random_play():
    """A short run of the masked PPO against random opponents raises the win share of its
    deterministic policy well above the 50 % of random play."""
    net = new_net(net_config([64, 64]), 0)
    settings = PPOSettings(n_envs=64, n_steps=64, batch_size=1024, n_epochs=4)
    model = PPO(net, settings, seed=0)
    env = LearnerBatch(64, 2, seed=0, pool="random:1")
    env.reset()
    model.start(env)
    before = game_results(model.predict, "random", 300, seed=5).mean()
    while model.num_timesteps < 120_000:
        model.collect(env)
        stats = model.update()
    after = game_results(model.predict, "random", 300, seed=5).mean()
    assert np.isfinite(list(stats.values())).all()
    assert after > max(0.7, before + 0.15), (before, after)


@pytest.mark.parametrize("cut_as_loss", [False, True])
def test_a_game_cut_at_the_limit_is_bootstrapped_or_a_loss(cut_as_loss):
    """Every game here is cut after 2 learner decisions (no game ends so soon): by default its
    last reward is gamma * V(last observation), a time limit; with cut_as_loss it is -1, so an
    exploiter gains nothing by stalling (a cold exploiter otherwise learns to)."""
    settings = PPOSettings(n_envs=4, n_steps=4, batch_size=16, cut_as_loss=cut_as_loss)
    model = PPO(new_net(net_config([8]), 0), settings, seed=0)
    env = LearnerBatch(4, 2, seed=0, pool="random:1", max_learner_steps=2)
    env.reset()
    model.start(env)
    model.collect(env)
    rewards = model.buffer.rewards
    assert (rewards[0] == 0).all() and (rewards[2] == 0).all()  # games still running
    if cut_as_loss:
        assert (rewards[1] == -1).all() and (rewards[3] == -1).all()
    else:  # the value of the cut game's last observation, discounted
        assert (rewards[1] != 0).all() and (rewards[1].abs() < 1).all()


def test_bf16_is_refused_clearly_where_the_cpu_lacks_it(monkeypatch):
    from machu_env.train.ppo import ppo

    monkeypatch.setattr(ppo, "bf16_supported", lambda: False)
    with pytest.raises(ValueError, match="bfloat16"):
        PPO(new_net(net_config([8]), 0), PPOSettings(precision="bf16"))
    with pytest.raises(ValueError, match="precision"):
        PPO(new_net(net_config([8]), 0), PPOSettings(precision="fp8"))


def test_league_run_trains_exploiters_and_writes_a_ratings_table(tmp_path):
    out = tmp_path / "league"
    config = TrainConfig(players=2, timesteps=2048, seed=1, out=str(out), n_envs=16, n_steps=32,
                         batch_size=256, n_epochs=1, net_arch="16,16", eval_every=1024,
                         eval_games=16, snapshot_every=1024, max_snapshots=2, league=True,
                         exploiter_every=1024, exploiter_steps=512, max_exploiters=1,
                         device="cpu", threads=1, imitate="")
    summary = train(config, verbose=False)
    assert summary["timesteps"] == 2048 and summary["exploiter_seconds"] >= 0
    exploiters = sorted(p.name for p in (out / "exploiters").iterdir())
    assert exploiters == ["step_1024.safetensors"]  # one kept (the run ends at 2048)
    table = json.loads((out / "league.json").read_text())["table"]
    members = {row["member"] for row in table}
    assert {"main", "random", "builder", "gold", "exploiter:1024"} <= members
    assert any(m.startswith("snapshot:") for m in members)
    for row in table:
        if row["member"] != "main":
            lo, hi = row["ci95"]
            assert lo <= row["main_win_share"] <= hi
    ordinals = [row["ordinal"] for row in table]
    assert ordinals == sorted(ordinals, reverse=True)


def test_frozen_policies_stay_in_the_pool_and_the_league_table(tmp_path):
    """``frozen``: agent files that join the pool for the whole run, sharing the exploiters'
    share; a version-1 file joins a version-2 run widened; bad names are refused before
    anything is written."""
    first = tmp_path / "first"
    base = dict(players=2, seed=1, n_envs=16, n_steps=32, batch_size=256, n_epochs=1,
                net_arch="16,16", eval_games=8, snapshot_every=1024, max_snapshots=2,
                device="cpu", threads=1, imitate="")
    train(TrainConfig(timesteps=512, out=str(first), eval_every=512, **base), verbose=False)
    frozen = first / "latest.safetensors"  # a version-1 file
    out = tmp_path / "run"
    config = TrainConfig(timesteps=1024, out=str(out), eval_every=1024, league=True,
                         exploiter_every=10**6, exploiter_share=0.4, observation=2,
                         frozen=f"policy:{frozen}", **base)
    trainer = Trainer(config, verbose=False)
    assert len(trainer.frozen) == 1 and trainer.frozen[0].config["obs_size"] == 417
    assert trainer.env.pool.bank.names == ["self", "frozen"]
    chances = trainer.env.probabilities()  # the default pool's self weight, shared 0.6 : 0.4
    assert chances["snapshot:1"] / chances["snapshot:0"] == pytest.approx(0.4 / 0.6, rel=1e-6)
    trainer.run()
    table = json.loads((out / "league.json").read_text())["table"]
    assert "frozen:0" in {row["member"] for row in table}
    for bad, message in [("ppo-9p", "frozen 'ppo-9p' is neither"),
                         (",".join(["ppo-2p"] * 17), "at most 16")]:
        with pytest.raises(ValueError, match=message):
            Trainer(TrainConfig(timesteps=512, out=str(tmp_path / "bad"), frozen=bad, **base),
                    verbose=False)
        assert not (tmp_path / "bad").exists()


def tiny_league(tmp_path, timesteps: int = 1024, **settings) -> TrainConfig:
    """A league run small enough for a test: an exploiter every 512 steps, one evaluation and
    one snapshot at the end."""
    return TrainConfig(players=2, timesteps=timesteps, seed=1, out=str(tmp_path / "l"),
                       n_envs=16, n_steps=32, batch_size=256, n_epochs=1, net_arch="16,16",
                       eval_every=timesteps, eval_games=4, snapshot_every=timesteps, league=True,
                       exploiter_every=512, exploiter_steps=512, device="cpu", threads=1,
                       imitate="", **settings)


@pytest.mark.parametrize("greedy", [False, True])
def test_league_exploiters_face_the_main_agents_sampled_or_greedy_play(tmp_path, monkeypatch,
                                                                        greedy):
    from machu_env.train.probe import exploit as exploit_module

    seen = []
    original = exploit_module.train_against

    def spy(bank, *args, **kwargs):
        seen.append(bank.deterministic.tolist())
        return original(bank, *args, **kwargs)

    monkeypatch.setattr(exploit_module, "train_against", spy)
    config = tiny_league(tmp_path, exploit_greedy=greedy)
    train(config, verbose=False)
    assert seen == [[greedy]]


@pytest.mark.parametrize("kind", ["learner", "probe"])
def test_league_exploiters_train_with_the_learners_or_the_probes_settings(tmp_path, monkeypatch,
                                                                          kind):
    """exploiter_ppo "probe": a regularised learner's exploiters train as machu exploit's do
    (clip 0.2, 4 epochs), on the learner's rollout size; "learner": with its own settings."""
    from machu_env.train.probe import exploit as exploit_module

    seen = []
    original = exploit_module.train_against

    def spy(bank, *args, **kwargs):
        seen.append(kwargs["settings"])
        return original(bank, *args, **kwargs)

    monkeypatch.setattr(exploit_module, "train_against", spy)
    config = tiny_league(tmp_path, clip_range=0.1, exploiter_ppo=kind)
    train(config, verbose=False)
    (settings,) = seen
    assert (settings.n_envs, settings.n_steps, settings.batch_size) == (16, 32, 256)
    assert (settings.clip_range, settings.n_epochs) == ((0.1, 1) if kind == "learner"
                                                         else (0.2, 4))
    with pytest.raises(ValueError, match="exploiter_ppo must be one of learner, probe"):
        TrainConfig(exploiter_ppo="exploiter").check()


@pytest.mark.parametrize("start", ["main", "last"])
def test_league_exploiters_start_from_the_main_agent_or_the_newest_exploiter(tmp_path,
                                                                             monkeypatch, start):
    """exploiter_init "main": every exploiter starts from the frozen main agent it trains
    against; "last": from the newest exploiter (the first one from the main agent)."""
    import torch

    from machu_env.train.probe import exploit as exploit_module

    calls = []
    original = exploit_module.train_against

    def flat(net):
        return torch.cat([p.detach().flatten() for p in net.parameters()]).clone()

    def spy(bank, *args, **kwargs):
        main, warm = flat(bank.nets[0]), flat(kwargs["warm_start"])
        run = original(bank, *args, **kwargs)
        calls.append((main, warm, flat(run.model.net)))
        return run

    monkeypatch.setattr(exploit_module, "train_against", spy)
    config = tiny_league(tmp_path, timesteps=1536, exploiter_init=start)
    train(config, verbose=False)
    assert len(calls) == 2
    (main1, warm1, trained1), (main2, warm2, _) = calls
    assert torch.equal(warm1, main1)  # the first one always starts from the main agent
    assert not torch.equal(main2, trained1)  # (the main agent and the exploiter differ)
    assert torch.equal(warm2, main2 if start == "main" else trained1)
    with pytest.raises(ValueError, match="exploiter_init must be one of main, last"):
        TrainConfig(exploiter_init="first").check()


def test_exploit_probe_trains_and_reports_for_any_agent(tmp_path):
    summary = exploit("gold", players=2, steps=1024, seed=0, out=tmp_path / "gold",
                      eval_games=40, settings=SMALL, verbose=False)
    assert summary["agent"] == "gold" and not summary["warm_start"]
    lo, hi = summary["ci95"]
    assert 0 <= lo <= summary["exploiter_win_share"] <= hi <= 1
    for name in ("curve.csv", "curve.png", "summary.json", "exploiter.safetensors"):
        assert (tmp_path / "gold" / name).is_file()
    # a trained agent is played by a bank, deterministically, and warm-starts the exploiter
    pool, bank, net = opponent_for("ppo-2p", 2)
    assert pool == "self:1" and bank.deterministic.all() and net is not None
    s = exploit("ppo-2p", players=2, steps=512, eval_games=20,
                settings=PPOSettings(n_envs=16, n_steps=32, batch_size=512, n_epochs=1),
                verbose=False)
    assert s["warm_start"] and s["steps"] == 512
    # any other agent is asked one decision at a time through Game
    _, bank, _ = opponent_for("mcts", 2)
    assert isinstance(bank, AgentBank)
    with pytest.raises(ValueError, match="unknown agent"):
        opponent_for("chess", 2)


def test_an_exploiter_of_a_deterministic_agent_is_evaluated_without_sampling():
    """The evaluation is deterministic on both sides: the same seeds give the same results."""
    _, bank, _ = opponent_for("ppo-2p", 2)
    first = _nets(1, 256)[0]
    predict = PPO(first, PPOSettings(n_envs=4, n_steps=4, batch_size=16)).predict
    a = game_results(predict, bank, 30, 2, seed=3)
    b = game_results(predict, bank, 30, 2, seed=3)
    assert (a == b).all()


def test_a_sampled_probe_plays_the_policy_seeded_and_sampling():
    """--sampled: the probed policy samples (seeded), so the same seeds give the same games,
    other seeds other games, and the exploiter's results differ from deterministic play."""
    from machu_env.train.probe.exploit_eval import evaluate_exploiter

    _, bank, _ = opponent_for("ppo-2p", 2, deterministic=False)
    assert not bank.deterministic.any()
    net = opponent_for("ppo-2p", 2)[2]  # the policy itself as the exploiter
    det = evaluate_exploiter(net, "ppo-2p", 2, 120, seed=4)
    a = evaluate_exploiter(net, "ppo-2p", 2, 120, seed=4, sampled=True)
    b = evaluate_exploiter(net, "ppo-2p", 2, 120, seed=4, sampled=True)
    c = evaluate_exploiter(net, "ppo-2p", 2, 120, seed=5, sampled=True)
    assert (a == b).all() and (a != c).any() and (a != det).any()
    s = exploit("ppo-2p", players=2, steps=512, eval_games=20, sampled=True,
                settings=PPOSettings(n_envs=16, n_steps=32, batch_size=512, n_epochs=1),
                verbose=False)
    assert s["agent_play"] == "sampled" and s["warm_start"]
    with pytest.raises(ValueError, match="needs a trained policy"):
        exploit("gold", players=2, steps=512, sampled=True, verbose=False)


def test_machu_exploit_reports_bad_input_in_one_line(tmp_path):
    runner = CliRunner()
    r = runner.invoke(app, ["exploit", "--agent", "chess", "--steps", "10"])
    assert r.exit_code != 0 and "unknown agent" in r.output
    r = runner.invoke(app, ["exploit", "--agent", "gold", "--precision", "fp8"])
    assert r.exit_code != 0 and "precision" in r.output
    r = runner.invoke(app, ["exploit", "--agent", "gold", "--batch-size", "1000"])
    assert r.exit_code != 0 and "must divide" in r.output
    r = runner.invoke(app, ["exploit", "--agent", "gold", "--sampled"])
    assert r.exit_code == 2 and "needs a trained policy" in r.output
    r = runner.invoke(app, ["exploit", "--agent", "gold", "--reward", "elo"])
    assert r.exit_code == 2 and "reward must be win or score" in r.output
    r = runner.invoke(app, ["exploit", "--agent", "gold", "--n-epochs", "0"])
    assert r.exit_code == 2 and "--n-epochs" in r.output
    assert "--n-epochs must be an int in 1..100, got 0" in r.output
    r = runner.invoke(app, ["exploit", "--agent", "random", "--steps", "512", "--n-envs", "16",
                            "--n-steps", "32", "--batch-size", "256", "--eval-games", "10",
                            "--n-epochs", "1", "--cut-as-loss", "--reward", "score",
                            "--out", str(tmp_path / "x")])
    assert r.exit_code == 0, r.output[-2000:]
    summary = json.loads((tmp_path / "x" / "summary.json").read_text())
    assert summary["eval_games"] == 10 and summary["cut_as_loss"] is True
    assert summary["n_epochs"] == 1
    assert summary["reward"] == "score"
    assert 0 <= summary["cut_share"] <= 1
