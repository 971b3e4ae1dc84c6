"""Agent files whose policy and value heads share one trunk (``config["shared"]``): written,
read, played, batched in a bank and widened like the two-network files; bad shapes refused."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from train_kit import tiny  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.agents import make_agent, policy_file  # noqa: E402
from machu_env.train.ppo.bank import PolicyBank  # noqa: E402
from machu_env.train.run.config import TrainConfig  # noqa: E402


def shared_net(seed: int = 0, layers=(32, 16), observation: int = 2):
    return policy_file.new_net(policy_file.net_config(list(layers), observation=observation,
                                                      shared=True), seed)


def test_a_shared_trunk_file_round_trips_and_plays(tmp_path):
    net = shared_net()
    assert net.config["shared"] == [32, 16] and net.config["pi"] == []
    assert sorted(net.state_dict()) == sorted(policy_file.expected_shapes(net.config))
    path = policy_file.save(tmp_path / "trunk.safetensors", net.state_dict(), net.config)
    tensors, config, _ = policy_file.parse(path.read_bytes())
    assert config == net.config
    assert "mlp_extractor.shared_net.0.weight" in tensors
    obs = torch.rand(6, net.config["obs_size"])
    logits, values = net(obs)
    assert torch.equal(logits, net.logits(obs)) and torch.equal(values, net.values(obs))
    agent = make_agent(f"policy:{path}", seed=0)
    game = Game(2, seed=3)
    for _ in range(30):
        game.play(agent.act(game))  # play() raises on an illegal action


def test_a_bank_plays_a_shared_trunk_as_the_net_does():
    nets = [shared_net(seed) for seed in range(3)]
    bank = PolicyBank(nets, deterministic=True)
    rng = np.random.default_rng(0)
    for rows in (4, 300):  # both ways the bank computes
        obs = rng.random((rows, nets[0].config["obs_size"]), dtype=np.float32)
        masks = np.ones((rows, 157), dtype=np.bool_)
        which = rng.integers(0, 3, rows)
        expected = np.array([int(nets[w].logits(torch.from_numpy(obs[k:k + 1])).argmax())
                             for k, w in enumerate(which)])
        assert np.array_equal(bank(obs, masks, which), expected)


def test_widening_a_shared_trunk_keeps_its_play():
    narrow = shared_net(observation=1)
    wide = policy_file.widen_input(narrow, 2)
    obs = torch.rand(5, wide.config["obs_size"])
    short = obs[:, :narrow.config["obs_size"]]  # the new inputs have zero weights
    assert torch.allclose(wide.logits(obs), narrow.logits(short), atol=1e-6)
    assert torch.allclose(wide.values(obs), narrow.values(short), atol=1e-6)


@pytest.mark.parametrize("config,message", [
    ({"pi": [], "vf": [64]}, "config['pi'] must list 1..8"),  # no trunk: each head needs layers
    ({"shared": [0], "pi": [], "vf": []}, "config['shared'] must list 0..8"),
    ({"shared": "256", "pi": [], "vf": []}, "config['shared'] must list"),
])
def test_bad_trunk_shapes_are_refused(config, message):
    full = {"obs_size": 377, "num_actions": 157, "activation": "tanh", **config}
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        policy_file.check_config(full, "f")


def test_the_trainer_reads_shared_in_net_arch():
    config = TrainConfig(net_arch="shared:128,64", observation=2)
    assert config.network()["shared"] == [128, 64] and config.network()["pi"] == []
    assert "shared" not in TrainConfig(net_arch="128,64").network()
    with pytest.raises(ValueError, match="shared:256,256"):
        TrainConfig(net_arch="shared:").layers()


def test_a_new_network_has_the_shared_trunk_by_default(tmp_path):
    """``machu train`` with no ``--net-arch`` builds the shared trunk and records it."""
    from machu_env.train.run.selfplay import Trainer

    assert TrainConfig().network()["shared"] == [256, 256]
    t = Trainer(tiny(tmp_path / "r", net_arch=""), verbose=False)
    assert t.config.net_arch == "shared:256,256" and t.model.net.shared
    saved = TrainConfig.load(tmp_path / "r" / "config.json")
    assert saved.net_arch == "shared:256,256"  # a resumed run keeps it if the default changes


@pytest.mark.parametrize("init,arch", [("ppo-2p", "256,256"), ("shared", "shared:64,32")])
def test_init_keeps_the_shape_of_the_policy_it_starts_from(tmp_path, init, arch):
    """With ``--init`` and no ``--net-arch`` the run takes the init file's network (a shipped
    two-network agent stays two networks); a ``--net-arch`` that differs is refused."""
    from machu_env.train.run.selfplay import Trainer

    if init == "shared":
        net = shared_net(layers=(64, 32), observation=1)
        init = str(policy_file.save(tmp_path / "s.safetensors", net.state_dict(), net.config))
    t = Trainer(tiny(tmp_path / "r", net_arch="", init=init), verbose=False)
    assert t.config.net_arch == arch
    with pytest.raises(ValueError, match="is not this run's"):
        Trainer(tiny(tmp_path / "x", net_arch="shared:16", init=init), verbose=False)


def test_init_from_a_network_no_net_arch_names_is_refused_and_writes_nothing(tmp_path):
    """A policy and value network of different sizes has no ``--net-arch``: with ``--init`` and
    no ``--net-arch`` the run is refused, naming the shapes, before the run folder exists."""
    from machu_env.train.run.selfplay import Trainer

    net = policy_file.new_net({**policy_file.net_config([32], observation=1), "vf": [16]}, 0)
    init = str(policy_file.save(tmp_path / "odd.safetensors", net.state_dict(), net.config))
    with pytest.raises(ValueError, match=r"has no --net-arch of machu train"):
        Trainer(tiny(tmp_path / "r", net_arch="", init=init), verbose=False)
    assert not (tmp_path / "r").exists()
