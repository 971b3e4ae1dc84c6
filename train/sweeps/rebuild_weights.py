# Reproduces docs/research.md's research weights, removed from the tree (2026-11-27).
"""Rebuild a research weight file that left the repository (``train/results/weights.json``).

    python train/sweeps/rebuild_weights.py                       # list them, with commands
    python train/sweeps/rebuild_weights.py train/results/race/race_v6_s100/exploiter.safetensors

A probe's exploiter is retrained with its recorded ``machu exploit`` command into a scratch
folder and copied to its old path (its digest then compared with the recorded one: the same
only with the same torch and machine); a round's agent or league exploiter comes from its sweep
script, whose command and output file are printed to run by hand (it trains for an hour or
more, and may need other entries rebuilt first).
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "train" / "results" / "weights.json"


def main(argv: list[str]) -> int:
    files = json.loads(MANIFEST.read_text())["files"]
    if not argv:
        for path, entry in files.items():
            print(f"{path}\n    {entry['rebuild']}  ->  {entry['writes']}")
        return 0
    for path in argv:
        entry = files.get(path)
        if entry is None:
            print(f"{path}: not a removed weight file (see {MANIFEST})", file=sys.stderr)
            return 2
        if not entry["rebuild"].startswith("machu exploit"):
            print(f"{path}: run `{entry['rebuild']}`, then copy {entry['writes']} to {path}"
                  + (f" ({entry['note']})" if entry.get("note") else ""))
            continue
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([*shlex.split(entry["rebuild"]), "--out", tmp], check=True)
            target = ROOT / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(tmp) / "exploiter.safetensors", target)
        same = hashlib.sha256(target.read_bytes()).hexdigest() == entry["sha256"]
        kind = "the same bytes" if same else "a different file: another torch or machine"
        print(f"rebuilt {path} ({kind})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
