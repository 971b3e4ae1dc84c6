"""Every read and write of a run folder, an agent file, a record or a result goes through the one
file layer (``core.files``, ``core.run_files``), as the layers test keeps the imports: no bare
``open(..., "w")``, ``write_text``, ``read_text``, ``write_bytes``, ``read_bytes``,
``os.replace``, ``json.load`` or removal elsewhere in the package, but for the places listed
here with the reason they are not such files."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the package's folders in the checkout, each with its path inside the package as installed
FOLDERS = {ROOT / "machu_env": "", ROOT / "agents": "agents/", ROOT / "train": "train/"}
LAYER = {"core/files.py", "core/run_files.py"}
BARE = re.compile(r"""\bopen\([^)]*["'][wax]b?\+?["']|\.write_text\(|\.read_text\(|"""
                  r"""\.write_bytes\(|\.read_bytes\(|\bos\.replace\(|\.replace\(local\)|"""
                  r"""\bjson\.load\(|\.unlink\(|\bshutil\.rmtree\b|\bopen\(""")
LAYER_CALL = re.compile(r"\b(files|whole_files|policy_file|F)\.\w+\(")  # the layer's own
# (file, what the line holds): not a run, agent, record or result file
ALLOWED = {
    ("_cache.py", "shutil.rmtree"): "a private temp folder of this process (mkdtemp)",
    ("_cache.py", "path.read_bytes()"): "numba's own cache index, hashed to key the cache",
    ("_cache.py", "open(path"): "numba's own cache index",
    ("train/run/progress.py", 'open("/proc/loadavg")'): "the kernel's load average",
    ("train/ppo/threads.py", 'open("/proc/stat"'): "the kernel's CPU counters",
    ("train/data/imitate.py", 'open("/proc/meminfo")'): "the kernel's memory figures",
    ("bench/machine.py", 'Path("/proc/cpuinfo").read_text()'): "the kernel's CPU description",
    ("views/raster.py", "image.open(io.BytesIO"): "a picture in memory",
    ("train/data/dataset.py", "shutil.rmtree(work"): "the dataset's own mkdtemp work folder",
    ("cli/tools.py", "shutil.rmtree(v"): "machu cache --clear: the numba cache's versions",
    ("cli/evaluating.py", "shutil.rmtree(folder"): "a tournament's records folder, empty or "
                                                  "absent before the run",
    ("cli/evaluating.py", "(out / name).unlink"): "a tournament output this run changed",
}


def _modules() -> dict[str, Path]:
    """Every module of the package: its path inside the package -> its file."""
    return {prefix + p.relative_to(folder).as_posix(): p
            for folder, prefix in FOLDERS.items() for p in sorted(folder.rglob("*.py"))}


def _bare_uses() -> list[str]:
    found = []
    for rel, path in _modules().items():
        if rel in LAYER:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = LAYER_CALL.sub("", line.split("#", 1)[0])
            if BARE.search(code) and not any(
                    rel == f and what in code for f, what in ALLOWED):
                found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_every_file_goes_through_the_file_layer():
    assert _bare_uses() == []


def test_the_allowed_places_still_exist():
    """An entry no line matches any more is removed from the list (it would hide a new one)."""
    text = {rel: p.read_text() for rel, p in _modules().items()}
    assert [k for k in ALLOWED if k[1] not in text.get(k[0], "")] == []
