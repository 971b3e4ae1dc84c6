"""``PolicyAgent``: a trained policy (an agent file, ``policy_file.py``) as an agent.

It sees exactly what the environments give a learner: ``Game.observation(player)`` and the legal
action mask; it plays as its file says (``policy_file``: argmax by default, or sampling at a
temperature), or as ``deterministic``/``temperature`` override. A population file plays one
member per game, drawn from the agent's own seeded generator.
Agent files (``.safetensors``) hold data only. A Stable-Baselines3 ``.zip`` is unpickled when
loaded, so it can run code: it is refused unless ``trust_pickle=True``. Needs torch (the
``train`` extra).
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from machu_env._extras import install_hint
from machu_env.agents import policy_file as F
from machu_env.core.game import Game

_CACHE: OrderedDict[tuple[str, str], Any] = OrderedDict()  # (content hash, device) -> net
_CACHE_SIZE = 8


class PolicyAgent:
    """Load a policy or a population from ``path`` (``.safetensors`` agent file; an sb3 ``.zip``
    only with ``trust_pickle=True``) and play it as the file says (its ``play`` temperature:
    0 argmax, else sampling from softmax(logits / T)). ``deterministic=True``/``False`` or a
    ``temperature`` overrides the file for every member. A population draws one member at its
    first decision, then again whenever a new game starts (``new_game()``, or a game whose
    history is shorter than the last one seen), from the agent's own generator."""

    def __init__(self, path: str | Path, seed: int = 0, deterministic: bool | None = None,
                 device: str = "cpu", trust_pickle: bool = False,
                 temperature: float | None = None) -> None:
        path = Path(path)
        try:
            import torch  # noqa: F401
        except ImportError:
            raise ValueError("trained agents need torch: " + install_hint("train")) from None
        if deterministic is not None and temperature is not None:
            raise ValueError("give deterministic or temperature, not both")
        if deterministic is not None and not isinstance(deterministic, bool):
            raise ValueError(f"deterministic must be true or false, got {deterministic!r}")
        override = F.check_play({"temperature": temperature}, "temperature") \
            if temperature is not None else None
        if deterministic is not None:
            override = 0.0 if deterministic else 1.0
        members, self.info = load_members(path, device, trust_pickle)
        self.members = [(net, override if override is not None else t, w)
                        for net, t, w in members]
        self.weights = np.array([w for _, _, w in self.members], dtype=np.float64)
        self.device = device
        self.rng = np.random.default_rng(seed)
        self.name = f"policy:{path.stem}"
        self._member = 0 if len(self.members) == 1 else -1
        self._seen = 0

    @property
    def is_population(self) -> bool:
        """Whether the file holds several policies (one is drawn per game)."""
        return len(self.members) > 1

    @property
    def net(self):
        """The policy network (a single policy; ``None`` for a population: see ``members``)."""
        return self.members[0][0] if not self.is_population else None

    @property
    def temperature(self) -> float:
        """The play temperature of the member playing now (0: argmax)."""
        return self.members[max(self._member, 0)][1]

    @property
    def deterministic(self) -> bool:
        """Whether the member playing now takes its most probable legal action."""
        return self.temperature == 0

    def new_game(self) -> None:
        """A new game starts: a population draws its member again at the next decision."""
        if self.is_population:
            self._member = -1

    def _current(self, game: Game):
        if self.is_population:
            n = len(game.history)
            if self._member < 0 or n < self._seen:
                self._member = int(self.rng.choice(len(self.members), p=self.weights))
            self._seen = n
        return self.members[self._member]

    def probabilities(self, game: Game) -> np.ndarray:
        """The masked policy's probability of every action id for the deciding player (the
        network's softmax at temperature 1; of the member playing this game)."""
        return self._probabilities(self._current(game)[0], game)

    def _probabilities(self, net, game: Game, temperature: float = 1.0) -> np.ndarray:
        import torch

        version = F.observation_version(net.config)  # v1 or v2, as the file's network reads
        obs = torch.as_tensor(game.observation(game.current_player, version),
                              device=self.device)
        mask = torch.as_tensor(game.action_mask().astype(bool), device=self.device)
        with torch.no_grad():
            return net.probabilities(obs.unsqueeze(0), mask.unsqueeze(0),
                                     temperature)[0].cpu().numpy()

    def act(self, game: Game) -> int:
        """The action id for the deciding player of ``game``, played as the file says."""
        net, temperature, _ = self._current(game)
        if temperature == 0:
            probs = self._probabilities(net, game)
            return int(np.argmax(probs))  # (the first of equal maxima, as torch.argmax)
        p = self._probabilities(net, game, temperature).astype(np.float64)
        return int(self.rng.choice(len(p), p=p / p.sum()))


def load_members(path: Path, device: str = "cpu", trust_pickle: bool = False):
    """([(PolicyNet, temperature, weight), ...], info) of an agent file, cached by the file's
    content (a file replaced at the same path is read again)."""
    data = F.read_bytes(path)
    key = (F.digest(data), device)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    if path.suffix == ".zip" or data[:2] == b"PK":
        model = F.load_sb3_zip(path, trust_pickle=trust_pickle, device="cpu")
        config = F.sb3_config(model.policy)
        tensors = {k: v for k, v in model.policy.state_dict().items()
                   if k in F.expected_shapes(config)}
        info = {"source": "sb3 zip", "num_timesteps": int(model.num_timesteps)}
        members = [(tensors, config, info, 0.0, 1.0)]
    else:
        members, info = F.parse_members(data, str(path))
    entry = ([(F.build_net(tensors, config).to(device), t, w)
              for tensors, config, _, t, w in members], info)
    _CACHE[key] = entry
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return entry


def load_net(path: Path, device: str = "cpu", trust_pickle: bool = False):
    """(PolicyNet, info) of a single-policy agent file (ValueError for a population)."""
    members, info = load_members(path, device, trust_pickle)
    if len(members) != 1:
        raise ValueError(f"{path} is a population of {len(members)} policies; this needs one "
                         "policy")
    return members[0][0], info
