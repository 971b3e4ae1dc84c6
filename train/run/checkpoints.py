"""A training run's checkpoint, written as a whole and checked as a whole when resumed.

A checkpoint is ``checkpoints/step_<N>.safetensors``, ``latest.safetensors``, the optimizer's
state ``latest_optimizer.pt`` (tensors only), ``best.safetensors`` when the step is the best so
far, and ``latest.json`` last: ``{"num_timesteps": N, "n_updates": U, "elapsed_seconds": S,
"sha256": {file: digest}}`` (S: the seconds since the run first started, for ``--minutes``).
Each file is written under a temporary name and moved into place (``core.files``), and Ctrl-C or
SIGTERM wait until the group is written, so a stopped run keeps its last whole checkpoint.
``latest.json`` is the mark of a run that checkpointed: ``--resume`` reads it and checks that the
weights and the optimizer are the ones it names (a run stopped in the middle of writing, by
SIGKILL or a power cut, is refused in words, not resumed from files of two different steps).
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

from machu_env.agents import policy_file
from machu_env.core import files, schema
from machu_env.core.signals import held_signals

LATEST = f"latest{policy_file.SUFFIX}"
OPTIMIZER = "latest_optimizer.pt"
STATE = "latest.json"
BEST = f"best{policy_file.SUFFIX}"
# latest.json, checked before a resume reads anything else
_STATE = schema.check(schema.record({
    "num_timesteps": schema.integer(0, 2**40), "n_updates": schema.integer(0, 2**40),
    "elapsed_seconds?": schema.number(0, 1e9),
    "sha256?": schema.map_of(schema.text(64), 8)}), "a run state of machu train")


def _digest(path: Path) -> str:
    return hashlib.sha256(files.read_bytes(path, policy_file.MAX_FILE_BYTES + 2**30,
                                           links=False)).hexdigest()


def write(out: Path, step: int, updates: int, weights: dict[str, Any], config: dict[str, Any],
          info: dict[str, Any], optimizer_state: dict[str, Any], best: bool,
          elapsed: float = 0.0) -> None:
    """Write the checkpoint of ``step`` (see the module's docstring): signals wait meanwhile."""
    import torch

    s = policy_file.SUFFIX
    with held_signals():
        policy_file.save(out / "checkpoints" / f"step_{step}{s}", weights, config, info)
        policy_file.save(out / LATEST, weights, config, info)
        files.write_with(out / OPTIMIZER, lambda tmp: torch.save(optimizer_state, tmp))
        if best:
            policy_file.save(out / BEST, weights, config, info)
        files.write_json(out / STATE, {
            "num_timesteps": step, "n_updates": updates, "elapsed_seconds": round(elapsed, 2),
            "sha256": {name: _digest(out / name) for name in (LATEST, OPTIMIZER)}}, indent=None)


def read_state(out: Path) -> tuple[int, int, float]:
    """(num_timesteps, n_updates, elapsed seconds) of the run's last checkpoint, its files
    checked to be the ones ``latest.json`` names; ValueError in words otherwise."""
    state_path = out / STATE
    if not state_path.exists():
        started = (out / "config.json").exists()
        raise ValueError(f"nothing to resume: {state_path} does not exist"
                         + (" (the run stopped before its first checkpoint: start it again "
                            "without --resume)" if started else ""))
    for name in (LATEST, OPTIMIZER):
        if not (out / name).exists():
            raise ValueError(f"nothing to resume: {out / name} does not exist")
    state = files.read_json(state_path, _STATE, 100_000, links=False)
    steps, updates = state["num_timesteps"], state["n_updates"]
    elapsed = state.get("elapsed_seconds", 0.0)  # (absent in older runs)
    digests = state.get("sha256", {})  # (absent in older runs)
    for name, digest in digests.items():
        if name in (LATEST, OPTIMIZER) and _digest(out / name) != digest:
            raise ValueError(f"{out / name} is not the file of the checkpoint {state_path} "
                             f"names (step {steps:,}): the run was stopped while writing a "
                             "checkpoint; resume from a copy of an earlier "
                             "checkpoints/step_<N>.safetensors with --init instead")
    _, _, info = policy_file.parse(policy_file.read_bytes(out / LATEST), str(out / LATEST))
    if info.get("num_timesteps", steps) != steps:
        raise ValueError(f"{out / LATEST} holds step {info.get('num_timesteps')!r} but "
                         f"{state_path} step {steps:,}: the checkpoint's files disagree (the run "
                         "was stopped while writing one); resume is refused")
    return steps, updates, float(elapsed)


def load_optimizer(optimizer, path: Path, device) -> None:
    """The optimizer's state from ``path`` (tensors and plain containers only: nothing runs),
    checked to fit the network's parameters."""
    import torch

    try:
        data = files.read_bytes(path, 2**31, links=False)
        state = torch.load(io.BytesIO(data), map_location=device, weights_only=True)
        optimizer.load_state_dict(state)
    except Exception as e:  # torch refuses anything but tensors and plain containers
        raise ValueError(f"{path}: not an optimizer state of this run ({e})") from None
    for group in optimizer.param_groups:
        for p in group["params"]:
            for name, value in optimizer.state.get(p, {}).items():
                if torch.is_tensor(value) and value.dim() and value.shape != p.shape:
                    raise ValueError(f"{path}: its {name} has shape {tuple(value.shape)} where "
                                     f"the network has {tuple(p.shape)}: not this run's "
                                     "optimizer state")
