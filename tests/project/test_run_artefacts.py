"""What a training run may leave in the repository (docs/contributing.md, *Run artefacts*):
small JSON/CSV results, curves and the records a doc cites; never weights. The weights committed
before the policy are listed in ``train/results/bulky_artefacts.json`` and may not grow; every
other file under ``train/results/`` is small and all of them together stay within a budget."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "train" / "results"
MANIFEST = RESULTS / "bulky_artefacts.json"
WEIGHTS = (".safetensors", ".pt", ".pth", ".zip", ".ckpt", ".npz", ".h5", ".hdf5")
MAX_FILE = 256 * 1024  # bytes: a result file larger than this is an artefact, not a result
BUDGET = 6 * 2**20  # bytes: every file under train/results/ not in the manifest, together


def _files() -> list[Path]:
    """The files under train/results/ as the repository holds them (git's view where there is
    one, so that a local, ignored run folder does not count)."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                              "train/results"], cwd=ROOT, capture_output=True, text=True,
                             check=True, timeout=60).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    return [ROOT / f for f in out if f and (ROOT / f).is_file()]


def _manifest() -> dict[str, int]:
    return json.loads(MANIFEST.read_text())["files"]


def test_no_new_weights_or_bulky_files_under_train_results():
    legacy = _manifest()
    bad = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in legacy or path == MANIFEST:
            continue
        if path.suffix in WEIGHTS or path.stat().st_size > MAX_FILE:
            bad.append(f"{rel} ({path.stat().st_size:,} bytes)")
    assert not bad, ("run artefacts that do not belong in the repository (weights, or files "
                     f"over {MAX_FILE // 1024} KiB; docs/contributing.md): {bad}")


def test_the_listed_artefacts_exist_and_never_grow():
    for rel, size in _manifest().items():
        path = ROOT / rel
        assert path.is_file(), f"{rel} is listed but gone (a sweep script or a doc reads it)"
        assert path.stat().st_size == size, f"{rel} changed size: {size} -> {path.stat().st_size}"


def test_the_small_results_stay_within_the_budget():
    legacy = set(_manifest())
    total = sum(p.stat().st_size for p in _files()
                if p.relative_to(ROOT).as_posix() not in legacy)
    assert total <= BUDGET, (f"train/results/ holds {total / 2**20:.1f} MiB of results besides "
                             f"the listed artefacts; the budget is {BUDGET / 2**20:.0f} MiB: keep "
                             "summaries, not whole runs")


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
    missing = sorted(c for c in cited if not (ROOT / c).exists())
    assert not missing, f"cited but not in the repository: {missing}"
