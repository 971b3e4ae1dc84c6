"""Weight averaging: one policy whose weights are the weighted mean of several policies.

    machu average --members best-2p,policy:fine_tuned.safetensors --out averaged.safetensors

The policies must share one network (the same layers and observation): typically an agent and
its own fine-tune, or snapshots of one run. Averaging the weights of a policy and its
fine-tune (WiSE-FT, Wortsman et al. 2022; "model soups" average several fine-tunes) can keep
most of what the fine-tune gained while staying near where it started: the mean of
``ppo-2p-reg`` and its fine-tune beat ``ppo-2p-reg`` and, as it plays, was a little harder to
exploit than either (research/log.md; other means were not). Unlike a
population (``machu population``), the result is a single network: it plays as fast as any
policy and can be trained on further.

The file is an ordinary policy file (data only); its ``info`` names the members, their weights
and their files' SHA-256 digests.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

from machu_env.train.probe.population import MAX_MEMBERS, members_of


def check_count(names: list[str]) -> None:
    """ValueError unless there are 2..MAX_MEMBERS members."""
    if not 2 <= len(names) <= MAX_MEMBERS:
        raise ValueError(f"an average needs 2..{MAX_MEMBERS} members, got {len(names)}")


MAX_WEIGHT = 1e6


def parse_weights(text: str, count: int) -> list[float]:
    """The members' weights from ``"0.5,0.5"`` (empty: equal), normalised to sum to 1;
    ValueError naming what is wrong."""
    if count < 1:
        raise ValueError("no members to weigh")
    if not text.strip():
        return [1.0 / count] * count
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"weights must be comma-separated numbers, got {text!r}") from None
    if len(values) != count:
        raise ValueError(f"{len(values)} weights for {count} members: give one weight per "
                         "member, in the members' order")
    if any(not math.isfinite(v) or v < 0 for v in values) or sum(values) <= 0:
        raise ValueError(f"weights must be finite, >= 0 and not all 0, got {text!r}")
    if max(values) > MAX_WEIGHT:  # (their sum would overflow; only their ratios matter)
        raise ValueError(f"each weight must be at most {MAX_WEIGHT:g} (they are normalised: "
                         f"only their ratios matter), got {text!r}")
    return [v / sum(values) for v in values]


def _file_of(name: str) -> Path:
    from machu_env.agents import shipped_policy

    return shipped_policy(name) or Path(name.split(":", 1)[1])  # (members_of checked them)


def average(names: list[str], weights: list[float], out: str | Path,
            command: str = "") -> dict[str, Any]:
    """Write the weighted mean of the named policies' weights to ``out``; returns a summary.
    ValueError (nothing written) when they are not single policies of one network, one
    player count and one way of playing, or when ``weights`` do not match them."""
    import torch

    from machu_env.agents import policy_file

    check_count(names)
    members = members_of(names)
    if len(weights) != len(members) or abs(sum(weights) - 1) > 1e-6:
        raise ValueError("one weight per member, summing to 1 (parse_weights)")
    first, net0, play0 = members[0]
    config = net0.config
    for name, net, temperature in members[1:]:
        if net.config != config:
            raise ValueError(f"{name!r} has another network than {first!r} ({net.config} "
                             f"against {config}): average policies of one shape and "
                             "observation")
        if temperature != play0:
            raise ValueError(f"{name!r} plays at temperature {temperature}, {first!r} at "
                             f"{play0}: average policies that play alike")
    data = [policy_file.read_bytes(_file_of(n)) for n in names]
    players = {n: policy_file.parse(d, n)[2].get("players") for n, d in zip(names, data,
                                                                          strict=True)}
    if len(set(players.values()) - {None}) > 1:
        raise ValueError(f"the members were trained for different numbers of players "
                         f"({players}): average policies of one player count")
    states = [net.state_dict() for _, net, _ in members]
    mean = {k: sum(w * s[k].detach().to(torch.float32) for w, s in zip(weights, states,
                                                                       strict=True))
            for k in states[0]}
    count = next((p for p in players.values() if p is not None), None)
    info = {**({"players": count} if count else {}),
            "averaged": [{"name": n, "weight": round(w, 6),
                          "sha256": hashlib.sha256(d).hexdigest()}
                         for n, w, d in zip(names, weights, data, strict=True)],
            "command": command, "format_note": "weights: the weighted mean of the members' "
            "weights (machu_env.train.probe.average)"}
    path = policy_file.save(out, mean, config, info,
                            play={"temperature": play0} if play0 else None)
    return {"members": names, "weights": [round(w, 6) for w in weights], "out": str(path),
            "command": command}
