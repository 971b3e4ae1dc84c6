"""``machu bench``, ``machu warmup``, ``machu rules``, ``machu cache`` and ``machu export``."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from machu_env._extras import install_hint
from machu_env.cli.commands import console
from machu_env.cli.options import output_folder, refuse_overwrite
from machu_env.rules.actions import action_table


# --- bench, rules --------------------------------------------------------------------------------
def bench(quick: bool = typer.Option(False, help="shorter timings, fewer points"),
          out: Path = typer.Option(Path("runs/bench"), help="output folder")) -> None:
    """Run the throughput benchmark suite and compare this machine with the docs' figures."""
    from machu_env.bench import suite

    output_folder(out, "--out")
    suite.main(["--out", str(out), *(["--quick"] if quick else [])])


def warmup(workers: int = typer.Option(0, min=0, max=64, help="processes compiling at once "
                                        "(0: one per CPU)")) -> None:
    """Compile the game engine for this machine now, every part, several at once (a first
    command would otherwise do it, for the parts it uses); run it once after installing."""
    from machu_env.cli import warmup as W

    t0 = time.perf_counter()
    seconds = W.compile_parts(list(W.PARTS), lambda text: console.print(text), workers)
    if not seconds:
        console.print(f"the engine is already compiled for this machine "
                      f"({time.perf_counter() - t0:.1f} s to check)")


def rules() -> None:
    """Print the action notation table (id and notation of every action)."""
    print(action_table())


def cache(clear: bool = typer.Option(False, help="delete every compiled version")) -> None:
    """Show (or clear) numba's cache of the compiled engine: which folder holds it and why the
    ones before it were passed over (showing writes nothing)."""
    import re
    import shutil

    from machu_env import _cache

    root = _cache.cache_root()
    if root is None:
        console.print(_cache.explain(), highlight=False)
        return
    versions = sorted(v for v in root.glob("numba-*")
                      if v.is_dir() and re.fullmatch(r"numba-[0-9a-f]{20}", v.name))
    size = sum(f.stat().st_size for v in versions for f in v.rglob("*") if f.is_file())
    console.print(f"{_cache.explain()}: {len(versions)} compiled version(s), "
                  f"{size / 2**20:.1f} MiB; this version: {_cache.cache_dir().name}"
                  + ("" if _cache.cache_dir().is_dir() else " (not compiled yet)"),
                  highlight=False)
    if clear:
        for v in versions:
            shutil.rmtree(v, ignore_errors=True)
        console.print("cleared")


# --- export --------------------------------------------------------------------------------------
def export(
    source: Path = typer.Argument(..., help="a checkpoint (a run's best.safetensors, ...) or an "
                                  "sb3 .zip (with --trust-pickle)"),
    target: Path = typer.Argument(..., help="the agent file to write (.safetensors)"),
    trust_pickle: bool = typer.Option(False, help="allow reading an sb3 .zip (unpickling can "
                                      "run code)"),
    note: str = typer.Option(None, help="a note stored in the file's metadata"),
    play_temperature: float = typer.Option(None, metavar="T", help="how the agent plays: 0 "
                                           "argmax, T in [0.01, 100] sampled at temperature T "
                                           "(default: the source's own play entry)"),
) -> None:
    """Check a checkpoint and write it as an agent file for shipping or sharing (its play entry
    kept unless --play-temperature sets another)."""
    try:
        from machu_env.train.run.export import MAX_BYTES, export_policy, play_words
    except ImportError as e:
        raise typer.BadParameter(f"exporting needs the train extra ({e}): "
                                 + install_hint("train")) from None
    refuse_overwrite(target, [source], "TARGET")
    path = export_policy(source, target, trust_pickle, note, play_temperature)
    size = path.stat().st_size
    print(f"wrote {path} ({size / 1e6:.2f} MB; {play_words(path)})")
    if size > MAX_BYTES:
        raise typer.BadParameter(f"{path} is larger than the {MAX_BYTES / 2**20:.0f} MiB "
                                 "shipped-agent limit: use a smaller --net-arch")
