"""RLlib's policy as an agent (the ``rllib`` extra): the action-masking ``RLModule`` that
``machu_env.envs.rllib`` trains, and the agent files of its checkpoints.

``MaskedActorCritic`` is the same actor-critic MLP as the project's own agent files
(``policy_file.PolicyNet``: separate policy and value networks), with the illegal actions'
logits set to -1e8 in every forward pass (sampling, inference and the loss), so its weights
export to a data-only agent file (``export_policy``) that ``make_agent`` plays as
``rllib:<checkpoint folder>`` (``policy_path``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from machu_env._extras import install_hint

try:
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule
except ImportError:  # pragma: no cover - exercised where the extra is missing
    raise ImportError("RLlib policies need the rllib extra: "
                      + install_hint("rllib")) from None

MODULE_ID = "shared"  # the one policy every seat plays
POLICY_FILE = "policy.safetensors"  # the data-only agent file written beside a checkpoint
MASKED_LOGIT = -1e8  # as the project's own trainer and sb3's MaskableCategorical


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO's RLModule: ``PolicyNet`` (``model_config``: ``{"layers": [256, 256],
    "activation": "tanh"}``) with masked logits. Observations are the env's dicts."""

    def setup(self) -> None:
        from machu_env.agents import policy_file
        from machu_env.agents.policy_file import net_config, new_net

        cfg = dict(self.model_config or {})
        layers = [int(x) for x in cfg.get("layers", [256, 256])]
        self.net_config = policy_file.check_config(
            net_config(layers, cfg.get("activation", "tanh")), "MaskedActorCritic")
        self.net = new_net(self.net_config, int(cfg.get("seed", 0)))

    def _masked_logits(self, batch: dict[str, Any]):
        import torch

        obs = batch[Columns.OBS]
        logits = self.net.logits(obs["observations"])
        return torch.where(obs["action_mask"] > 0.5, logits,
                           torch.full_like(logits, MASKED_LOGIT))

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch)}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None):
        obs = batch[Columns.OBS]["observations"]
        return self.net.values(obs).squeeze(-1)


def export_policy(module: MaskedActorCritic, path: str | Path,
                  info: dict[str, Any] | None = None) -> Path:
    """Write ``module``'s weights as a data-only agent file (``policy_file`` format)."""
    from machu_env.agents import policy_file

    weights = {k: v.detach().float().cpu() for k, v in module.net.state_dict().items()}
    policy_file.save(path, weights, module.net_config, info or {})
    return Path(path)


def policy_path(checkpoint: str | Path, trust_pickle: bool = False) -> Path:
    """The agent file of an RLlib checkpoint folder: the data-only ``policy.safetensors`` that
    ``train.rllib_ppo`` writes beside each checkpoint, or, for any other checkpoint of the
    project's ``MaskedActorCritic`` (a script of your own that called ``save_to_path``), its
    module state converted to an agent file (in the temp folder) — RLlib writes that state as
    a pickle, so only with ``trust_pickle``. ValueError naming what is expected otherwise."""
    folder = Path(checkpoint)
    path = folder / POLICY_FILE if folder.is_dir() else folder
    if path.is_file() and path.suffix == ".safetensors":
        return path
    modules = sorted(p.parent for p in folder.glob("**/rl_module/*/module_state.*")) \
        if folder.is_dir() else []
    if modules and trust_pickle:
        return _converted(modules[0])
    found = (f"; it holds RLlib module state ({modules[0].relative_to(folder)}), a pickle: "
             "pass trust_pickle=True (--trust-pickle) for a checkpoint you trust"
             if modules else "")
    raise ValueError(f"no RLlib policy at {checkpoint}: expected a checkpoint folder written "
                     f"by `python -m machu_env.train.ppo.rllib_ppo` (it holds {POLICY_FILE}, the "
                     "data-only copy of the module's weights) or an RLlib checkpoint of "
                     f"MaskedActorCritic{found}")


def _converted(module_dir: Path) -> Path:
    """The weights of a ``MaskedActorCritic`` checkpoint as an agent file, cached by the
    checkpoint's path and time in this process's private folder (``mkdtemp``): no other user
    can plant a converted file."""
    import hashlib

    from ray.rllib.core.rl_module.rl_module import RLModule

    from machu_env._cache import private_temp_folder

    stamp = f"{module_dir.resolve()}:{module_dir.stat().st_mtime_ns}".encode()
    out = private_temp_folder("rllib") / hashlib.sha256(stamp).hexdigest()[:16]
    path = out / POLICY_FILE
    if not path.is_file():
        module = RLModule.from_checkpoint(str(module_dir.resolve()))
        if not isinstance(module, MaskedActorCritic):
            raise ValueError(f"{module_dir}: an RLlib module of class "
                             f"{type(module).__name__}, not "
                             "machu_env.agents.rllib_policy.MaskedActorCritic")
        out.mkdir(parents=True, exist_ok=True)
        export_policy(module, path, {"converted_from": str(module_dir)})
    return path
