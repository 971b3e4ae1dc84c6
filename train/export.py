"""Export a training checkpoint as a small, inference-only agent file.

    python -m train.export runs/selfplay_2p/best.zip agents/checkpoints/ppo_2p.zip

The exported ``.zip`` is an ordinary MaskablePPO file (``PolicyAgent`` and ``MaskablePPO.load``
read it) without the optimizer's state, which is two thirds of a checkpoint and useless for
playing. Training cannot be resumed from it; resume from the run folder instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

MAX_BYTES = 5 * 1024 * 1024  # the shipped agents' size limit


def export_policy(source: str | Path, target: str | Path) -> Path:
    """Write ``source``'s policy to ``target`` without optimizer state; returns ``target``."""
    import torch
    from sb3_contrib import MaskablePPO

    source, target = Path(source), Path(target)
    if not source.is_file():
        raise ValueError(f"no checkpoint at {source} (expected a MaskablePPO .zip)")
    try:
        model = MaskablePPO.load(source, device="cpu")
    except Exception as e:  # SB3 raises many kinds for a file that is not a checkpoint
        raise ValueError(f"{source} is not a MaskablePPO checkpoint ({e})") from None
    # a fresh optimizer holds no moment estimates, so the saved file carries the weights only
    model.policy.optimizer = torch.optim.Adam(model.policy.parameters(), lr=0.0)
    target.parent.mkdir(parents=True, exist_ok=True)
    model.save(target, exclude=["rollout_buffer", "ep_info_buffer", "ep_success_buffer",
                                "tensorboard_log"])
    return target


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path, help="a checkpoint (run folder's best.zip, latest.zip)")
    ap.add_argument("target", type=Path, help="the agent file to write")
    args = ap.parse_args(argv)
    path = export_policy(args.source, args.target)
    size = path.stat().st_size
    print(f"wrote {path} ({size / 1e6:.2f} MB)")
    if size > MAX_BYTES:
        raise SystemExit(f"{path} is larger than the {MAX_BYTES / 2**20:.0f} MiB shipped-agent "
                         "limit: use a smaller --net-arch")


if __name__ == "__main__":
    main()
