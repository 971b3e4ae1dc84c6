"""``PolicyAgent``: a trained MaskablePPO policy (a Stable-Baselines3 ``.zip``) as an agent.

It sees exactly what the environments give a learner: ``Game.observation(player)`` and the legal
action mask; it plays the most probable legal action (or samples, ``deterministic=False``).
Needs the ``train`` extra.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from machu_env import OBS_SIZE, Game


class PolicyAgent:
    """Load a MaskablePPO model from ``path`` (a ``.zip`` saved by SB3)."""

    def __init__(self, path: str | Path, seed: int = 0, deterministic: bool = True,
                 device: str = "cpu") -> None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no policy file at {path} (expected a MaskablePPO .zip)")
        self.model = _load(str(path.resolve()), device)
        shape = self.model.observation_space.shape
        if shape != (OBS_SIZE,):
            raise ValueError(f"{path}: the policy expects observations of shape {shape}, "
                             f"machu-env gives ({OBS_SIZE},)")
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic
        self.name = f"policy:{path.stem}"

    def act(self, game: Game) -> int:
        obs = game.observation(game.current_player)
        mask = game.action_mask().astype(bool)
        if self.deterministic:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
            return int(np.asarray(action).item())
        import torch

        with torch.no_grad():  # sample from the masked policy with this agent's own generator
            dist = self.model.policy.get_distribution(
                self.model.policy.obs_to_tensor(obs)[0], action_masks=mask)
            probs = dist.distribution.probs.cpu().numpy().reshape(-1).astype(np.float64)
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))


@lru_cache(maxsize=8)
def _load(path: str, device: str):
    """Load a model once per process (tournaments build agents for every game)."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        raise ValueError("PolicyAgent needs the train extra: pip install 'machu-env[train]'") from e
    try:
        return MaskablePPO.load(path, device=device)
    except Exception as e:  # SB3 raises many kinds for a file that is not a checkpoint
        raise ValueError(f"{path} is not a MaskablePPO checkpoint ({e})") from None
