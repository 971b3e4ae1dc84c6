"""Learner steps written per second: ``machu dataset`` beside Minari's own ``DataCollector``.

    python benchmarks/dataset_speed.py --games 4000 [--threads 2]

Rows: ``machu dataset`` (``train.dataset.write_dataset``: the batch engine plays, every seat is
one Minari dataset, the records too) with compiled agents at every seat — ``random`` and ``gold``
against ``random`` — and with the trained policy ``ppo-2p``; and Minari's ``DataCollector``
around ``gym.make("MachuPicchu-v0", opponents=...)`` stepped with masked random actions, the
documented way to record a Gymnasium env (one seat recorded; its opponents played inside the
env). A step is one recorded decision of a recorded seat. Each row starts after a warm-up (the
numba cache filled); the times include writing and closing the datasets. Writes
``dataset_speed.json`` (machine, versions, date) under ``--out``. Needs the ``integrations``
extra (Minari).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings
from pathlib import Path


def machu_row(agents: list[str], games: int, folder: Path) -> dict:
    from machu_env.train.data.dataset import write_dataset

    write_dataset(agents, 2, 64, folder / "warm", name="warm")  # compiled, cached, loaded
    card = write_dataset(agents, 2, games, folder / "run", name="run", seed=1)
    return {"what": f"machu dataset --agents {','.join(agents)} --players 2",
            "games": games, "steps": card["steps"], "seconds": card["seconds"],
            "steps_per_second": card["steps_per_second"]}


def collector_row(opponents: str, games: int, folder: Path) -> dict:
    import gymnasium as gym
    import minari

    import machu_env  # noqa: F401

    os.environ["MINARI_DATASETS_PATH"] = str(folder)
    env = minari.DataCollector(gym.make("MachuPicchu-v0", num_players=2, opponents=opponents),
                               record_infos=True)
    t0, steps = time.perf_counter(), 0
    for seed in range(games):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, r, term, trunc, info = env.step(env.action_space.sample(
                mask=info["action_mask"]))
            done, steps = term or trunc, steps + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.create_dataset(dataset_id="bench/collector-v0", algorithm_name="random")
    seconds = time.perf_counter() - t0
    return {"what": f"minari.DataCollector(gym.make('MachuPicchu-v0', opponents="
                    f"'{opponents}')), masked random actions", "games": games, "steps": steps,
            "seconds": round(seconds, 2), "steps_per_second": round(steps / seconds)}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=4000)
    p.add_argument("--collector-games", type=int, default=200)
    p.add_argument("--threads", type=int, default=0, help="numba threads (0: default)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    args = p.parse_args(argv)
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    from machu_env.bench.machine import describe

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for k, agents in enumerate((["random"], ["gold", "random"], ["ppo-2p"])):
            rows.append(machu_row(agents, args.games, Path(scratch) / f"m{k}"))
            print(rows[-1], flush=True)
        for k, opponents in enumerate(("random:1", "gold:1")):
            rows.append(collector_row(opponents, args.collector_games, Path(scratch) / f"c{k}"))
            print(rows[-1], flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dataset_speed.json").write_text(json.dumps(
        {"machine": describe(), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
