"""Agents that play as shipped: the ``play`` temperature of an agent file, population
files (several policies, one agent), the Nash meta-solver, the regularised trainer's settings and
the probe's margins."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from machu_env import Game  # noqa: E402
from machu_env.agents import make_agent, policy_file, shipped_policies  # noqa: E402
from machu_env.agents.policy import PolicyAgent  # noqa: E402
from machu_env.train.ppo.bank import PolicyBank  # noqa: E402
from machu_env.train.probe.population import nash_mixture, payoffs  # noqa: E402


def _shipped(name: str):
    tensors, config, info = policy_file.parse(shipped_policies()[name].read_bytes())
    return tensors, config, info


def _game_after(moves: int, seed: int = 3) -> Game:
    game = Game(2, seed=seed)
    rnd = make_agent("random", seed)
    for _ in range(moves):
        game.play(rnd.act(game))
    return game


def test_a_file_says_how_its_agent_plays_and_every_layer_meets_it_so(tmp_path):
    tensors, config, info = _shipped("ppo-2p")
    hot = policy_file.save(tmp_path / "hot.safetensors", tensors, config, info,
                           play={"temperature": 1.0})
    cold = policy_file.save(tmp_path / "cold.safetensors", tensors, config, info)
    game = _game_after(10)
    greedy = make_agent(f"policy:{cold}", seed=0)
    assert greedy.temperature == 0 and greedy.deterministic
    assert all(greedy.act(game) == greedy.act(game) for _ in range(5))
    sampler = make_agent(f"policy:{hot}", seed=0)
    assert sampler.temperature == 1.0
    games = [_game_after(10, seed) for seed in range(30)]
    picks = [sampler.act(g) for g in games]
    assert all(a in g.legal_action_ids() for a, g in zip(picks, games, strict=True))
    assert picks != [greedy.act(g) for g in games]  # it samples somewhere
    # an explicit choice overrides the file
    assert make_agent(f"policy:{hot}", seed=0, deterministic=True).temperature == 0
    # the probe's bank plays the file's temperature too
    from machu_env.train.probe.probe_opponent import opponent_for

    _, bank, _ = opponent_for(f"policy:{hot}", 2)
    assert bank.temperatures.tolist() == [1.0]
    _, bank, _ = opponent_for(f"policy:{hot}", 2, deterministic=True)
    assert bank.temperatures.tolist() == [0.0]


def test_temperature_sharpens_or_flattens_the_policy():
    agent = make_agent("ppo-2p", seed=0)
    game = _game_after(6)
    p1 = agent._probabilities(agent.net, game, 1.0)
    p_cold = agent._probabilities(agent.net, game, 0.25)
    p_hot = agent._probabilities(agent.net, game, 4.0)
    assert abs(p1.sum() - 1) < 1e-5 and abs(p_cold.sum() - 1) < 1e-5
    assert p_cold.max() >= p1.max() >= p_hot.max()
    assert np.argmax(p_cold) == np.argmax(p1)
    assert set(np.flatnonzero(p_hot > 1e-9)) <= set(game.legal_action_ids())


@pytest.mark.parametrize("play, message", [
    ({"temperature": -1}, "temperature"), ({"temperature": 1000}, "temperature"),
    ({"temperature": "hot"}, "temperature"), ({"temp": 1}, "temperature"),
    ([1], "temperature")])
def test_a_bad_play_entry_is_refused_naming_the_file(tmp_path, play, message):
    from safetensors.torch import save_file

    tensors, config, _ = _shipped("ppo-2p")
    path = tmp_path / "bad.safetensors"
    save_file(tensors, str(path), metadata={"format": policy_file.FORMAT, "version": "1",
                                            "config": json.dumps(config),
                                            "play": json.dumps(play)})
    with pytest.raises(ValueError, match=f"bad.safetensors.*{message}"):
        make_agent(f"policy:{path}")


def _population(tmp_path, weights, temps=(0.0, 0.0)):
    a, config, _ = _shipped("ppo-2p")
    b, _, _ = _shipped("ppo-3p")
    return policy_file.save_population(
        tmp_path / "pop.safetensors",
        [(a, config, {"name": "ppo-2p"}, temps[0], weights[0]),
         (b, config, {"name": "ppo-3p"}, temps[1], weights[1])], {"note": "test"})


def test_a_population_draws_one_member_per_game_by_its_weights(tmp_path):
    path = _population(tmp_path, (3.0, 1.0))  # normalised to 0.75 / 0.25
    members, info = policy_file.parse_members(path.read_bytes())
    assert [w for *_, w in members] == [0.75, 0.25] and info == {"note": "test"}
    single_a, single_b = make_agent("ppo-2p"), make_agent("ppo-3p")
    drawn = []
    for seed in range(60):
        agent = make_agent(f"policy:{path}", seed=seed)
        assert agent.is_population and agent.net is None
        game = Game(2, seed=seed)
        plays = []
        for _ in range(30):  # one member for the whole game
            action = agent.act(game)
            plays.append(agent._member)
            game.play(action)
        assert len(set(plays)) == 1
        drawn.append(plays[0])
    share = np.mean(np.array(drawn) == 0)
    assert 0.55 < share < 0.92  # 0.75 expected
    # the member plays exactly its own policy
    agent = make_agent(f"policy:{path}", seed=1)
    game = _game_after(8)
    action = agent.act(game)
    assert action == (single_a, single_b)[agent._member].act(game)
    # a new game draws again (from the agent's own generator: the same seed, the same draws)
    seq = []
    for seed in (5, 5):
        agent = make_agent(f"policy:{path}", seed=seed)
        draws = []
        for _ in range(12):
            agent.new_game()
            agent.act(_game_after(4))
            draws.append(agent._member)
        seq.append(draws)
    assert seq[0] == seq[1] and len(set(seq[0])) == 2


def test_a_population_is_played_by_the_probe_with_its_weights(tmp_path):
    from machu_env.train.probe.probe_opponent import opponent_for

    path = _population(tmp_path, (0.5, 0.5), temps=(0.0, 2.0))
    _, bank, net = opponent_for(f"policy:{path}", 2)
    assert bank.num_policies == 2 and bank.weights == [0.5, 0.5]
    assert bank.temperatures.tolist() == [0.0, 2.0] and net is bank.nets[0]
    with pytest.raises(ValueError, match="population of 2"):
        make_agent(f"search:policy:{path}")


def test_damaged_population_files_are_refused(tmp_path):
    from safetensors.torch import save_file

    a, config, _ = _shipped("ppo-2p")
    tensors = {f"members.0.{k}": v for k, v in a.items()}
    for members, message in (
            ([{"config": config, "weight": 0.5}], "summing to 1"),
            ([{"config": config, "weight": 1.0}, {"config": config, "weight": 0.0}],
             "member 1"),
            ([], "1..32 objects"),
            ([{"config": {**config, "pi": [3]}, "weight": 1.0}], "member 0")):
        path = tmp_path / "p.safetensors"
        save_file(tensors, str(path), metadata={
            "format": policy_file.POPULATION_FORMAT, "version": "1",
            "members": json.dumps(members)})
        with pytest.raises(ValueError, match=message):
            make_agent(f"policy:{path}")


def test_the_nash_mixture_of_rock_paper_scissors_is_uniform_and_a_dominant_member_wins():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    x, v = nash_mixture(rps)
    assert np.allclose(x, 1 / 3, atol=1e-6) and abs(v) < 1e-9
    W = np.array([[0.5, 0.9, 0.8], [0.1, 0.5, 0.6], [0.2, 0.4, 0.5]])
    x, v = nash_mixture(payoffs(W, 2))
    assert np.allclose(x, [1, 0, 0]) and v == pytest.approx(0.0)
    # 3 players: the share above break-even, maximin over the tables
    x, v = nash_mixture(payoffs(np.array([[0.5, 0.2], [0.3, 0.4]]), 3))
    assert x.sum() == pytest.approx(1) and v <= max(0.5, 0.4) - 1 / 3


def test_machu_population_measures_solves_and_writes_an_agent(tmp_path):
    from typer.testing import CliRunner

    from machu_env.cli import app

    out = tmp_path / "pop.safetensors"
    r = CliRunner().invoke(app, ["population", "--members", "ppo-2p,ppo-3p", "--games", "12",
                                 "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output[-2000:]
    summary = json.loads(r.stdout)
    assert r.stderr.startswith("population: the Nash mixture plays")
    W = np.array(summary["win_share"])
    assert W.shape == (2, 2) and ((W >= 0) & (W <= 1)).all()
    assert sum(summary["weights"]) == pytest.approx(1)
    agent = make_agent(f"policy:{out}", seed=0)
    assert isinstance(agent, PolicyAgent)
    assert len(agent.members) == sum(w > 0 for w in summary["weights"])
    for args, message in ((["--members", "ppo-2p"], "2..16 members"),
                          (["--members", "ppo-2p,ppo-2p"], "named twice"),
                          (["--members", "ppo-2p,gold"], "one trained policy"),
                          (["--members", "ppo-2p,ppo-3p", "--out", str(tmp_path / "x.json")],
                           ".safetensors")):
        full = ["population", "--games", "2", "--out", str(tmp_path / "y.safetensors"), *args]
        r = CliRunner().invoke(app, full)
        assert r.exit_code != 0 and message in " ".join(r.output.split()), r.output
    r = CliRunner().invoke(app, ["population", "--members", f"ppo-2p,policy:{out}",
                                 "--games", "2", "--out", str(out)])
    assert r.exit_code != 0 and "also an input" in r.output


def test_psro_grows_the_population_by_best_responses(tmp_path):
    """--psro: each iteration trains a best response to the mixture, measures it against the
    mixture and adds it; the payoff matrix grows by one row and column per iteration."""
    from typer.testing import CliRunner

    from machu_env.cli import app

    out = tmp_path / "pop.safetensors"
    r = CliRunner().invoke(app, ["population", "--members", "ppo-2p", "--games", "6",
                                 "--psro", "2", "--psro-steps", "600", "--threads", "1",
                                 "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output[-2000:]
    summary = json.loads(r.stdout)
    assert np.array(summary["win_share"]).shape == (3, 3)
    assert [h["iteration"] for h in summary["history"]] == [0, 1]
    assert summary["history"][0]["warm_start"] == "ppo-2p"
    for h in summary["history"]:
        assert 0 <= h["br_win_share"] <= 1 and h["ci95"][0] <= h["br_win_share"] <= h["ci95"][1]
    assert sum(summary["weights"]) == pytest.approx(1)
    for k in (0, 1):  # each best response is an agent file of its own
        assert isinstance(make_agent(f"policy:{tmp_path / 'pop_psro' / f'br_{k}.safetensors'}"),
                          PolicyAgent)
    assert json.loads((tmp_path / "pop_psro" / "psro.json").read_text())["psro_iterations"] == 2
    agent = make_agent(f"policy:{out}", seed=0)
    assert len(agent.members) == sum(w > 0 for w in summary["weights"])
    r = CliRunner().invoke(app, ["population", "--members", "ppo-2p,ppo-3p", "--games", "2",
                                 "--psro", "15", "--out", str(tmp_path / "z.safetensors")])
    assert r.exit_code != 0 and "1..1 members" in " ".join(r.output.split()), r.output
    assert not (tmp_path / "z.safetensors").exists()


def test_the_bank_samples_at_each_members_temperature():
    net = make_agent("ppo-2p").net
    bank = PolicyBank([net, net], temperatures=[0.0, 50.0], seed=1)
    game = _game_after(6)
    obs = np.repeat(game.observation(game.current_player)[None], 200, 0).astype(np.float32)
    mask = np.repeat(game.action_mask().astype(bool)[None], 200, 0)
    greedy = bank(obs, mask, np.zeros(200, dtype=np.int64))
    hot = bank(obs, mask, np.ones(200, dtype=np.int64))
    assert len(set(greedy.tolist())) == 1 and len(set(hot.tolist())) > 1
    assert mask[0, hot].all()
    with pytest.raises(ValueError, match="temperature"):
        PolicyBank([net], temperatures=[-1.0])


def test_the_magnet_and_the_entropy_schedule_are_checked_and_logged():
    from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net

    for bad in ({"magnet_coef": -1.0}, {"magnet_every": -1}, {"ent_coef_final": -0.5},
                {"ent_coef_final": 11.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            PPOSettings(**bad).check()
    s = PPOSettings(ent_coef=0.1, ent_coef_final=0.0, magnet_coef=0.5, magnet_every=1,
                    n_envs=8, n_steps=8, batch_size=64, n_epochs=1)
    model = PPO(new_net(net_config([8]), 0), s)
    model.progress = 0.75
    assert model.ent_coef_now() == pytest.approx(0.025)
    from machu_env.core.learner_batch import LearnerBatch

    env = LearnerBatch(8, 2, seed=0, pool="random:1")
    env.reset()
    model.start(env)
    model.collect(env)
    stats = model.update()
    assert stats["ent_coef"] == pytest.approx(0.025)
    # the magnet is the policy as it was before this update: the KL starts at 0
    assert stats["magnet_kl"] == pytest.approx(0.0, abs=1e-6)
    model.collect(env)
    assert model.update()["magnet_kl"] >= 0


def test_a_uniform_magnet_is_the_entropy_up_to_a_constant():
    from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net

    model = PPO(new_net(net_config([8]), 0), PPOSettings(magnet_coef=1.0, n_envs=2, n_steps=2,
                                                         batch_size=4))
    logits = torch.randn(5, 157)
    masks = torch.rand(5, 157) < 0.3
    masks[:, 0] = True
    logp = torch.log_softmax(torch.where(masks, logits, torch.tensor(-1e8)), dim=1)
    kl = model._magnet_kl(logp.exp(), logp, None, masks)
    entropy = -(logp.exp() * logp).sum(1)
    assert torch.allclose(kl, torch.log(masks.sum(1).float()) - entropy, atol=1e-5)


def test_the_probe_reports_margins_with_rotated_seats():
    from machu_env.train.ppo.evaluate import game_outcomes

    rnd = np.random.default_rng(0)

    def first_legal(obs, masks):
        return np.array([rnd.choice(np.flatnonzero(m)) for m in masks])

    won, margin, cut = game_outcomes(first_legal, "gold", 9, 3, seed=2)
    assert won.shape == margin.shape == cut.shape == (9,)
    assert not cut.any()  # random play against gold ends
    assert set(won.tolist()) <= {0, 1} and margin.mean() < 0  # random play loses to gold
    assert (margin[won == 1] > -1e-9).all()  # a winner scores at least the others' mean


def test_the_probe_counts_games_cut_at_the_decision_limit():
    """A game still running at the learner's decision limit (here 3 decisions: no game ends so
    soon) is not won, margin 0, and counted as cut: a stalling exploiter is seen as one."""
    from machu_env.train.ppo.evaluate import game_outcomes

    def first_legal(obs, masks):
        return masks.argmax(1)

    won, margin, cut = game_outcomes(first_legal, "gold", 4, 2, seed=1, max_learner_steps=3)
    assert cut.all() and not won.any() and not margin.any()


def test_the_probes_new_options_are_checked_before_any_training(tmp_path):
    from typer.testing import CliRunner

    from machu_env.cli import app

    for args, message in ((["--eval-at", "abc"], "comma-separated integers"),
                          (["--eval-at", "99999999"], "eval_at"),
                          (["--eval-at", "0"], "eval_at")):
        r = CliRunner().invoke(app, ["exploit", "--agent", "gold", "--steps", "1000",
                                     "--out", str(tmp_path / "p"), *args])
        assert r.exit_code != 0 and message in " ".join(r.output.split()), r.output
        assert not (tmp_path / "p").exists()  # refused before anything was written
    with pytest.raises(ValueError, match="not both"):
        PolicyAgent(shipped_policies()["ppo-2p"], deterministic=True, temperature=1.0)
    with pytest.raises(ValueError, match="deterministic"):
        PolicyAgent(shipped_policies()["ppo-2p"], deterministic="yes")
    with pytest.raises(ValueError, match="temperature"):
        PolicyAgent(shipped_policies()["ppo-2p"], temperature=-1)


def test_the_learning_rate_schedule_and_torch_compile_are_checked_and_applied():
    """``learning_rate_final`` (a linear schedule) and ``torch_compile``: bad values refused
    naming the setting; the optimizer's rate follows the run's progress."""
    from machu_env.train.ppo.ppo import PPO, PPOSettings, net_config, new_net

    for bad in ({"learning_rate_final": -0.5}, {"learning_rate_final": 2.0},
                {"torch_compile": "yes"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            PPOSettings(**bad).check()
    s = PPOSettings(learning_rate=1e-3, learning_rate_final=0.0, n_envs=8, n_steps=8,
                    batch_size=64, n_epochs=1)
    model = PPO(new_net(net_config([8]), 0), s)
    model.progress = 0.25
    assert model.learning_rate_now() == pytest.approx(7.5e-4)
    from machu_env.core.learner_batch import LearnerBatch

    env = LearnerBatch(8, 2, seed=0, pool="random:1")
    env.reset()
    model.start(env)
    model.collect(env)
    model.update()
    assert model.optimizer.param_groups[0]["lr"] == pytest.approx(7.5e-4)


def test_machu_train_refuses_a_bad_schedule_in_one_line_and_writes_nothing(tmp_path, capsys):
    from machu_env.cli import main

    out = tmp_path / "run"
    assert main(["train", "--learning-rate-final", "2", "--timesteps", "10", "--out",
                 str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--learning-rate-final" in err[0] and "[0, 1]" in err[0]
    assert not out.exists()


def test_the_loss_reads_the_entropy_of_the_legal_actions_only():
    """``policy_terms``: probabilities 0 on illegal actions, the entropy of the renormalised
    legal distribution, finite gradients (the masked -1e8 entries never make NaN)."""
    from machu_env.train.ppo.ppo import policy_terms

    logits = torch.randn(6, 157, requires_grad=True)
    masks = torch.rand(6, 157) < 0.2
    masks[:, 3] = True
    probs, logp, entropy = policy_terms(logits, masks)
    for row in range(6):
        legal = torch.softmax(logits[row][masks[row]], dim=0)
        assert torch.allclose(probs[row][masks[row]], legal, atol=1e-6)
        assert float(probs[row][~masks[row]].sum()) == 0.0
        assert torch.allclose(entropy[row], -(legal * legal.log()).sum(), atol=1e-5)
    assert torch.allclose(logp.exp(), probs, atol=1e-6)
    (entropy.sum() + logp[:, 3].sum()).backward()
    assert torch.isfinite(logits.grad).all() and float(logits.grad[~masks].abs().sum()) == 0.0
