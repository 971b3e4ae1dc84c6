"""``machu tournament`` (agents against each other, every seating, with ratings) and ``machu
analyze`` (why they won: statistics of the tournament's records)."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from machu_env.cli.commands import compile_first, console, err_console
from machu_env.cli.options import (
    agent_files,
    agent_list,
    check_output_folder,
    check_seconds,
    mcts_options,
    output_folder,
    refuse_inputs_inside,
)
from machu_env.core.game import DEFAULT_MAX_DECISIONS


# --- tournament ----------------------------------------------------------------------------------
def tournament(
    agents: str = typer.Option("random,builder,gold", help="comma-separated agent names"),
    players: int = typer.Option(3, min=2, max=5),
    games: int = typer.Option(60, min=1),
    workers: int | None = typer.Option(None, min=1, help="parallel processes (default 2; with "
                                       "--ray: the cluster's CPUs)"),
    seed: int = typer.Option(0, min=0, max=2**32 - 1, help="game i's seed is derived from it"),
    out: Path = typer.Option(Path("runs/tournament"), help="folder for the CSV, JSON and PNG"),
    records: bool = typer.Option(False, help="also save every game record under OUT/records"),
    html: bool = typer.Option(False, help="with --records: also an HTML replay page of every "
                              "game (OUT/records/game_<i>.html)"),
    ray: str = typer.Option(None, metavar="[ADDRESS]", help="run the games as Ray tasks: "
                            "--ray alone joins or starts a local instance; auto or "
                            "ray://host:port a cluster (the ray extra)"),
    mcts_seconds: float | None = typer.Option(None, help="mcts, search:<policy> and "
                                               "rollout:<policy>: seconds per decision "
                                               "(search and rollout with --mcts-iterations "
                                               "too: a cap on each decision; mcts: "
                                               "--mcts-iterations wins)"),
    mcts_iterations: int | None = typer.Option(None, min=1,
                                               help="mcts: iterations per decision "
                                               "(search:<policy>: simulations; "
                                               "rollout:<policy>: rounds)"),
    max_decisions: int = typer.Option(DEFAULT_MAX_DECISIONS, min=1, help="a game still running "
                                      "after this many decisions ends truncated: nobody wins it"),
    progress: bool = typer.Option(True, help="show a progress bar"),
    trust_pickle: bool = typer.Option(False, help="allow policy:<file>.zip (sb3 zips unpickle, "
                                      "which can run code)"),
) -> None:
    """Play every seating permutation evenly; win shares, scores, endings, ratings."""
    from machu_env.agents.standings import format_table
    from machu_env.agents.tournament import run_tournament
    from machu_env.agents.tournament_files import OUTPUTS, write_outputs

    check_seconds(mcts_seconds)
    names = agent_list(agents)
    if html and not records:
        raise typer.BadParameter("--html writes a replay page next to each record: add "
                                 "--records", param_hint="--html")
    refuse_inputs_inside(out, agent_files(names), "--out")
    existed = check_output_folder(out, "--out")
    folder = out / "records"
    if records and folder.is_dir() and any(folder.iterdir()):
        raise typer.BadParameter(f"{folder} holds an earlier run's records; machu analyze would "
                                 "mix the runs: choose another --out or empty that folder",
                                 param_hint="--records")
    had_records = folder.exists()
    earlier = {name: _stamp(out / name) for name in OUTPUTS}  # (an earlier run's stay as they are)
    output_folder(out, "--out")
    summary = None
    try:
        summary = run_tournament(names, players, games, seed=seed,
                                 workers=workers if workers is not None or ray else 2,
                                 mcts=mcts_options(mcts_seconds, mcts_iterations),
                                 records_dir=folder if records else None,
                                 progress=progress, trust_pickle=trust_pickle, html=html,
                                 ray=ray, max_decisions=max_decisions,
                                 warn=lambda line: err_console.print(
                                     f"machu tournament: warning: {line}"),
                                 start=lambda: compile_first("tournament"))
        console.print(format_table(summary), highlight=False)
        paths = write_outputs(summary, out)
    except BaseException as e:  # bad agents, Ctrl-C: no partial run is left to be analysed
        if records and folder.is_dir():  # (absent or empty before the run: so it is again)
            shutil.rmtree(folder, ignore_errors=True)
            if had_records:
                folder.mkdir()
        if summary is not None:  # stopped while writing the outputs: none of this run's is kept
            for name in OUTPUTS:
                if _stamp(out / name) != earlier[name]:
                    (out / name).unlink(missing_ok=True)
        if not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        if isinstance(e, (ValueError, ImportError)):
            raise typer.BadParameter(str(e)) from None
        raise
    console.print("wrote " + ", ".join(str(p) for p in paths))


def _stamp(path: Path) -> tuple[int, int] | None:
    """Which file is at ``path`` (inode, change time): outputs are replaced, never edited."""
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


# --- analyze -------------------------------------------------------------------------------------
def analyze(
    records: Path = typer.Argument(..., help="a folder of game records (machu tournament "
                                   "--records writes OUT/records)"),
    out: Path = typer.Option(None, help="folder for analysis.json and analysis.png (default: "
                             "RECORDS/../analysis)"),
) -> None:
    """Why an agent wins or loses: per agent and per pairing, win share, endings, VP by icon,
    gold and multipliers, decisions by kind (sacrifices, summits, Sun Clock...), game length,
    and whether the most gold or the most VP decided the games."""
    from machu_env.agents.analysis import analyze as run_analysis
    from machu_env.agents.analysis import records_folder, write

    records = records_folder(records)  # a tournament's folder: its records/
    out = out if out is not None else records.parent / "analysis"
    refuse_inputs_inside(out, [records / "x.json"], "--out")
    check_output_folder(out, "--out")
    summary = run_analysis(records)  # ValueError naming the bad file: one line
    output_folder(out, "--out")  # (only now: a failed analysis leaves no folder)
    for name, pairing in summary["pairings"].items():
        gold = pairing["gold_leader_won"]
        console.print(f"{name}: {pairing['games']} games, endings {pairing['endings']}, "
                      f"the most gold won {'-' if gold is None else f'{100 * gold:.0f} %'}")
        for agent, a in pairing["agents"].items():
            d = a["decisions"]
            console.print(f"  {agent}: wins {100 * a['win_share']:.1f} %, gold {a['gold']:.1f},"
                          f" VP {a['vp']:.1f}, summits {d['summit']:.1f}, sacrifices "
                          f"{d['sacrifice']:.1f}, Sun Clock {d['sunclock']:.1f}, "
                          f"acquisitions {d['acquire']:.1f}")
    paths = write(summary, out)
    console.print("wrote " + ", ".join(str(p) for p in paths))
