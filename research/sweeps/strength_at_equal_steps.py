# Reproduces research/log.md, "Training speed on 2026-11-26" (2026-11-26/27).
"""Strength at equal steps: two runs' checkpoints of the same step against ``gold`` and against
``ppo-2p`` (1,000 games each, seats rotated, argmax), and head to head.

    python research/sweeps/strength_at_equal_steps.py RUN_A RUN_B STEP

(the runs of docs/training.md's *strength per step*: today's defaults and the recipe before,
10M steps each; result in ``research/results/time_to_strength/strength_10m.json``)."""

import json
import sys

import torch

from machu_env.agents import policy_file, shipped_policies
from machu_env.agents.masking import masked_argmax
from machu_env.train.ppo.bank import PolicyBank
from machu_env.train.ppo.evaluate import game_outcomes


def net_of(path):
    tensors, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
    return policy_file.build_net(tensors, config)


def predictor(net):
    size = net.config["obs_size"]

    def predict(obs, masks):
        with torch.no_grad():
            logits = net(torch.as_tensor(obs[:, :size]))[0]
        return masked_argmax(logits, torch.as_tensor(masks)).numpy()
    return predict


def main(a: str, b: str, step: str) -> dict:
    runs = {"a": net_of(f"{a}/checkpoints/step_{step}.safetensors"),
            "b": net_of(f"{b}/checkpoints/step_{step}.safetensors")}
    ppo = PolicyBank([net_of(shipped_policies()["ppo-2p"])], deterministic=True, names=["ppo"])
    out = {"step": int(step), "games": 1000, "seed": 11}
    for k, net in runs.items():
        out[f"{k}_vs_gold"] = float(game_outcomes(predictor(net), "gold", 1000, 2, seed=11)[0]
                                    .mean())
        out[f"{k}_vs_ppo-2p"] = float(game_outcomes(predictor(net), ppo, 1000, 2, seed=11)[0]
                                      .mean())
    other = PolicyBank([runs["b"]], deterministic=True, names=["b"])
    out["a_vs_b"] = float(game_outcomes(predictor(runs["a"]), other, 1000, 2, seed=11)[0].mean())
    return out


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))
