"""What a training run may leave in the repository (docs/contributing.md, *Run artefacts*):
small JSON/CSV results, curves and the records a doc cites; never weights. The research weights
committed before that policy left the tree on 2026-11-27; ``train/results/weights.json`` keeps
each one's digest and the command that rebuilds it. A clone stays light (issue #57)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "train" / "results"
MANIFEST = RESULTS / "weights.json"
WEIGHTS = (".safetensors", ".pt", ".pth", ".zip", ".ckpt", ".npz", ".h5", ".hdf5")
MAX_FILE = 256 * 1024  # bytes: a result file larger than this is an artefact, not a result
BUDGET = 6 * 2**20  # bytes: every file under train/results/ together
MAX_CHECKOUT = 30 * 10**6  # bytes: every tracked file of a clone together (no .git)


def _tracked(where: str = "") -> list[Path]:
    """The files as the repository holds them (git's view where there is one, so that a local,
    ignored run folder does not count)."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                              *([where] if where else [])], cwd=ROOT, capture_output=True,
                             text=True, check=True, timeout=60).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    return [ROOT / f for f in out if f and (ROOT / f).is_file()]


def _files() -> list[Path]:
    return _tracked("train/results")


def test_no_weights_or_bulky_files_under_train_results():
    bad = [f"{p.relative_to(ROOT).as_posix()} ({p.stat().st_size:,} bytes)" for p in _files()
           if p.suffix in WEIGHTS or (p.stat().st_size > MAX_FILE and p != MANIFEST)]
    assert not bad, ("run artefacts that do not belong in the repository (weights, or files "
                     f"over {MAX_FILE // 1024} KiB; docs/contributing.md): {bad}")


def test_each_removed_weight_file_says_how_to_rebuild_it():
    files = json.loads(MANIFEST.read_text())["files"]
    assert len(files) == 33
    for rel, entry in files.items():
        assert not (ROOT / rel).exists(), f"{rel} is back in the tree"
        assert len(entry["sha256"]) == 64 and entry["bytes"] > 0
        assert entry["rebuild"].startswith(("machu exploit --agent", "bash train/sweeps/"))
        if entry["rebuild"].startswith("bash "):
            assert (ROOT / entry["rebuild"].split()[1]).is_file(), entry["rebuild"]


def test_the_small_results_stay_within_the_budget():
    total = sum(p.stat().st_size for p in _files())
    assert total <= BUDGET, (f"train/results/ holds {total / 2**20:.1f} MiB of results; the "
                             f"budget is {BUDGET / 2**20:.0f} MiB: keep summaries, not whole runs")


def test_a_clone_stays_light():
    total = sum(p.stat().st_size for p in _tracked())
    assert total <= MAX_CHECKOUT, (f"the tracked files weigh {total / 1e6:.1f} MB; a clone "
                                   f"without .git stays within {MAX_CHECKOUT / 1e6:.0f} MB")


def test_no_doc_cites_a_weight_file_that_is_not_shipped():
    sources = [*ROOT.glob("docs/*.md"), ROOT / "README.md"]
    cited = sorted({word.strip("`()[],.;:") for source in sources
                    for word in source.read_text().split()
                    if ".safetensors" in word and "train/results/" in word})
    assert not cited, f"docs cite weight files that are not shipped: {cited}"


def test_every_path_a_doc_or_sweep_cites_under_train_results_exists():
    sources = [*ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("train/sweeps/*")]
    cited = set()
    for source in sources:
        text = source.read_text(errors="replace")
        for word in text.replace("`", " ").replace("(", " ").replace(")", " ").split():
            word = word.rstrip(".,;:")
            if word.startswith("train/results/") and "*" not in word and "<" not in word \
                    and "$" not in word and "{" not in word:
                cited.add(word)
    assert len(cited) > 20, cited  # (the docs cite the records of their figures)
    removed = set(json.loads(MANIFEST.read_text())["files"])  # (rebuilt on demand)
    missing = sorted(c for c in cited if not (ROOT / c).exists() and c not in removed)
    assert not missing, f"cited but not in the repository: {missing}"


def test_every_sweep_script_says_which_dated_entry_it_reproduces():
    """The one-off scripts of train/sweeps/ stay to reproduce dated research-log entries (a new
    agent is trained with a recipe): each says so in its first line after a shebang."""
    for path in sorted((ROOT / "train" / "sweeps").iterdir()):
        lines = path.read_text().splitlines()
        first = lines[1] if lines[0].startswith("#!") else lines[0]
        assert first.startswith("# Reproduces docs/") and "(2026-" in first, path.name
