"""The agent files a training run names (``--init``, ``--frozen``): where a name points, and the
network shape and observation version of the policy in it."""

from __future__ import annotations

from pathlib import Path

from machu_env.agents import policy_file


def arch_of(path: Path) -> str:
    """The ``net_arch`` that names the network of the agent file at ``path`` (``256,256``: a
    policy and a value network alike; ``shared:256,256``: one trunk and two linear heads), so
    that ``--init`` keeps the shape of the policy it starts from."""
    _, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
    shared, pi, vf = config.get("shared") or [], config["pi"], config["vf"]
    if shared and not pi and not vf:
        return "shared:" + ",".join(map(str, shared))
    if pi and pi == vf and not shared and config["activation"] == "tanh":
        return ",".join(map(str, pi))
    raise ValueError(f"{path}: its network (shared {shared}, policy {pi}, value {vf}, "
                     f"{config['activation']}) has no --net-arch of machu train (two tanh "
                     "networks alike, or a shared trunk with linear heads)")


def observation_of(path: Path) -> int:
    """The observation version the policy of the agent file at ``path`` reads."""
    _, config, _ = policy_file.parse(policy_file.read_bytes(path), str(path))
    return policy_file.observation_version(config)


def init_path(init: str, what: str = "init") -> Path:
    """The agent file ``--init`` names: a shipped agent (``ppo-2p-v1``, ``best-3p``),
    ``policy:<file>`` or a path to a ``.safetensors`` agent file."""
    from machu_env.agents import shipped_policies, shipped_policy

    shipped = shipped_policies()
    if shipped_policy(init) is not None:
        return shipped_policy(init)
    path = Path(init.split(":", 1)[1] if init.startswith("policy:") else init)
    if path.suffix != policy_file.SUFFIX or not path.is_file():
        raise ValueError(f"{what} {init!r} is neither a shipped agent ({', '.join(shipped)}) nor "
                         f"an existing {policy_file.SUFFIX} agent file")
    return path
