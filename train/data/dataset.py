"""Game datasets for offline RL and imitation learning: ``machu dataset``.

Games of any agents, recorded on the batch engine (``recorded``), become datasets: each seat
becomes one Minari dataset (``<name>-seat<p>-v0``: one episode per game, the seat's own
decisions; ``observations`` has one more row than ``actions``, the seat's view of the end;
``infos/action_mask`` holds int8 masks; the reward is the terminal ``win`` reward, +1 / -1),
and every game is also written as a record (``records/game_<i>.json``, version 2: the whole
deal, so ``machu replay`` and ``machu analyze`` read them).

Minari's own writer creates a group of small HDF5 datasets per episode through h5py's high-level
API (about 13k steps/s here); this module writes the same layout (Minari's ``HDF5Storage``:
``main_data.hdf5`` with ``episode_<id>`` groups, the metadata updated through Minari) with
h5py's low-level calls, and Minari creates, describes and reads the datasets. HDF5's cost is
per object, not per byte: ``rewards``, ``terminations`` and ``truncations`` (zeros but the last
step) are hard links to the first episode's dataset with the same content (readers see the same
arrays), three datasets fewer an episode. (Writing each seat's file in a forked process beside
the play was tried on the 2-core machine and was slower: page faults and no spare core.)
"""

from __future__ import annotations

import itertools
import os
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from machu_env.core import files
from machu_env.core.checks import check_int
from machu_env.core.records import game_record
from machu_env.core.reward_modes import terminal_rewards
from machu_env.engine.observation import OBS_SIZES
from machu_env.rules.actions import NUM_ACTIONS
from machu_env.train.data.recorded import Chunk, play_recorded


def _h5_dataset(gid, name: bytes, array: np.ndarray) -> None:
    from h5py import h5d, h5s, h5t

    array = np.ascontiguousarray(array)
    space = h5s.create_simple(array.shape) if array.ndim else h5s.create(h5s.SCALAR)
    h5d.create(gid, name, h5t.py_create(array.dtype), space).write(h5s.ALL, h5s.ALL, array)


def _h5_attr(gid, name: bytes, value: int) -> None:
    from h5py import h5a, h5s, h5t

    h5a.create(gid, name, h5t.NATIVE_INT64, h5s.create(h5s.SCALAR)).write(
        np.array(value, dtype=np.int64))


SHARED = ("rewards", "terminations", "truncations")  # zeros but the last entry: linked


def _shared_key(key: str, array: np.ndarray) -> str:
    """The content of a ``SHARED`` field, as a key (its length and last entry)."""
    assert not array[:-1].any()  # (by construction: only the last step has a reward or end)
    return f"{key}:{len(array)}:{float(array[-1]) if len(array) else 0.0}"


def _append(path: Path, episodes: Iterator[dict[str, np.ndarray]], first_id: int,
            shared: dict[str, int]) -> tuple[int, int, dict[str, int]]:
    """Append ``episodes`` to ``main_data.hdf5`` as ``episode_<first_id>``, ... (Minari's
    layout); a ``SHARED`` field whose content an earlier episode holds (``shared``: key ->
    episode id) is a hard link to that dataset. Returns the next episode id, the steps written
    and the keys it added."""
    import h5py
    from h5py import h5g, h5p

    added: dict[str, int] = {}
    e, steps = first_id, 0
    gcpl = h5p.create(h5p.GROUP_CREATE)
    gcpl.set_link_creation_order(h5p.CRT_ORDER_TRACKED | h5p.CRT_ORDER_INDEXED)
    with h5py.File(path / "main_data.hdf5", "a", track_order=True) as file:
        for ep in episodes:
            g = h5g.create(file.id, f"episode_{e}".encode(), gcpl=gcpl)
            _h5_attr(g, b"id", e)
            _h5_attr(g, b"total_steps", len(ep["actions"]))
            for key in ("observations", "actions"):
                _h5_dataset(g, key.encode(), ep[key])
            for key in SHARED:
                k = _shared_key(key, ep[key])
                holder = shared.get(k, added.get(k))
                if holder is None:
                    _h5_dataset(g, key.encode(), ep[key])
                    added[k] = e
                else:
                    g.links.create_hard(key.encode(), file.id,
                                        f"episode_{holder}/{key}".encode())
            infos = h5g.create(g, b"infos", gcpl=gcpl)
            _h5_dataset(infos, b"action_mask", ep["infos"]["action_mask"])
            e, steps = e + 1, steps + len(ep["actions"])
    return e, steps, added


class SeatWriter:
    """One Minari dataset (one seat): created by Minari with its first episode, the others
    appended to ``main_data.hdf5`` in Minari's layout (``_append``), a chunk at a time, the
    totals written back through Minari (``close``)."""

    def __init__(self, dataset_id: str, first: dict[str, np.ndarray], spec: Any, size: int,
                 description: str, agents: list[str]) -> None:
        import gymnasium as gym
        import minari
        from minari.data_collector import EpisodeBuffer

        with warnings.catch_warnings():  # (Minari's advice: no code link, no e-mail)
            warnings.simplefilter("ignore", UserWarning)
            minari.create_dataset_from_buffers(
                dataset_id, [EpisodeBuffer(id=0, **first)], env=spec, eval_env=spec,
                observation_space=gym.spaces.Box(0.0, 8.0, (size,), np.float32),
                action_space=gym.spaces.Discrete(NUM_ACTIONS), algorithm_name=",".join(agents),
                author="machu dataset", description=description)
        self.path = Path(minari.load_dataset(dataset_id).storage.data_path)
        self.episodes, self.steps = 1, len(first["actions"])
        self.shared: dict[str, int] = {}

    def write(self, episodes: Iterator[dict[str, np.ndarray]]) -> None:
        """Append ``episodes``."""
        self.episodes, steps, added = _append(self.path, episodes, self.episodes, self.shared)
        self.steps += steps
        self.shared.update(added)

    def close(self) -> None:
        from minari.dataset.minari_storage import MinariStorage

        storage = MinariStorage.read(self.path)
        storage.update_metadata({"total_steps": self.steps, "total_episodes": self.episodes,
                                 "dataset_size": storage.get_size()})


def _write_records(folder: Path, chunk: Chunk) -> None:
    for i, game in enumerate(chunk.games):
        files.write_json(folder / f"game_{chunk.first + i:05d}.json",
                         game_record(game, chunk.seatings[i]), indent=None)


def episode_of(chunk: Chunk, i: int, p: int, size: int) -> dict[str, np.ndarray]:
    """Seat ``p``'s part of game ``i`` of a chunk as one episode (Minari's fields)."""
    game = chunk.games[i]
    n = int(chunk.lengths[i])
    seats, rows = chunk.seats[i, :n], chunk.rows[i, :n]
    over = game.is_over
    mine = rows[seats == p]
    t = len(mine)
    obs = np.empty((t + 1, size), dtype=np.float32)
    obs[:t] = chunk.obs[mine, :size]
    obs[t] = chunk.final_obs[i, p, :size]
    masks = np.zeros((t + 1, NUM_ACTIONS), dtype=np.int8)
    masks[:t] = chunk.masks[mine]
    reward = np.zeros(t, dtype=np.float64)
    end = np.zeros(t, dtype=np.bool_)
    if t:
        reward[-1] = terminal_rewards(game.scores(), "win")[p] if over else 0.0
        end[-1] = True
    return {"observations": obs, "actions": chunk.actions[i, :n][seats == p].astype(np.int64),
            "rewards": reward, "terminations": end & over, "truncations": end & (not over),
            "infos": {"action_mask": masks}}


NAME_CHARS = "letters, digits, '_' and '-' (ASCII)"
MAX_NAME = 100  # characters: <name>-seat<p>-v0 is a folder name (255 bytes at most)


def check_name(name: Any) -> str:
    """A dataset name as Minari reads it in ``machu/<name>-seat<p>-v0``; ValueError else."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME or not all(
            c.isascii() and (c.isalnum() or c in "_-") for c in name):
        raise ValueError(f"name must be 1..{MAX_NAME} {NAME_CHARS}, got {name!r:.120}")
    return name


def check_out(out: Path) -> Path:
    """``out`` must not exist (not even as a dangling link) and its parent must be a folder
    (or creatable); ValueError else. Nothing is created."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        raise ValueError(f"{out} exists: machu dataset writes a new folder (choose another --out)")
    parent = out.parent
    while not parent.exists():
        if parent.is_symlink():
            raise ValueError(f"{parent} is a dangling link: --out must be a new folder in an "
                             "existing one")
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise ValueError(f"cannot create {out}: {parent} is not a writable folder")
    return out


def write_dataset(agents: list[str], num_players: int, games: int, out: Path, *,
                  name: str = "games", seed: int = 0, observation: int = 1,
                  max_decisions: int = 1000, records: bool = True,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Play and write the datasets (``out/minari/machu/<name>-seat<p>-v0``), the records
    (``out/records``) and the card (``out/dataset.json``); returns the card.

    Everything is written under a hidden temporary folder beside ``out`` and renamed to ``out``
    only when complete: an interruption (an exception, Ctrl-C, SIGTERM as the command line
    raises it) removes it; a killed process leaves only ``.<out>.*.partial``, which nothing
    loads as a dataset."""
    import shutil
    import tempfile

    check_int("observation", observation, 1, 3)
    check_name(name)
    out = check_out(out)
    chunks = play_recorded(agents, num_players, games, seed=seed, max_decisions=max_decisions)
    first = next(chunks)  # every argument checked, the agents loaded: only then a folder
    if progress:
        progress(0, games)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        steps, seconds = _write_all(itertools.chain([first], chunks), work, agents, num_players,
                                    games, name, observation, records, progress)
        card = _card(work, out, agents, num_players, games, seed, observation, name, steps,
                     seconds)
        if out.exists() or out.is_symlink():
            raise ValueError(f"{out} appeared while the games were played; the dataset is not "
                             "written")
        os.rename(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return card


def _write_all(chunks, work: Path, agents, num_players, games, name, observation, records,
               progress) -> tuple[int, float]:
    """Write every chunk's episodes (Minari, one dataset per seat) and records into ``work``;
    (steps, seconds)."""
    import dataclasses

    import gymnasium as gym

    import machu_env  # noqa: F401  (registers MachuPicchu-v0)

    size = OBS_SIZES[observation]
    (work / "records").mkdir()
    saved = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str((work / "minari").resolve())
    writers: dict[int, SeatWriter] = {}
    t0, done = time.perf_counter(), 0
    try:
        for chunk in chunks:
            start = 0
            if not writers:  # Minari creates every seat's dataset with game 0
                start = 1
                for p in range(num_players):
                    spec = dataclasses.replace(gym.spec("MachuPicchu-v0"), kwargs={
                        "num_players": num_players, "learner_seat": p})
                    writers[p] = SeatWriter(
                        f"machu/{name}-seat{p}-v0", episode_of(chunk, 0, p, size), spec, size,
                        f"machu dataset: {games} games of {','.join(agents)}, seat {p}",
                        agents)
            for p, writer in writers.items():
                writer.write(episode_of(chunk, i, p, size) for i in range(start, len(chunk.games)))
            if records:
                _write_records(work / "records", chunk)
            done += len(chunk.games)
            if progress:
                progress(done, games)
        for w in writers.values():
            w.close()
    finally:
        if saved is None:
            os.environ.pop("MINARI_DATASETS_PATH", None)
        else:
            os.environ["MINARI_DATASETS_PATH"] = saved
    return sum(w.steps for w in writers.values()), time.perf_counter() - t0


def _card(work, out, agents, num_players, games, seed, observation, name, steps, seconds):
    import platform

    from machu_env import __version__

    card = {"datasets": [f"machu/{name}-seat{p}-v0" for p in range(num_players)],
            "minari_datasets_path": str(out.resolve() / "minari"),
            "agents": agents, "players": num_players, "games": games, "seed": seed,
            "observation_version": observation, "steps": steps,
            "seconds": round(seconds, 2), "steps_per_second": round(steps / seconds),
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
            "machu_env": __version__, "date": time.strftime("%Y-%m-%d")}
    files.write_json(work / "dataset.json", card)
    return card
