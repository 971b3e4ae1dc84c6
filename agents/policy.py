"""``PolicyAgent``: a trained policy (an agent file, ``agents/policy_file.py``) as an agent.

It sees exactly what the environments give a learner: ``Game.observation(player)`` and the legal
action mask; it plays the most probable legal action (or samples, ``deterministic=False``).
Agent files (``.safetensors``) hold data only. A Stable-Baselines3 ``.zip`` is unpickled when
loaded, so it can run code: it is refused unless ``trust_pickle=True``. Needs torch (the
``train`` extra).
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from machu_env import Game

from . import policy_file as F

_CACHE: OrderedDict[tuple[str, str], Any] = OrderedDict()  # (content hash, device) -> net
_CACHE_SIZE = 8


class PolicyAgent:
    """Load a policy from ``path`` (``.safetensors`` agent file; an sb3 ``.zip`` only with
    ``trust_pickle=True``)."""

    def __init__(self, path: str | Path, seed: int = 0, deterministic: bool = True,
                 device: str = "cpu", trust_pickle: bool = False) -> None:
        path = Path(path)
        try:
            import torch  # noqa: F401
        except ImportError:
            raise ValueError("trained agents need torch: pip install 'machu-env[train]'") from None
        self.net, self.info = load_net(path, device, trust_pickle)
        self.device = device
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic
        self.name = f"policy:{path.stem}"

    def probabilities(self, game: Game) -> np.ndarray:
        """The masked policy's probability of every action id for the deciding player."""
        import torch

        obs = torch.as_tensor(game.observation(game.current_player), device=self.device)
        mask = torch.as_tensor(game.action_mask().astype(bool), device=self.device)
        with torch.no_grad():
            return self.net.probabilities(obs.unsqueeze(0), mask.unsqueeze(0))[0].cpu().numpy()

    def act(self, game: Game) -> int:
        probs = self.probabilities(game)
        if self.deterministic:
            return int(np.argmax(probs))  # (the first of equal maxima, as torch.argmax)
        p = probs.astype(np.float64)
        return int(self.rng.choice(len(p), p=p / p.sum()))


def load_net(path: Path, device: str = "cpu", trust_pickle: bool = False):
    """(PolicyNet, info) for an agent file, cached by the file's content (a file replaced at
    the same path is read again)."""
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
    else:
        tensors, config, info = F.parse(data, str(path))
    entry = (F.build_net(tensors, config).to(device), info)
    _CACHE[key] = entry
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return entry
