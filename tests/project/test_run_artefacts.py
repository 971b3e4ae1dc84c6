"""What a training run may leave in the repository (docs/contributing.md, *Run artefacts*):
small JSON/CSV results, curves and the records a doc cites; never weights. The research weights
committed before that policy left the tree; ``research/results/weights.json`` keeps each one's
digest and what rebuilds it, as data (a probe's settings or a sweep script's path). A clone
stays light."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "research" / "results"
MANIFEST = RESULTS / "weights.json"
WEIGHTS = (".safetensors", ".pt", ".pth", ".zip", ".ckpt", ".npz", ".h5", ".hdf5")
MAX_FILE = 256 * 1024  # bytes: a result file larger than this is an artefact, not a result
BUDGET = 6 * 2**20  # bytes: every file under research/results/ together
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
    return _tracked("research/results")


def test_no_weights_or_bulky_files_under_research_results():
    bad = [f"{p.relative_to(ROOT).as_posix()} ({p.stat().st_size:,} bytes)" for p in _files()
           if p.suffix in WEIGHTS or (p.stat().st_size > MAX_FILE and p != MANIFEST)]
    assert not bad, ("run artefacts that do not belong in the repository (weights, or files "
                     f"over {MAX_FILE // 1024} KiB; docs/contributing.md): {bad}")


def _rebuild():
    import importlib.util

    spec = importlib.util.spec_from_file_location("rebuild_weights",
                                                  ROOT / "research/sweeps/rebuild_weights.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_removed_weight_file_says_how_to_rebuild_it():
    files = json.loads(MANIFEST.read_text())["files"]
    rebuild = _rebuild()
    assert len(files) == 33
    for rel, entry in files.items():
        assert not (ROOT / rel).exists(), f"{rel} is back in the tree"
        assert len(entry["sha256"]) == 64 and entry["bytes"] > 0
        assert "rebuild" not in entry  # (data names what to rebuild, never a command)
        words = rebuild.describe(rel, entry)
        assert words.startswith(("machu exploit --agent", "bash research/sweeps/")), words
        if "script" in entry:
            assert (ROOT / entry["script"]).is_file(), entry["script"]


@pytest.mark.parametrize("path,entry,words", [
    ("research/results/x.safetensors", {"probe": {"agent": "policy:evil.zip", "players": 2,
                                               "steps": 10, "seed": 0, "eval_games": 10}},
     "probe agent must be"),
    ("research/results/x.safetensors", {"probe": {"agent": "ppo-2p --trust-pickle", "players": 2,
                                               "steps": 10, "seed": 0, "eval_games": 10}},
     "probe agent must be"),
    ("research/results/x.safetensors", {"probe": {"agent": "ppo-2p", "players": 2, "steps": 10,
                                               "seed": 0, "eval_games": 10,
                                               "trust_pickle": True}}, "exactly agent"),
    ("research/results/x.safetensors", {"probe": {"agent": "ppo-2p", "players": "2 --ray auto",
                                               "steps": 10, "seed": 0, "eval_games": 10}},
     "players must be an int"),
    ("/tmp/x.safetensors", {"script": "research/sweeps/race.sh 2p_v2"}, "relative path"),
    ("research/results/../../x.safetensors", {"script": "research/sweeps/race.sh 2p_v2"},
     "relative path"),
    ("research/results/x.safetensors", {"script": "research/sweeps/a.sh; rm -rf ~"},
     "script must be"),
])
def test_a_hostile_manifest_entry_is_refused_and_nothing_runs(path, entry, words, tmp_path,
                                                             monkeypatch, capsys):
    rebuild = _rebuild()
    with pytest.raises(ValueError, match=words):
        rebuild.describe(path, entry)
    manifest = tmp_path / "weights.json"
    manifest.write_text(json.dumps({"files": {path: {"sha256": "0" * 64, "bytes": 1, **entry}}}))
    monkeypatch.setattr(rebuild, "MANIFEST", manifest)
    ran = []
    monkeypatch.setattr(rebuild.subprocess, "run", lambda *a, **k: ran.append(a))
    assert rebuild.main([path]) == 2 and not ran
    assert "not a weights manifest" in capsys.readouterr().err


def test_a_probe_entry_runs_only_the_command_built_from_its_settings(tmp_path, monkeypatch):
    rebuild = _rebuild()
    path = "research/results/probes/ppo2p_5m/exploiter.safetensors"
    entry = json.loads(MANIFEST.read_text())["files"][path]
    ran = []

    def fake_run(argv, check):
        ran.append(argv)
        out = Path(argv[argv.index("--out") + 1])
        (out / "exploiter.safetensors").write_bytes(b"x")

    monkeypatch.setattr(rebuild.subprocess, "run", fake_run)
    monkeypatch.setattr(rebuild, "ROOT", tmp_path)
    assert rebuild.main([path]) == 0
    p = entry["probe"]
    assert ran[0][1:-2] == ["-m", "machu_env.cli", "exploit", "--agent", p["agent"],
                            "--players", str(p["players"]), "--steps", str(p["steps"]),
                            "--seed", str(p["seed"]), "--eval-games", str(p["eval_games"])]
    assert (tmp_path / path).read_bytes() == b"x"


def test_the_small_results_stay_within_the_budget():
    total = sum(p.stat().st_size for p in _files())
    assert total <= BUDGET, (f"research/results/ holds {total / 2**20:.1f} MiB of results; the "
                             f"budget is {BUDGET / 2**20:.0f} MiB: keep summaries, not whole runs")


def test_a_clone_stays_light():
    total = sum(p.stat().st_size for p in _tracked())
    assert total <= MAX_CHECKOUT, (f"the tracked files weigh {total / 1e6:.1f} MB; a clone "
                                   f"without .git stays within {MAX_CHECKOUT / 1e6:.0f} MB")


def test_no_doc_cites_a_weight_file_that_is_not_shipped():
    sources = [*ROOT.glob("docs/*.md"), ROOT / "README.md"]
    cited = sorted({word.strip("`()[],.;:") for source in sources
                    for word in source.read_text().split()
                    if ".safetensors" in word and "research/results/" in word})
    assert not cited, f"docs cite weight files that are not shipped: {cited}"


def test_every_path_a_doc_or_sweep_cites_under_research_results_exists():
    sources = [*ROOT.glob("docs/*.md"), ROOT / "README.md", ROOT / "research" / "log.md",
               *ROOT.glob("research/sweeps/*")]
    cited = set()
    for source in sources:
        text = source.read_text(errors="replace")
        for word in text.replace("`", " ").replace("(", " ").replace(")", " ").split():
            word = word.rstrip(".,;:")
            if word.startswith("research/results/") and "*" not in word and "<" not in word \
                    and "$" not in word and "{" not in word:
                cited.add(word)
    assert len(cited) > 20, cited  # (the docs cite the records of their figures)
    removed = set(json.loads(MANIFEST.read_text())["files"])  # (rebuilt on demand)
    missing = sorted(c for c in cited if not (ROOT / c).exists() and c not in removed
                     and not _bundled(c))
    assert not missing, f"cited but not in the repository: {missing}"


def _bundled(cited: str) -> bool:
    """Whether a cited file or folder under a study's folder is in the study's bundle
    (``research/results/STUDY/results.json``: the study's files keyed by their path there)."""
    parts = cited.removeprefix("research/results/").split("/", 1)
    bundle = RESULTS / parts[0] / "results.json"
    if len(parts) < 2 or not bundle.is_file():
        return False
    keys = json.loads(bundle.read_text())["files"]
    return any(k == parts[1] or k.startswith(parts[1].rstrip("/") + "/") for k in keys)


def test_a_study_bundle_is_its_files_keyed_by_path():
    """Each study's results.json maps paths (no absolute path, no '..') to their contents."""
    bundles = sorted(RESULTS.glob("*/results.json"))
    assert bundles
    for bundle in bundles:
        data = json.loads(bundle.read_text())
        assert set(data) == {"about", "files"} and data["files"], bundle
        assert all(not k.startswith("/") and ".." not in k.split("/") for k in data["files"])


def test_every_sweep_script_says_which_dated_entry_it_reproduces():
    """The one-off scripts of research/sweeps/ stay to reproduce dated research-log entries (a new
    agent is trained with a recipe): each says so in its first line after a shebang."""
    for path in sorted((ROOT / "research" / "sweeps").iterdir()):
        lines = path.read_text().splitlines()
        first = lines[1] if lines[0].startswith("#!") else lines[0]
        assert first.startswith(("# Reproduces research/log.md", "# Reproduces docs/")) \
            and "(2026-" in first, path.name
