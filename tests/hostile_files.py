"""Hostile agent files the tests build: a policy whose logits are all about -1e17
(``flat_policy``) and a safetensors file with a dtype no reader knows (``f8_file``)."""

from __future__ import annotations

import json
import struct
from pathlib import Path


def flat_policy(path: Path) -> Path:
    """The review's file: ReLU, pi=[1,1,1], policy weights 1e4 and action_net weights -1e4 (within
    the file check's bound): every logit about -1e17, legal or not."""
    from machu_env.agents import policy_file as F

    config = F.net_config([1, 1, 1], "relu", 1)
    state = {k: v.clone() for k, v in F.new_net(config, 0).state_dict().items()}
    for k, v in state.items():
        if "policy_net" in k:
            v.fill_(1e4)
        elif k.startswith("action_net"):
            v.fill_(-1e4)
    return F.save(path, state, config)


def f8_file(path: Path) -> Path:
    from machu_env.agents import policy_file as F

    config = F.net_config([1], "relu", 1)
    header = {"w": {"dtype": "F8_E8M0", "shape": [1], "data_offsets": [0, 1]},
              "__metadata__": {"format": F.FORMAT, "version": str(F.VERSION),
                               "config": json.dumps(config)}}
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"\0")
    return path
