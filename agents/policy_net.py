"""The network of an agent file as a torch module: ``PolicyNet`` (sb3's layer names, so a
file's tensors load as saved), built, initialised and widened here; ``policy_file`` reads and
writes the files. torch is imported on first use, so reading a file's header needs none."""

from __future__ import annotations

import math
from typing import Any

from machu_env.engine.observation import OBS_SIZES
from machu_env.rules.actions import NUM_ACTIONS


def head_input(config: dict[str, Any]) -> int:
    """The width the policy and value heads read: the shared trunk's output, or the
    observation."""
    shared = config.get("shared")
    return shared[-1] if shared else config["obs_size"]


def head_width(config: dict[str, Any], head: str) -> int:
    """The width of a head's last hidden layer (``"pi"`` or ``"vf"``), what its output reads."""
    return config[head][-1] if config[head] else head_input(config)


def _torch_module():
    import torch

    class PolicyNet(torch.nn.Module):
        """The actor-critic MLP of a policy file (sb3's layer names, so its weights load
        as saved); with ``config["shared"]``, a trunk both heads read."""

        def __init__(self, config: dict[str, Any]) -> None:
            super().__init__()
            act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[config["activation"]]

            def mlp(sizes: list[int], width: int) -> torch.nn.Sequential:
                layers = []
                for size in sizes:
                    layers += [torch.nn.Linear(width, size), act()]
                    width = size
                return torch.nn.Sequential(*layers)

            self.mlp_extractor = torch.nn.Module()
            if config.get("shared"):
                self.mlp_extractor.shared_net = mlp(config["shared"], config["obs_size"])
            self.shared = bool(config.get("shared"))
            self.mlp_extractor.policy_net = mlp(config["pi"], head_input(config))
            self.mlp_extractor.value_net = mlp(config["vf"], head_input(config))
            self.action_net = torch.nn.Linear(head_width(config, "pi"), config["num_actions"])
            self.value_net = torch.nn.Linear(head_width(config, "vf"), 1)
            self.config = config

        def _trunk(self, obs):
            return self.mlp_extractor.shared_net(obs) if self.shared else obs

        def forward(self, obs):
            """(logits, values) for a batch of observations."""
            x = self._trunk(obs)
            logits = self.action_net(self.mlp_extractor.policy_net(x))
            return logits, self.value_net(self.mlp_extractor.value_net(x))

        def logits(self, obs):
            """The policy's logits alone (no value head computed)."""
            return self.action_net(self.mlp_extractor.policy_net(self._trunk(obs)))

        def values(self, obs):
            """The value head's output, ``(B, 1)``."""
            return self.value_net(self.mlp_extractor.value_net(self._trunk(obs)))

        def actor_layers(self) -> list:
            """The policy's linear layers in order (trunk, policy head, output): what a
            ``PolicyBank`` stacks."""
            heads = [self.mlp_extractor.policy_net]
            if self.shared:
                heads.insert(0, self.mlp_extractor.shared_net)
            return [m for h in heads for m in h if isinstance(m, torch.nn.Linear)] \
                + [self.action_net]

        def probabilities(self, obs, masks, temperature: float = 1.0):
            """The masked policy's action probabilities: softmax(logits / temperature) over
            the legal actions (a temperature > 0; the illegal logits are set to -inf after
            the scaling, ``masking.masked_probabilities``, so no weights can make an illegal
            action likely)."""
            from machu_env.agents.masking import masked_probabilities

            return masked_probabilities(self.logits(obs), masks, temperature)

    return PolicyNet


def observation_version(config: dict[str, Any]) -> int:
    """The observation version a policy of this config reads (1 or 2), from its input size."""
    return next(v for v, size in OBS_SIZES.items() if size == config["obs_size"])


def net_config(layers: list[int], activation: str = "tanh", observation: int = 1,
               shared: bool = False) -> dict[str, Any]:
    """Two MLPs of ``layers`` (policy and value), or with ``shared`` one trunk of ``layers``
    that both linear heads read."""
    config = {"obs_size": OBS_SIZES[observation], "num_actions": NUM_ACTIONS,
              "pi": [] if shared else list(layers), "vf": [] if shared else list(layers),
              "activation": activation}
    if shared:
        config["shared"] = list(layers)
    return config


def new_net(config: dict[str, Any], seed: int):
    """A freshly initialised ``PolicyNet`` (sb3's orthogonal initialisation)."""
    import torch

    torch.manual_seed(int(seed))
    net = _torch_module()(config)
    trunk = [(net.mlp_extractor.shared_net, math.sqrt(2))] if net.shared else []
    for module, gain in (*trunk, (net.mlp_extractor.policy_net, math.sqrt(2)),
                         (net.mlp_extractor.value_net, math.sqrt(2)),
                         (net.action_net, 0.01), (net.value_net, 1.0)):
        for layer in module.modules():
            if isinstance(layer, torch.nn.Linear):
                torch.nn.init.orthogonal_(layer.weight, gain=gain)
                layer.bias.data.fill_(0.0)
    return net


def widen_input(net, observation: int):
    """A copy of ``net`` that reads the longer observation version ``observation`` (2 or 3 over
    1 or 2: its first layers get zero weights for the new inputs), so it plays exactly as
    ``net`` did until training gives the new inputs a use."""
    import torch

    if isinstance(observation, bool) or observation not in OBS_SIZES:
        raise ValueError(f"observation must be 1, 2 or 3 (the version), got {observation!r}")
    config = {**net.config, "obs_size": OBS_SIZES[observation]}
    if config["obs_size"] < net.config["obs_size"]:
        raise ValueError("a policy can be widened to a longer observation, not narrowed")
    wide = _torch_module()(config)
    state = {k: v.clone() for k, v in net.state_dict().items()}
    for head in ("shared_net",) if net.shared else ("policy_net", "value_net"):
        key = f"mlp_extractor.{head}.0.weight"  # (the layers that read the observation)
        w = state[key]
        state[key] = torch.cat([w, torch.zeros(w.shape[0], config["obs_size"] - w.shape[1],
                                               dtype=w.dtype)], dim=1)
    wide.load_state_dict(state)
    return wide


def build_net(tensors, config: dict[str, Any]):
    """A ``PolicyNet`` in eval mode holding ``tensors``."""
    net = _torch_module()(config)
    net.load_state_dict(tensors, strict=True)
    net.eval()
    net.requires_grad_(False)  # inference only
    return net
