"""Export a training checkpoint as an agent file (data only: ``safetensors`` + JSON metadata).

    python -m machu_env.train.run.export runs/selfplay_2p/best.safetensors ppo_2p.safetensors
    python -m machu_env.train.run.export --trust-pickle old_model.zip agent.safetensors

A run's checkpoints already are agent files; exporting checks one, adds a note on where it came
from and enforces the shipped agents' size limit. A Stable-Baselines3 ``.zip`` (a MaskablePPO
model) is converted only with ``--trust-pickle``: reading it unpickles Python objects, which can
run any code, so do it once, for a file whose origin you trust.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from machu_env.agents import policy_file as F

MAX_BYTES = 5 * 1024 * 1024  # the shipped agents' size limit


def export_policy(source: str | Path, target: str | Path, trust_pickle: bool = False,
                  note: str | None = None, temperature: float | None = None) -> Path:
    """Write ``source``'s policy to ``target`` as an agent file; returns ``target``.
    ``temperature``: how the agent plays, stored as the file's ``play`` (0: the most probable
    legal action; T > 0: sampled from softmax(logits / T)); None: the source's own entry (none:
    argmax)."""
    source, target = Path(source), Path(target)
    if target.suffix != F.SUFFIX:
        raise ValueError(f"the agent file must end in {F.SUFFIX}, got {target}")
    if target.is_dir():
        raise ValueError(f"{target} is a folder: give the agent file's name")
    folder = next((p for p in target.parents if p.exists()), Path("."))
    if not folder.is_dir():
        raise ValueError(f"cannot write {target}: {folder} is a file, not a folder")
    if not source.is_file():
        raise ValueError(f"no checkpoint at {source} (expected a {F.SUFFIX} checkpoint or an "
                         "sb3 .zip)")
    if source.suffix == ".zip":
        model = F.load_sb3_zip(source, trust_pickle=trust_pickle)
        config = F.sb3_config(model.policy)
        tensors = model.policy.state_dict()
        info = {"source": source.name, "num_timesteps": int(model.num_timesteps),
                "algorithm": "MaskablePPO (sb3-contrib)"}
        play = None
    else:
        data = F.read_bytes(source)
        tensors, config, info = F.parse(data, str(source))
        info = {**info, "source": source.name}
        play = F.play_of(data, str(source))  # kept unless --play-temperature says otherwise
    if note:
        info["note"] = note
    if temperature is not None:  # (checked before anything is written)
        play = {"temperature": F.check_play({"temperature": temperature}, str(target))}
    return F.save(target, tensors, config, info, play=play)


def play_words(path: Path) -> str:
    """How the agent file at ``path`` plays, in words."""
    play = F.play_of(F.read_bytes(path), str(path))
    t = play["temperature"] if play else 0.0
    return "plays its most probable move" if t == 0 else f"samples its moves at temperature {t:g}"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source", type=Path, help="a checkpoint (a run's best.safetensors, ...) or "
                    "an sb3 .zip (with --trust-pickle)")
    ap.add_argument("target", type=Path, help="the agent file to write (.safetensors)")
    ap.add_argument("--trust-pickle", action="store_true",
                    help="allow reading an sb3 .zip (unpickling can run code)")
    ap.add_argument("--note", help="a note stored in the file's metadata")
    ap.add_argument("--play-temperature", type=float, default=None, metavar="T",
                    help="how the agent plays, in its metadata: 0 argmax, T in [0.01, 100] "
                    "sampled at temperature T (default: the source's own play entry; none: argmax)")
    args = ap.parse_args(argv)
    try:
        path = export_policy(args.source, args.target, args.trust_pickle, args.note,
                             args.play_temperature)
    except ValueError as e:
        raise SystemExit(f"export: error: {' '.join(str(e).split())}") from None
    except OSError as e:  # (an unwritable folder, a full disk: nothing is left half-written)
        raise SystemExit(f"export: error: cannot write {args.target}: {e.strerror}") from None
    size = path.stat().st_size
    print(f"wrote {path} ({size / 1e6:.2f} MB; {play_words(path)})")
    if size > MAX_BYTES:
        raise SystemExit(f"{path} is larger than the {MAX_BYTES / 2**20:.0f} MiB shipped-agent "
                         "limit: use a smaller --net-arch")


if __name__ == "__main__":
    main()
