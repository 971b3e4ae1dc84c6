# Reproduces research/log.md, "Regularised PPO, screened" (2026-11-26/27).
"""1,000-game strength of screened sweep runs, played in batches on the batch engine.

    python research/sweeps/iig_strength.py RUN [RUN ...]   # -> RUN/strength_batched.json each

Each run's ``latest.safetensors`` plays argmax against ``gold`` and against ``ppo-2p-race``
(argmax), 1,000 games each with the seats rotated (``train.evaluate.game_outcomes``, seed 11).
``machu tournament --games 1000`` measures the same thing one decision at a time (the first
runs' ``strength_RIVAL/`` folders); this is its batched equivalent, minutes instead of hours on
a 2-core machine (both for the shipped candidate: the research log)."""

import json
import sys
from pathlib import Path

import torch

from machu_env.agents import policy_file, shipped_policies
from machu_env.agents.masking import masked_argmax
from machu_env.train.ppo.bank import PolicyBank
from machu_env.train.ppo.evaluate import game_outcomes

GAMES, SEED = 1000, 11


def predictor(path: Path):
    tensors, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
    net = policy_file.build_net(tensors, config)
    size = config["obs_size"]

    def predict(obs, masks):
        with torch.no_grad():
            logits = net(torch.as_tensor(obs[:, :size]))[0]
        return masked_argmax(logits, torch.as_tensor(masks)).numpy()
    return predict


def strength(run: Path, rival_bank: PolicyBank) -> dict:
    predict = predictor(run / "latest.safetensors")
    out = {"run": run.name, "games": GAMES, "seed": SEED, "method": __doc__.split("\n")[0]}
    for name, opponent in (("gold", "gold"), ("ppo-2p-race", rival_bank)):
        won, margin, cut = game_outcomes(predict, opponent, GAMES, 2, seed=SEED)
        out[f"vs_{name}"] = float(won.mean())
        out[f"margin_vs_{name}"] = round(float(margin.mean()), 3)
        out[f"cut_vs_{name}"] = int(cut.sum())
    return out


if __name__ == "__main__":
    torch.set_num_threads(1)
    path = shipped_policies()["ppo-2p-race"]
    tensors, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
    rival = PolicyBank([policy_file.build_net(tensors, config)], deterministic=True,
                       names=["ppo-2p-race"])
    for folder in sys.argv[1:]:
        result = strength(Path(folder), rival)
        (Path(folder) / "strength_batched.json").write_text(json.dumps(result, indent=1))
        print(json.dumps(result))
