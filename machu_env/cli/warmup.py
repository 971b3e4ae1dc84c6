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
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path


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

    from machu_env.envs.pool_env import PoolVecEnv

    for players in (2, 3):
        for version in (1, 2, 3):
            env = PoolVecEnv(8, players, seed=1, observation=version,
                             pool="random:0.25,builder:0.25,gold:0.25,racer:0.25")
            env.reset()
            rng = np.random.default_rng(0)
            for _ in range(60):
                masks = env.action_masks()
                env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def _recorded() -> None:
    from machu_env.train.dataset import play_recorded

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


def _mark(part: str) -> Path:
    from machu_env._cache import cache_dir

    return cache_dir() / f"warm-{part}"


def missing(parts) -> list[str]:
    """The parts not yet compiled for this version of the sources on this machine."""
    return [p for p in parts if not _mark(p).exists()]


def enabled() -> bool:
    return os.environ.get("MACHU_ENV_WARMUP", "").lower() not in ("off", "0", "no")


def _compile(part: str) -> tuple[str, float]:
    t0 = time.perf_counter()
    PARTS[part][1]()
    _mark(part).parent.mkdir(parents=True, exist_ok=True)
    _mark(part).touch()
    return part, time.perf_counter() - t0


@contextmanager
def _heartbeat(beat: Callable[[], None]) -> Iterator[None]:
    """``beat()`` every ``HEARTBEAT`` seconds (from a thread) while the block runs: no silent
    stretch longer than that."""
    stop, every = threading.Event(), HEARTBEAT

    def run() -> None:
        while not stop.wait(every):
            beat()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


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
    left = list(todo)
    with _heartbeat(lambda: say(f"  still compiling {', '.join(PARTS[p][0] for p in left)} "
                                f"({time.perf_counter() - t0:.0f} s so far)")):
        if workers <= 1:
            for part in todo:
                _, seconds = _compile(part)
                left.remove(part)
                say(f"  compiled {PARTS[part][0]} ({seconds:.0f} s)")
        else:
            import multiprocessing

            context = multiprocessing.get_context("spawn")  # (no forked numba or torch state)
            with ProcessPoolExecutor(workers, mp_context=context) as pool:
                for done in as_completed([pool.submit(_compile, p) for p in todo]):
                    part, seconds = done.result()
                    left.remove(part)
                    say(f"  compiled {PARTS[part][0]} ({seconds:.0f} s)")
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
