"""Agent files that hold data only: a policy's weights as ``safetensors``, its shape as JSON.

Loading one reads numbers and a small JSON header; it runs no code (unlike Stable-Baselines3's
``.zip`` files, whose ``data`` entries are unpickled with cloudpickle and can run anything).

File layout (``<name>.safetensors``): the tensors of an actor-critic MLP, named as in sb3's
``MaskableActorCriticPolicy`` (``mlp_extractor.policy_net.0.weight``, ..., ``action_net.*``,
``value_net.*``), and the safetensors metadata::

    format  "machu-env-policy"
    version "1"
    config  {"obs_size": 377, "num_actions": 157, "pi": [256, 256], "vf": [256, 256],
             "activation": "tanh"}
    info    free JSON about the training run (players, steps, command, ...)

A config may also hold ``"shared": [256, 256]``: a trunk of layers (``mlp_extractor.shared_net.*``)
that the policy and the value heads both read, each head then adding its own ``pi``/``vf``
layers (none at all is allowed then: ``"pi": [], "vf": []``, the heads are the two linear
outputs). Without the key (every file written before it existed) the two MLPs are separate.
    play    (optional) how the agent plays, {"temperature": T}: T = 0 (the default when the key
            is absent) plays the most probable legal action (the first of equal maxima);
            T > 0 samples from softmax(logits / T) over the legal actions (T = 1: the policy as
            it trained). T is at most 100.

A *population* (``<name>.safetensors`` too) holds several such policies and plays as one agent:
at the start of each game it draws one member with probability ``weight`` (from the agent's
own seeded generator) and plays that member's policy, with that member's ``play``, for the
whole game. Its tensors are the members' tensors prefixed ``members.<k>.``; its metadata::

    format  "machu-env-population"
    version "1"
    members [{"config": {...}, "weight": 0.6, "play": {"temperature": 0}, "info": {...}}, ...]
    info    free JSON (how the weights were computed: the payoff matrix, the command)

The weights are non-negative and sum to 1 (within 1e-6); at most ``MAX_MEMBERS`` members.

How to reproduce an agent's decision from the file alone, outside machu-env: build the
observation (``Game.observation``, 377 floats) and the legal mask (157 booleans) of the
deciding player; run ``mlp_extractor.policy_net.*`` (Linear, then the activation, per layer)
and ``action_net`` on it; set the illegal logits to -inf; then take the argmax (T = 0) or
sample from softmax(logits / T).

``PolicyNet`` is the network rebuilt from ``config`` in plain torch; it computes exactly what
the sb3 policy computed (same layers, same operations).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from machu_env._extras import install_hint
from machu_env.agents.policy_net import (  # noqa: F401  (the networks, re-exported)
    _torch_module,
    build_net,
    head_input,
    head_width,
    net_config,
    new_net,
    observation_version,
    widen_input,
)
from machu_env.core import files
from machu_env.engine.observation import OBS_SIZE, OBS_SIZES, OBS_V2_SIZE, OBS_V3_SIZE
from machu_env.rules.actions import NUM_ACTIONS

FORMAT = "machu-env-policy"
POPULATION_FORMAT = "machu-env-population"
VERSION = 1
MAX_TEMPERATURE = 100.0
MIN_TEMPERATURE = 0.01  # below (and above 0): logits / T overflows float32, illegal or NaN play
MAX_MEMBERS = 32
SUFFIX = ".safetensors"
MAX_FILE_BYTES = 64 * 2**20  # far above any sensible MLP for this game
MAX_LAYERS, MAX_WIDTH = 8, 4096
MAX_ABS_WEIGHT = 1e4  # trained policies stay near 1; 3e38 is finite but overflows to NaN
ACTIVATIONS = ("tanh", "relu")
PICKLE_WARNING = (
    "is a Stable-Baselines3 .zip: loading it unpickles Python objects, which can run any code. "
    "If you trust where it came from, convert it once with `python -m machu_env.train.run.export "
    "--trust-pickle IN.zip OUT.safetensors` (then load the .safetensors), or load it as it is "
    "with --trust-pickle (PolicyAgent(..., trust_pickle=True))"
)


def read_bytes(path: str | Path) -> bytes:
    """A policy file's bytes (size-capped, a regular file only); ValueError for a missing,
    oversized or irregular file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no policy file at {path} (expected a {SUFFIX} agent file)")
    try:
        return files.read_bytes(path, MAX_FILE_BYTES)
    except files.FileRefused as e:
        raise ValueError(f"{e} (agent files are at most {MAX_FILE_BYTES // 2**20} MiB)") \
            from None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_config(config: Any, where: str) -> dict[str, Any]:
    """The network's shape, checked (ValueError naming the problem)."""
    if not isinstance(config, dict):
        raise ValueError(f"{where}: config must be a JSON object")
    sizes = (config.get("obs_size"), config.get("num_actions"))
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in sizes):
        raise ValueError(f"{where}: config's obs_size and num_actions must be integers "
                         f"({OBS_SIZE} and {NUM_ACTIONS}), got {sizes[0]!r:.20} and "
                         f"{sizes[1]!r:.20}")
    if config.get("obs_size") not in OBS_SIZES.values() or config.get("num_actions") != \
            NUM_ACTIONS:
        raise ValueError(f"{where}: the policy is for observations of {config.get('obs_size')} "
                         f"values and {config.get('num_actions')} actions; machu-env has "
                         f"{OBS_SIZE} (observation v1), {OBS_V2_SIZE} (v2) or {OBS_V3_SIZE} (v3) "
                         f"and {NUM_ACTIONS}")
    shared = config.get("shared", [])
    for head in ("shared", "pi", "vf"):
        sizes = config.get(head, [])
        fewest = 0 if head == "shared" or shared else 1
        ok = (isinstance(sizes, list) and fewest <= len(sizes) <= MAX_LAYERS
              and all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= MAX_WIDTH
                      for s in sizes))
        if not ok:
            raise ValueError(f"{where}: config[{head!r}] must list {fewest}..{MAX_LAYERS} layer "
                             f"sizes in 1..{MAX_WIDTH}, got {sizes!r}")
    if config.get("activation") not in ACTIVATIONS:
        raise ValueError(f"{where}: activation must be one of {ACTIVATIONS}, got "
                         f"{config.get('activation')!r}")
    checked = {k: config[k] for k in ("obs_size", "num_actions", "pi", "vf", "activation")}
    if shared:
        checked["shared"] = list(shared)
    return checked


def expected_shapes(config: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape of a network with this config (sb3's names)."""
    shapes: dict[str, tuple[int, ...]] = {}
    for head, net in (("shared", "shared_net"), ("pi", "policy_net"), ("vf", "value_net")):
        width = config["obs_size"] if head == "shared" else head_input(config)
        for k, size in enumerate(config.get(head, [])):
            shapes[f"mlp_extractor.{net}.{2 * k}.weight"] = (size, width)
            shapes[f"mlp_extractor.{net}.{2 * k}.bias"] = (size,)
            width = size
    shapes["action_net.weight"] = (config["num_actions"], head_width(config, "pi"))
    shapes["action_net.bias"] = (config["num_actions"],)
    shapes["value_net.weight"] = (1, head_width(config, "vf"))
    shapes["value_net.bias"] = (1,)
    return shapes


def file_bytes(config: dict[str, Any]) -> int:
    """About the size of an agent file of this network (its float32 tensors and a header of at
    most a few kB): checked against ``MAX_FILE_BYTES`` before a network is trained or saved."""
    count = sum(math.prod(shape) for shape in expected_shapes(config).values())
    return 4 * count + 16_384


def check_size(config: dict[str, Any], where: str) -> None:
    """ValueError when a network of ``config`` would not fit in an agent file."""
    size = file_bytes(config)
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{where}: a network of layers {config.get('shared') or []} shared, "
                         f"{config['pi']} policy, {config['vf']} value makes an agent file of "
                         f"{size / 2**20:.0f} MiB; agent files are at most "
                         f"{MAX_FILE_BYTES // 2**20} MiB: use fewer or narrower layers")


def play_of(data: bytes, where: str = "policy file") -> dict[str, float] | None:
    """The ``play`` entry of a single policy's file (None where it has none: argmax)."""
    _, meta = _read(data, where)
    play = _json(meta, "play", "null", where)
    if play is None:
        return None
    return {"temperature": check_play(play, where)}


def check_play(play: Any, where: str) -> float:
    """The temperature of a ``play`` entry (absent: 0, argmax); ValueError naming the file."""
    if play is None:
        return 0.0
    t = play.get("temperature") if isinstance(play, dict) else None
    if not isinstance(play, dict) or set(play) != {"temperature"} \
            or not isinstance(t, (int, float)) or isinstance(t, bool) \
            or not (t == 0 or MIN_TEMPERATURE <= t <= MAX_TEMPERATURE):
        raise ValueError(f"{where}: play must be {{\"temperature\": T}} with T = 0 (argmax) or "
                         f"a number in [{MIN_TEMPERATURE:g}, {MAX_TEMPERATURE:g}], got {play!r}")
    return float(t)


def _read(data: bytes, where: str):
    """(tensors, metadata) of a safetensors file of either format; ValueError otherwise."""
    from safetensors import SafetensorError
    from safetensors.torch import load as load_tensors

    try:
        header_len = int.from_bytes(data[:8], "little")
        header = json.loads(data[8 : 8 + header_len]) if 0 < header_len < len(data) else None
        tensors = load_tensors(data)
    except (SafetensorError, ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"{where} is not a safetensors file ({e})") from None
    except Exception as e:  # noqa: BLE001  e.g. KeyError for a dtype torch lacks (F8_E8M0)
        raise ValueError(f"{where}: unreadable tensors ({type(e).__name__}: {e}); a policy "
                         "file holds float32 tensors") from None
    meta = (header.get("__metadata__") if isinstance(header, dict) else None) or {}
    if not isinstance(meta, dict):
        raise ValueError(f"{where}: its __metadata__ is not a JSON object")
    if meta.get("format") not in (FORMAT, POPULATION_FORMAT):
        raise ValueError(f"{where} is not a machu-env policy file (its metadata has no "
                         f"format {FORMAT!r} or {POPULATION_FORMAT!r})")
    if meta.get("version") != str(VERSION):
        raise ValueError(f"{where}: policy file version {meta.get('version')!r}; this "
                         f"machu-env reads version {VERSION}")
    return tensors, meta


def _json(meta: dict, key: str, default: str, where: str) -> Any:
    try:
        return json.loads(meta.get(key, default))
    except (ValueError, RecursionError) as e:  # JSONDecodeError, ints of > 4300 digits
        raise ValueError(f"{where}: malformed {key} metadata ({e})") from None


def parse(data: bytes, where: str = "policy file"):
    """(tensors as torch float32, config, info) of a policy file's bytes; ValueError for
    anything that is not a well-formed machu-env policy."""
    tensors, meta = _read(data, where)
    if meta.get("format") != FORMAT:
        raise ValueError(f"{where} is a population of policies ({POPULATION_FORMAT}); this "
                         "needs a single policy (read it with parse_members)")
    config = check_config(_json(meta, "config", "", where), where)
    info = _json(meta, "info", "{}", where)
    check_play(_json(meta, "play", "null", where), where)
    return _check_tensors(tensors, config, where), config, info if isinstance(info, dict) else {}


def parse_members(data: bytes, where: str = "policy file"):
    """Every policy of an agent file: a list of ``(tensors, config, info, temperature,
    weight)`` (one entry, weight 1, for a single policy) and the file's info."""
    tensors, meta = _read(data, where)
    info = _json(meta, "info", "{}", where)
    info = info if isinstance(info, dict) else {}
    if meta.get("format") == FORMAT:
        config = check_config(_json(meta, "config", "", where), where)
        play = check_play(_json(meta, "play", "null", where), where)
        return [(_check_tensors(tensors, config, where), config, info, play, 1.0)], info
    members = _json(meta, "members", "null", where)
    if not isinstance(members, list) or not 1 <= len(members) <= MAX_MEMBERS \
            or not all(isinstance(m, dict) for m in members):
        raise ValueError(f"{where}: members must list 1..{MAX_MEMBERS} objects")
    weights = [m.get("weight") for m in members]
    if not all(isinstance(w, (int, float)) and not isinstance(w, bool) and 0 <= w <= 1
               for w in weights) or abs(sum(weights) - 1) > 1e-6:
        raise ValueError(f"{where}: member weights must be numbers in [0, 1] summing to 1, got "
                         f"{weights!r:.200}")
    total = float(sum(weights))
    if total <= 0:
        raise ValueError(f"{where}: member weights sum to 0")
    out = []
    for k, m in enumerate(members):
        here = f"{where}, member {k}"
        config = check_config(m.get("config"), here)
        prefix = f"members.{k}."
        own = {name[len(prefix):]: t for name, t in tensors.items() if name.startswith(prefix)}
        mine = m.get("info", {})
        out.append((_check_tensors(own, config, here), config,
                    mine if isinstance(mine, dict) else {}, check_play(m.get("play"), here),
                    float(weights[k]) / total))  # normalised: numpy's draw wants sum 1
    named = {f"members.{k}.{n}" for k in range(len(members))
             for n in expected_shapes(out[k][1])}
    if set(tensors) != named:
        raise ValueError(f"{where}: tensors not of any member: "
                         f"{sorted(set(tensors) - named)[:5]}")
    return out, info


def _check_tensors(tensors, config: dict[str, Any], where: str):
    """The tensors, checked against ``config`` (names, shapes, dtype, finite, magnitude)."""
    import torch

    shapes = expected_shapes(config)
    got = {name: tuple(t.shape) for name, t in tensors.items()}
    if got != shapes:
        missing = sorted(set(shapes) - set(got))
        extra = sorted(set(got) - set(shapes))
        wrong = sorted(k for k in set(got) & set(shapes) if got[k] != shapes[k])
        raise ValueError(f"{where}: tensors do not match its config (missing {missing}, "
                         f"unexpected {extra}, wrong shape {wrong})")
    if any(t.dtype != torch.float32 for t in tensors.values()):
        raise ValueError(f"{where}: tensors must be float32")
    if not all(bool(torch.isfinite(t).all()) for t in tensors.values()):
        raise ValueError(f"{where}: tensors hold NaN or infinite values")
    largest = max(float(t.abs().max()) if t.numel() else 0.0 for t in tensors.values())
    if largest > MAX_ABS_WEIGHT:
        raise ValueError(f"{where}: a weight of magnitude {largest:.3g}; a policy's weights are "
                         f"at most {MAX_ABS_WEIGHT:g} in magnitude (larger ones overflow to NaN)")
    return tensors


def save(path: str | Path, state_dict: dict[str, Any], config: dict[str, Any],
         info: dict[str, Any] | None = None, play: dict[str, float] | None = None) -> Path:
    """Write a policy file from an sb3 policy's ``state_dict`` (the actor-critic tensors);
    ``play``: how it plays (``{"temperature": T}``; absent: argmax)."""
    config = check_config(config, str(path))
    check_size(config, str(path))
    names = expected_shapes(config)
    tensors = {k: state_dict[k].detach().cpu().float().contiguous() for k in names}
    meta = {"format": FORMAT, "version": str(VERSION), "config": json.dumps(config),
            "info": json.dumps(info or {})}
    if play is not None:
        check_play(play, str(path))
        meta["play"] = json.dumps(play)
    return _write(Path(path), tensors, meta, parse)


def _write(path: Path, tensors: dict[str, Any], meta: dict[str, str], check) -> Path:
    """Write the file under a temporary name, read it back with ``check`` (what we write, we
    can read), then move it into place: an interrupted save leaves the old file or none. The
    bytes are written as any file is (safetensors' own ``save_file`` makes it owner-only)."""
    from safetensors.torch import save

    if path.is_dir():
        raise ValueError(f"{path} is a folder: give an agent file name ({SUFFIX})")
    data = save(tensors, metadata=meta)
    check(data, str(path))  # (what we write, we can read)
    try:
        files.make_folder(path.parent)
    except ValueError:
        raise ValueError(f"cannot write {path}: a part of its folder is a file") from None
    return files.write_bytes(path, data)


def save_population(path: str | Path, members: list[tuple[dict[str, Any], dict[str, Any],
                                                          dict[str, Any], float, float]],
                    info: dict[str, Any] | None = None) -> Path:
    """Write a population: ``members`` as ``(state_dict, config, info, temperature, weight)``
    (the weights are normalised to sum to 1)."""
    if not 1 <= len(members) <= MAX_MEMBERS:
        raise ValueError(f"a population has 1..{MAX_MEMBERS} members, got {len(members)}")
    total = float(sum(m[4] for m in members))
    if not total > 0 or min(m[4] for m in members) < 0:
        raise ValueError("member weights must be >= 0 with a positive sum")
    tensors, entries = {}, []
    for k, (state_dict, config, member_info, temperature, weight) in enumerate(members):
        config = check_config(config, f"{path}, member {k}")
        for name in expected_shapes(config):
            tensors[f"members.{k}.{name}"] = state_dict[name].detach().cpu().float().contiguous()
        entries.append({"config": config, "weight": weight / total,
                        "play": {"temperature": check_play({"temperature": temperature},
                                                           f"{path}, member {k}")},
                        "info": member_info or {}})
    meta = {"format": POPULATION_FORMAT, "version": str(VERSION),
            "members": json.dumps(entries), "info": json.dumps(info or {})}
    return _write(Path(path), tensors, meta, parse_members)


def sb3_config(policy) -> dict[str, Any]:
    """The config of an sb3 ``MaskableActorCriticPolicy`` (an MLP over the observation)."""
    import torch

    arch = policy.net_arch
    if isinstance(arch, list):
        arch = {"pi": list(arch), "vf": list(arch)}
    act = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}.get(policy.activation_fn)
    if act is None:
        raise ValueError(f"unsupported activation {policy.activation_fn}: the policy file "
                         f"format knows {ACTIVATIONS}")
    return {"obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS, "pi": list(arch["pi"]),
            "vf": list(arch["vf"]), "activation": act}


def save_sb3_policy(path: str | Path, policy, info: dict[str, Any] | None = None) -> Path:
    """Write the policy of an sb3 model (``model.policy``) as an agent file."""
    return save(path, policy.state_dict(), sb3_config(policy), info)


def load_sb3_zip(path: str | Path, trust_pickle: bool = False, device: str = "cpu"):
    """A MaskablePPO model from a Stable-Baselines3 ``.zip``: only with ``trust_pickle=True``
    (loading it runs pickled code)."""
    if not trust_pickle:
        raise ValueError(f"{path} {PICKLE_WARNING}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        raise ValueError("loading an sb3 .zip needs the train extra: "
                         + install_hint("train")) from e
    try:
        return MaskablePPO.load(str(path), device=device)
    except Exception as e:  # SB3 raises many kinds for a file that is not a checkpoint
        raise ValueError(f"{path} is not a MaskablePPO checkpoint ({e})") from None
