"""What a first run compiles: the numba kernels and signatures each main command compiles on a
machine that has compiled nothing, and how long its first and second runs take.

    python benchmarks/compile_profile.py            # tournament, train, exploit, serve
    python benchmarks/compile_profile.py --commands tournament,serve

Each command runs twice in a fresh, empty cache folder (``MACHU_ENV_CACHE_DIR``): first with
``MACHU_ENV_WARMUP=off``, so that only what its own work touches compiles (the kernels and
signatures it needs: counted from the cache's files, an index file per kernel and a data file
per signature), then again warm; then once more in another empty folder as a user runs it
(the parts ``machu warmup`` would compile for it, up front, said and in parallel), to show
what compiling by parts costs beside compiling only what is touched. Writes
``benchmarks/results/compile_profile.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# each command small: the work is the same kernels as a long run, only fewer times
COMMANDS = {
    "tournament": ["tournament", "--agents", "random,builder,gold", "--players", "3",
                   "--games", "6", "--workers", "1", "--no-progress", "--out", "{tmp}/t"],
    "train": ["train", "--players", "2", "--timesteps", "4096", "--n-envs", "16",
              "--batch-size", "1024", "--imitate-games", "20", "--eval-games", "20", "--out",
              "{tmp}/run"],
    "exploit": ["exploit", "--agent", "gold", "--players", "2", "--steps", "4096",
                "--batch-size", "1024", "--n-envs", "16", "--eval-games", "20", "--out",
                "{tmp}/probe"],
    "serve": ["serve", "--port", "{port}"],
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(name: str, cache: Path, warmup: bool) -> float:
    """Seconds for one run of command ``name`` with this cache folder (serve: until it
    listens)."""
    tmp = tempfile.mkdtemp(prefix="compile_profile_")
    port = _free_port()
    args = [a.format(tmp=tmp, port=port) for a in COMMANDS[name]]
    env = {**os.environ, "MACHU_ENV_CACHE_DIR": str(cache),
           "MACHU_ENV_WARMUP": "on" if warmup else "off"}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "machu_env.cli", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        if name == "serve":
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None:
                        raise RuntimeError(proc.stderr.read()) from None
                    time.sleep(0.2)
            seconds = time.perf_counter() - t0
            proc.terminate()
            proc.wait(30)
            return seconds
        _, err = proc.communicate(timeout=1800)
        if proc.returncode:
            raise RuntimeError(f"machu {' '.join(args)} failed: {err[-2000:]}")
        return time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def compiled(cache: Path) -> dict[str, int]:
    """Kernel -> signatures compiled, from the cache's files (``module.function-line.pyXY.nbi``
    indexes a kernel, ``....pyXY.N.nbc`` holds one signature)."""
    found: Counter[str] = Counter()
    for data in cache.rglob("*.nbc"):
        kernel = data.name.split(".py")[0]
        module = data.parent.relative_to(cache).parts[1:]  # (after the numba-<key> folder)
        found[".".join([*module, kernel])] += 1
    return dict(sorted(found.items()))


def profile(name: str) -> dict:
    root = Path(tempfile.mkdtemp(prefix="compile_profile_cache_"))
    try:
        touched = root / "touched"
        cold = _run(name, touched, warmup=False)
        warm = _run(name, touched, warmup=False)
        kernels = compiled(touched)
        parts = root / "parts"
        with_parts = _run(name, parts, warmup=True)
        by_parts = compiled(parts)
        return {"command": "machu " + " ".join(COMMANDS[name]),
                "first_run_seconds": round(cold, 1), "second_run_seconds": round(warm, 1),
                "kernels": len(kernels), "signatures": sum(kernels.values()),
                "first_run_with_warmup_parts_seconds": round(with_parts, 1),
                "warmup_parts_kernels": len(by_parts),
                "warmup_parts_signatures": sum(by_parts.values()),
                "compiled_by_parts_not_touched": sorted(set(by_parts) - set(kernels)),
                "touched_not_in_parts": sorted(set(kernels) - set(by_parts)),
                "signatures_by_kernel": kernels}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    from machu_env.bench.machine import cpu_model

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" /
                                             "compile_profile.json"))
    args = parser.parse_args()
    names = [n for n in args.commands.split(",") if n]
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        parser.error(f"unknown commands {unknown}; choose from {', '.join(COMMANDS)}")
    results = {}
    for name in names:
        results[name] = profile(name)
        r = results[name]
        print(f"{name}: first run {r['first_run_seconds']} s, second {r['second_run_seconds']} s;"
              f" {r['kernels']} kernels, {r['signatures']} signatures; with the warm-up parts "
              f"{r['first_run_with_warmup_parts_seconds']} s ({r['warmup_parts_kernels']} "
              f"kernels, {len(r['compiled_by_parts_not_touched'])} not touched)", flush=True)
    record = {"command": "python benchmarks/compile_profile.py --commands " + ",".join(names),
              "date": time.strftime("%Y-%m-%d"), "machine": f"{cpu_model()}, "
              f"{os.cpu_count()} cores", "results": results}
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
