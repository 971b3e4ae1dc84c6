"""Tournaments: every seating permutation evenly, in parallel processes, with ratings.

Game ``i`` uses seating ``i mod S`` (S distinct seatings) and game seed ``seed * 1_000_003 + i``;
agent seeds derive from the game seed, so the same seed gives the same results (for search
agents with an iteration budget; a time budget depends on the machine's speed).

Nothing in the rules forces a game to end (a Prince may move between two adjacent districts for
ever, R3.1, and the day ends only with the third moon tile, R6.1): two agents that never stay
would play for ever. A game still running after ``max_decisions`` decisions (all players'; 5000
by default, as the environments truncate) ends *truncated*: nobody wins it, it counts in every
seated agent's games (so in the denominator of its win share), not in the mean scores, and it
does not move the ratings. The summary reports the truncated share beside the two endings.
"""

from __future__ import annotations

import collections
import itertools
import json
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from machu_env.agents import make_agent, shipped_policy
from machu_env.agents.seatings import seatings  # noqa: F401  (re-exported)
from machu_env.agents.standings import summarise
from machu_env.core import files as whole_files
from machu_env.core.checks import check_decisions
from machu_env.core.game import DEFAULT_MAX_DECISIONS, Game
from machu_env.core.records import game_record


def trained_for(name: str) -> int | None:
    """The player count a trained agent's file says it was trained for (None: a heuristic, a
    search over no policy, or a file that does not say); read from the header, without torch."""
    from machu_env.agents.catalogue import _header, resolve
    from machu_env.agents.policy_file import SUFFIX

    inner = name.split(":", 1)[1] if name.startswith(("search:", "rollout:")) else name
    path = shipped_policy(resolve(inner))
    if path is None and inner.startswith("policy:") and inner.endswith(SUFFIX):
        path = Path(inner.split(":", 1)[1])
    try:
        info = json.loads(_header(path).get("info", "{}")) if path is not None else {}
        players = info.get("players") if isinstance(info, dict) else None
    except (OSError, ValueError):
        return None
    return players if isinstance(players, int) and not isinstance(players, bool) else None


def seating_warnings(agents: Sequence[str], num_players: int, games: int) -> list[str]:
    """What a user should know before the games: an agent seated at a player count it was not
    trained for, and seatings that cannot all be played equally often."""
    out = []
    for name in dict.fromkeys(agents):
        trained = trained_for(name)
        if trained is not None and trained != num_players:
            out.append(f"{name} was trained for {trained} players; it plays this "
                       f"{num_players}-player game as it is (weaker than at its own count)")
    seats = len(seatings(agents, num_players))
    if games % seats:
        out.append(f"{games} games over {seats} seatings: "
                   + ("some seatings are not played" if games < seats else
                      "not every seating is played equally often")
                   + f" (a multiple of {seats} plays each one equally)")
    return out


def _agent_kwargs(name: str, mcts: dict[str, Any], trust_pickle: bool) -> dict[str, Any]:
    if name == "mcts":
        return dict(mcts)
    if name.startswith(("search:", "rollout:")):  # the same budget options: seconds and
        # iterations (search: simulations; rollout: rounds)
        opts = {"seconds": mcts["seconds"]} if "seconds" in mcts else {}
        if "iterations" in mcts:
            opts["simulations" if name.startswith("search:") else "rounds"] = mcts["iterations"]
        return {**opts, **({"trust_pickle": True} if trust_pickle else {})}
    return {"trust_pickle": True} if trust_pickle else {}


def agent_file_paths(names: Iterable[str]) -> list[str]:
    """The file paths inside agent names (``policy:<path>``, ``search:policy:<path>``...)."""
    paths = []
    for name in names:
        inner = name.split(":", 1)[1] if name.startswith(("search:", "rollout:")) else name
        if inner.startswith("policy:"):
            paths.append(inner.split(":", 1)[1])
    return list(dict.fromkeys(paths))


def _local_copy(path: str, data: bytes) -> str:
    """A file the driver shipped, written once per worker process into that process's private
    folder (``mkdtemp``), named by its content; a copy found there is used only if its content
    still has that hash."""
    import hashlib

    from machu_env._cache import private_temp_folder

    digest = hashlib.sha256(data).hexdigest()
    local = private_temp_folder("agents") / (digest + Path(path).suffix)
    if not (local.is_file() and hashlib.sha256(
            whole_files.read_bytes(local, len(data), links=False)).hexdigest() == digest):
        whole_files.write_bytes(local, data)
    return str(local)


def _on_this_node(name: str, files: dict[str, bytes]) -> str:
    """``name`` with a shipped file's driver path replaced by its local copy."""
    for path, data in files.items():
        if name.endswith("policy:" + path):
            return name[: len(name) - len(path)] + _local_copy(path, data)
    return name


def play_game(args: tuple) -> dict[str, Any]:
    """Play one game (in a worker process); returns its result row. ``files`` (Ray: its
    object reference) maps the agent files named in the seating to their bytes, read on the
    driver: a node needs no copy of them."""
    index, seating, game_seed, mcts, keep_record, trust_pickle, max_decisions, files = args
    if files is not None and not isinstance(files, dict):  # a Ray object reference
        import ray

        files = ray.get(files)
    game = Game(len(seating), seed=game_seed)
    players = [make_agent(_on_this_node(name, files or {}), game_seed * 8 + p,
                          **_agent_kwargs(name, mcts, trust_pickle))
               for p, name in enumerate(seating)]
    while not game.is_over and len(game.history) < max_decisions:
        game.play(players[game.current_player].act(game))
    return {"index": index, "seating": list(seating), "seed": game_seed,
            "end": game.end if game.is_over else "truncated",
            "decisions": len(game.history), "scores": game.scores(),
            "record": game_record(game, list(seating)) if keep_record else None}


def local_worker_limit() -> int:
    """The most local worker processes a tournament starts: the CPU count (at least 2)."""
    return max(2, os.cpu_count() or 1)


def run_tournament(agents: Sequence[str], num_players: int, games: int, *, seed: int = 0,
                   workers: int | None = 1, mcts: dict[str, Any] | None = None,
                   records_dir: Path | None = None, progress: bool = True,
                   trust_pickle: bool = False, html: bool = False,
                   ray: str | None = None,
                   max_decisions: int = DEFAULT_MAX_DECISIONS,
                   warn: Callable[[str], None] | None = None,
                   start: Callable[[], None] | None = None) -> dict[str, Any]:
    """Play the tournament and return its summary (see ``summarise``). Games are created,
    played and summarised as a stream: memory does not grow with ``games``. With
    ``records_dir``, every game's record is saved there (``game_<i>.json``) and, with ``html``,
    its HTML replay page too (``game_<i>.html``). ``ray``: run the games as Ray tasks on the
    instance at this address (``local``, ``auto``, ``ray://host:port``; ``ray_backend``), with
    ``workers`` x 4 games in flight; the summary is the same as the local backend's.
    ``max_decisions``: a game still running then ends truncated (see the module docstring).
    ``warn``: given each ``seating_warnings`` line once the agents and the backend are checked,
    before the first game; ``start``: called then too, first (the CLI compiles the engine)."""
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"games must be an int >= 1, got {games!r}")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                or workers < 1):
        raise ValueError(f"workers must be an int >= 1 (or None: 1, with ray the cluster's "
                         f"CPUs), got {workers!r}")
    check_decisions("max_decisions", max_decisions)
    for name in agents:  # unknown names and untrusted files fail here, before any game
        make_agent(name, **_agent_kwargs(name, {}, trust_pickle))
    seats = seatings(agents, num_players)
    ray_started, files = False, None
    if ray is not None:  # a missing extra or an unreachable cluster fails before any game
        from machu_env.ray_backend import cluster_cpus, connect, require_ray

        ray_started = connect(ray)
        if workers is None:
            workers = cluster_cpus()
        # agent files are read here, on the driver, and shipped once to the object store
        from machu_env.agents.policy_file import read_bytes

        files = require_ray().put({path: read_bytes(path)
                                   for path in agent_file_paths(agents)})
    elif workers is None:
        workers = 1
    elif workers > local_worker_limit():
        raise ValueError(f"workers must be at most {local_worker_limit()} here (this machine's "
                         f"CPUs; more processes only compete for them), got {workers}")
    if start is not None:
        start()
    if warn is not None:
        for line in seating_warnings(agents, num_players, games):
            warn(line)
    if records_dir is not None:
        records_dir.mkdir(parents=True, exist_ok=True)
    jobs = ((i, seats[i % len(seats)], seed * 1_000_003 + i, mcts or {},
             records_dir is not None, trust_pickle, max_decisions, files) for i in range(games))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, desc="games", unit="game")

    def results():
        for r in _play_in_order(jobs, workers, ray):
            if records_dir is not None:
                stem = records_dir / f"game_{r['index']:05d}"
                whole_files.write_text(stem.with_suffix(".json"), json.dumps(r["record"]))
                if html:
                    whole_files.write_text(stem.with_suffix(".html"), html_replay(r["record"]))
            r["record"] = None
            if bar:
                bar.update()
            yield r

    try:
        return summarise(list(dict.fromkeys(agents)), results(), num_players, len(seats))
    finally:
        if bar:
            bar.close()
        if ray_started:
            from machu_env.ray_backend import require_ray

            require_ray().shutdown()


def html_replay(record: dict[str, Any]) -> str:
    from machu_env.views.replay_html import html_replay as page

    return page(record)


def _one_thread_per_worker() -> None:
    """Worker processes are one per core: each keeps torch (and OpenMP) to one thread. Two
    threads per worker on a busy machine made policy-rollout games several times slower."""
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _play_in_order(jobs, workers: int, ray: str | None = None):
    """Results of ``jobs`` in their order; with several workers, a bounded window of games in
    flight (a huge tournament never holds its job list)."""
    if ray is not None:
        from machu_env.ray_backend import ordered_results

        yield from ordered_results(play_game, jobs, workers, ray)
        return
    if workers == 1:
        for job in jobs:
            yield play_game(job)
        return
    # spawn, not fork: a parent that already runs torch (policy agents) or numba threads must
    # not be forked
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                             initializer=_one_thread_per_worker) as pool:
        window = collections.deque(pool.submit(play_game, job)
                                   for job in itertools.islice(jobs, 4 * workers))
        try:
            while window:
                result = window.popleft().result()
                nxt = next(jobs, None)
                if nxt is not None:
                    window.append(pool.submit(play_game, nxt))
                yield result
        finally:
            for f in window:
                f.cancel()
