"""``machu dataset``: games of any agents written as Minari datasets (one per seat) and game
records, for offline RL and imitation learning (``train/data/dataset.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from machu_env._extras import install_hint
from machu_env.cli.commands import compile_first, console
from machu_env.cli.interrupts import deferred
from machu_env.cli.options import agent_list
from machu_env.train.run.args import TrainArgs
from machu_env.train.run.settings import option


def dataset(
    agents: str = typer.Option(..., help="one agent for all seats or one per seat, "
                               "comma-separated: random, builder, gold, racer (compiled) or a "
                               "single trained policy (ppo-2p, policy:<file>); seats rotate "
                               "from game to game"),
    players: int = option(TrainArgs, "players"),
    games: int = typer.Option(1000, min=1, max=10_000_000),
    out: Path = typer.Option(..., help="a new folder: OUT/minari (the datasets), OUT/records, "
                             "OUT/dataset.json (the card)"),
    name: str = typer.Option("games", help="dataset ids are machu/<name>-seat<p>-v0"),
    seed: int = option(TrainArgs, "seed", "seeds the games"),
    observation: int = typer.Option(1, min=1, max=3, help="observation version recorded"),
    max_decisions: int = typer.Option(1000, min=10, max=5000, help="a game still running "
                                      "after this many decisions is cut (its episodes end "
                                      "truncated)"),
    records: bool = typer.Option(True, help="also write every game's record"),
    threads: int = option(TrainArgs, "threads", "numba threads (0: numba's default; 1 is "
                          "faster on a machine busy with other work)"),
    progress: bool = typer.Option(True, help="show a progress bar"),
) -> None:
    """Play games and write them as Minari datasets (one per seat: observation, mask, action,
    reward, termination) plus their records; read them back with minari.load_dataset after
    setting MINARI_DATASETS_PATH=OUT/minari (the integrations extra)."""
    try:
        import minari  # noqa: F401
    except ImportError:
        raise typer.BadParameter("machu dataset needs Minari: "
                                 + install_hint("integrations")) from None
    from machu_env.train.data.dataset import write_dataset

    if threads:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    bar = None

    def advance(done: int, total: int) -> None:
        nonlocal bar
        signals.arm()  # from the first write on, signals wait for the end of a chunk
        signals.check()  # Ctrl-C or SIGTERM since the last chunk: stop, the folder removed
        if progress and bar is None:  # (after the first chunk: bad input shows no bar)
            from tqdm import tqdm

            bar = tqdm(total=total, unit="game", desc="machu dataset")
        if bar is not None:
            bar.update(done - bar.n)

    try:
        compile_first("dataset")
        with deferred() as signals:
            card = write_dataset(agent_list(agents), players, games, out, name=name, seed=seed,
                                 observation=observation, max_decisions=max_decisions,
                                 records=records, progress=advance)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    finally:
        if bar is not None:
            bar.close()
    console.print_json(json.dumps(card))
