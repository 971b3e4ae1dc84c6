# Reproduces research/log.md's research weights, removed from the tree (2026-11-27).
"""Rebuild a research weight file that left the repository (``research/results/weights.json``).

    python research/sweeps/rebuild_weights.py        # list them, with commands
    python research/sweeps/rebuild_weights.py \
        research/results/race/race_v6_s100/exploiter.safetensors

The manifest is data: it names what to rebuild, never a command. A probe's exploiter entry holds
the probe's settings (``probe``: agent, players, steps, seed, eval_games), each checked here,
and this script builds the ``machu exploit`` command from them (no other option can enter it);
the exploiter is retrained into a scratch folder and copied to its old path under
``research/results/`` (its digest then compared with the recorded one: the same only with the same
torch and machine). A round's agent or league exploiter names its sweep script (``script``),
which is printed to run by hand (it trains for an hour or more, and may need other entries
rebuilt first), never run from here.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "research" / "results" / "weights.json"
AGENT = re.compile(r"(?:[a-z0-9][a-z0-9-]{0,40}|policy:[A-Za-z0-9_./-]{1,200}\.safetensors)")
SCRIPT = re.compile(r"research/sweeps/[a-z0-9_]{1,60}\.sh")
LIMITS = {"players": (2, 5), "steps": (1, 10**9), "seed": (0, 2**32 - 1),
          "eval_games": (1, 100_000)}


def target(path: str) -> Path:
    """The file an entry rebuilds: a relative path under ``research/results/`` (no ``..``, not
    absolute) ending in ``.safetensors``; ValueError otherwise."""
    p = PurePosixPath(path)
    if p.is_absolute() or ".." in p.parts or p.parts[:2] != ("research", "results") \
            or p.suffix != ".safetensors":
        raise ValueError(f"{path!r}: an entry is a relative path under research/results/, "
                         "a .safetensors file")
    return ROOT.joinpath(*p.parts)


def probe_command(entry: dict[str, Any]) -> list[str]:
    """The ``machu exploit`` arguments of a probe entry, built from its checked settings."""
    probe = entry.get("probe")
    if not isinstance(probe, dict) or set(probe) != {"agent", *LIMITS}:
        raise ValueError(f"probe must hold exactly agent, {', '.join(LIMITS)}; got {probe!r}")
    agent = probe["agent"]
    if not isinstance(agent, str) or not AGENT.fullmatch(agent):
        raise ValueError(f"probe agent must be a shipped agent's name or "
                         f"policy:<path>.safetensors (an agent file: data only), got {agent!r}")
    args = ["exploit", "--agent", agent]
    for name, (low, high) in LIMITS.items():
        value = probe[name]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"probe {name} must be an int in {low}..{high}, got {value!r}")
        args += ["--" + name.replace("_", "-"), str(value)]
    return args


def script_path(entry: dict[str, Any]) -> str:
    script = entry.get("script")
    if not isinstance(script, str) or not SCRIPT.fullmatch(script):
        raise ValueError(f"script must be a research/sweeps/<name>.sh path, got {script!r}")
    return script


def describe(path: str, entry: dict[str, Any]) -> str:
    """What rebuilds ``path``, in words (the command as this script would build it)."""
    target(path)
    if "probe" in entry:
        return "machu " + " ".join(probe_command(entry)) + " --out DIR"
    return f"bash {script_path(entry)} " + " ".join(entry.get("script_args", [])) + \
        f" (by hand), then copy {entry.get('writes', 'its output')} to {path}"


def main(argv: list[str]) -> int:
    try:
        files = json.loads(MANIFEST.read_text())["files"]
        if not isinstance(files, dict):
            raise ValueError("files must map paths to entries")
        described = {path: describe(path, entry) for path, entry in files.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"{MANIFEST}: not a weights manifest ({e})", file=sys.stderr)
        return 2
    if not argv:
        for path, words in described.items():
            print(f"{path}\n    {words}")
        return 0
    for path in argv:
        entry = files.get(path)
        if entry is None:
            print(f"{path}: not a removed weight file (see {MANIFEST})", file=sys.stderr)
            return 2
        if "probe" not in entry:
            print(f"{path}: run {described[path]}"
                  + (f" ({entry['note']})" if entry.get("note") else ""))
            continue
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "machu_env.cli", *probe_command(entry),
                            "--out", tmp], check=True)
            dest = target(path)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(tmp) / "exploiter.safetensors", dest)
        same = hashlib.sha256(dest.read_bytes()).hexdigest() == entry["sha256"]
        kind = "the same bytes" if same else "a different file: another torch or machine"
        print(f"rebuilt {path} ({kind})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
