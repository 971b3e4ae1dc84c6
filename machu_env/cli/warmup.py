"""Compiling the engine, said and shown: ``machu warmup``, and the first run of a command.

The engine is numba code compiled for the machine on first use and cached (``machu_env._cache``);
a first run would otherwise sit silent for a minute or more. The kernels come in parts, each a
small workload that compiles what it touches; a part done leaves a mark in the cache folder of
this version of the sources, so a command compiles (and says so) only the parts it uses that are
not yet there, several at once in worker processes, with a line as each part finishes.
``machu warmup`` compiles every part (run it after installing). ``MACHU_ENV_WARMUP=off`` skips
the announcement and the up-front compile (the tests set it; the kernels then compile inside
the work, silently, as before).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from machu_env.core import files
from machu_env.core.heartbeat import beating


def _rules() -> None:
    import random

    from machu_env import Game

    for players in (2, 3, 4, 5):
        game, rng = Game(players, seed=players), random.Random(players)
        while not game.is_over and len(game.history) < 600:
            game.play(rng.choice(game.legal_action_ids()))
        for version in (1, 2, 3):
            game.observation(0, version)
        game.scores()


def _heuristics() -> None:
    from machu_env import Game
    from machu_env.agents import make_agent

    for players in (2, 3):
        game = Game(players, seed=1)
        agents = [make_agent(n, seed=k) for k, n in enumerate(["gold", "builder", "random"])]
        while not game.is_over and len(game.history) < 600:
            game.play(agents[game.current_player % len(agents)].act(game))


def _batch() -> None:
    import numpy as np

    from machu_env.core.learner_batch import LearnerBatch

    for players in (2, 3):
        for version in (1, 2, 3):
            env = LearnerBatch(8, players, seed=1, observation=version,
                             pool="random:0.25,builder:0.25,gold:0.25,racer:0.25")
            env.reset()
            rng = np.random.default_rng(0)
            for _ in range(60):
                masks = env.action_masks()
                env.advance_unchecked(env.checked_actions(
                    np.array([rng.choice(np.flatnonzero(m)) for m in masks])))


def _recorded() -> None:
    from machu_env.train.data.recorded import play_recorded

    for players in (2, 3):
        for _ in play_recorded(["gold"], players, 2, seed=0):
            pass


def _pictures() -> None:
    from machu_env import Game, board_svg

    board_svg(Game(3, seed=0), 0)


PARTS: dict[str, tuple[str, Callable[[], None]]] = {
    "rules": ("the rules (Game, observations, scoring)", _rules),
    "heuristics": ("the heuristic agents", _heuristics),
    "batch": ("the batch engine and the training env's opponents", _batch),
    "recorded": ("recorded play (imitation, datasets)", _recorded),
    "pictures": ("the board pictures", _pictures),
}
TRAINING = ("rules", "heuristics", "batch")  # (+ "recorded" where a run imitates: training_parts)
NEEDS = {"play": ("rules", "heuristics"), "tournament": ("rules", "heuristics"),
         "analyze": ("rules",), "replay": ("rules", "pictures"),
         "serve": ("rules", "heuristics", "pictures"), "dataset": (*TRAINING, "recorded"),
         "train": (*TRAINING, "recorded"), "exploit": TRAINING, "population": TRAINING}
ESTIMATE = "about a minute on a 2-core machine, once"
HEARTBEAT = 8.0  # seconds between the "still compiling" lines


def _mark(part: str) -> Path | None:
    from machu_env._cache import cache_dir

    folder = cache_dir()
    return None if folder is None else folder / f"warm-{part}"


def _index_files() -> list[str]:
    """The compiled functions' index files of this version (relative paths)."""
    from machu_env._cache import cache_dir

    folder = cache_dir()
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.nbi")) \
        if folder is not None and folder.is_dir() else []


def _warm(part: str) -> bool:
    """A part's mark is there and every index file it recorded still is (a cache cleared by
    hand is compiled again, not trusted)."""
    mark = _mark(part)
    try:
        text = files.read_text(mark, 10_000_000, links=False)
        recorded = [n for n in text.split("\n") if n]
    except (ValueError, AttributeError, TypeError):  # (no mark, or no cache at all)
        return False
    from machu_env._cache import cache_dir

    folder = cache_dir()
    return folder is not None and all((folder / name).is_file() for name in recorded)


def missing(parts) -> list[str]:
    """The parts not yet compiled for this version of the sources on this machine (none
    where no folder can hold the cache: compiling ahead then saves nothing)."""
    if _mark("rules") is None:
        return []
    return [p for p in parts if not _warm(p)]


def enabled() -> bool:
    return os.environ.get("MACHU_ENV_WARMUP", "").lower() not in ("off", "0", "no")


def _compile(part: str) -> tuple[str, float]:
    t0 = time.perf_counter()
    PARTS[part][1]()
    mark = _mark(part)
    if mark is not None:
        from machu_env.core import files

        mark.parent.mkdir(parents=True, exist_ok=True)
        files.write_text(mark, "\n".join(_index_files()))
    return part, time.perf_counter() - t0


def _worker(part: str, conn) -> None:
    """A worker process: compile ``part``, send its seconds (no result: the parent compiles
    it itself). Its stop signals stay blocked (inherited): the parent decides when it ends."""
    try:
        conn.send(_compile(part)[1])
    except Exception:
        os._exit(1)


@contextmanager
def _stops_blocked() -> Iterator[None]:
    """The stop signals blocked while the block runs (a signal then acts when it ends). A
    process started meanwhile inherits the block for good, so that a Ctrl-C at the terminal
    (sent to every process of the group) reaches the command only, which ends the workers: no
    worker keeps compiling, none prints a traceback."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    from machu_env.core.signals import STOPS

    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# the worker processes' entry: the ``machu`` launcher's (it ignores the stop signals before it
# imports anything: ``entry_point`` sets it), else ``_worker`` (the signals stay blocked)
WORKER_ENTRY: list[Callable] = []


def _start(context, part: str):
    """A worker process for ``part`` and the end of the pipe its seconds come back on."""
    here, there = context.Pipe(duplex=False)
    entry = WORKER_ENTRY[0] if WORKER_ENTRY else _worker
    proc = context.Process(target=entry, args=(part, there), daemon=True)
    proc.start()
    there.close()
    return proc, here


def _in_workers(todo: list[str], workers: int, done: Callable[[str, float], None],
                say: Callable[[str], None]) -> None:
    """Compile ``todo`` in up to ``workers`` processes; a worker that dies (the out-of-memory
    killer) has its part compiled here instead, said in a line; on any exception or signal
    every worker is ended at once."""
    import multiprocessing
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("spawn")  # (no forked numba or torch state)
    pending, running = list(todo), {}
    try:
        while pending or running:
            while pending and len(running) < workers:
                part = pending.pop(0)
                with _stops_blocked():  # (recorded as running before a signal can act)
                    running[part] = _start(context, part)
            wait([c for _, c in running.values()] + [p.sentinel for p, _ in running.values()],
                 timeout=1.0)
            for part, (proc, conn) in list(running.items()):
                seconds = None
                if conn.poll():
                    try:
                        seconds = conn.recv()
                    except (EOFError, OSError):
                        seconds = None
                elif proc.is_alive():
                    continue
                proc.join()
                conn.close()
                del running[part]
                if seconds is None:
                    say(f"  the worker compiling {PARTS[part][0]} ended (exit status "
                        f"{proc.exitcode}); compiling it in this process")
                    _, seconds = _compile(part)
                done(part, seconds)
    finally:
        for proc, conn in running.values():
            proc.kill()
            proc.join()
            conn.close()


def compile_parts(parts, say: Callable[[str], None], workers: int = 0) -> float:
    """Compile ``parts`` (those not yet marked), ``workers`` processes at once (0: one per
    CPU, at most one per part), saying what it does; returns the seconds it took."""
    todo = missing(parts)
    if not todo:
        return 0.0
    t0 = time.perf_counter()
    workers = min(len(todo), workers or os.cpu_count() or 1)
    say(f"compiling the game engine for this machine ({ESTIMATE}; later runs start in "
        f"seconds): {', '.join(PARTS[p][0] for p in todo)}")
    from machu_env._cache import explain

    say(f"  kept in {explain()}")  # (which folder, and why an earlier candidate was not taken)
    left = list(todo)

    def done(part: str, seconds: float) -> None:
        left.remove(part)
        say(f"  compiled {PARTS[part][0]} ({seconds:.0f} s)")

    with beating(HEARTBEAT, lambda: left and say(f"  still compiling "
                                         f"{', '.join(PARTS[p][0] for p in left)} "
                                         f"({time.perf_counter() - t0:.0f} s so far)")):
        if workers <= 1:
            for part in todo:
                done(*_compile(part))
        else:
            _in_workers(todo, workers, done, say)
    seconds = time.perf_counter() - t0
    say(f"the engine is compiled ({seconds:.0f} s)")
    return seconds


def training_parts(imitates: bool) -> tuple[str, ...]:
    """A training run's parts: the recorded play only where it imitates a heuristic first."""
    return (*TRAINING, "recorded") if imitates else TRAINING


def before(command: str, say: Callable[[str], None],
           parts: tuple[str, ...] | None = None) -> None:
    """What ``command`` compiles (``parts``: this run's, else the command's own list), said and
    done before its work (nothing once it is cached)."""
    if enabled() and (parts is not None or command in NEEDS):
        compile_parts(NEEDS[command] if parts is None else parts, say)
