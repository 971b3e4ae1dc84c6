"""The ``machu`` command: play, tournament, replay, bench, rules."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from .actions import action_table
from .game import Game
from .records import load_record, save_record
from .render import render_text

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="The Princes of Machu Picchu: play, run tournaments, replay, benchmark.")
console = Console()


def _agent_list(text: str) -> list[str]:
    names = [a.strip() for a in text.split(",") if a.strip()]
    if not names:
        raise typer.BadParameter("give at least one agent name, e.g. random,builder,gold")
    return names


def _mcts_options(seconds: float | None, iterations: int | None) -> dict:
    opts: dict = {}
    if iterations is not None:
        opts["iterations"] = iterations
    if seconds is not None:
        opts["seconds"] = seconds
    return opts


# --- play ----------------------------------------------------------------------------------------
def human_turn(game: Game, read: Callable[[str], str], show: Callable[[object], None]) -> str:
    """Ask the human for one decision until a legal one is given; returns its notation."""
    legal = game.legal_actions()
    table = Table(title=f"P{game.current_player}: {game.decision}", show_header=False)
    for i, a in enumerate(legal, start=1):
        table.add_row(str(i), a)
    show(table)
    while True:
        answer = read("your action (number or notation, q to quit)").strip()
        if answer.lower() in ("q", "quit", "exit"):
            raise typer.Exit(0)
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        if answer.lower() in legal:
            return answer.lower()
        show(f"[red]{answer!r} is not a legal action.[/red] Legal: " + ", ".join(
            f"{i}={a}" for i, a in enumerate(legal, start=1)))


@app.command()
def play(
    players: int = typer.Option(3, min=2, max=5, help="number of players"),
    opponents: str = typer.Option("builder,gold", help="agents for the other seats, cycled"),
    seat: int = typer.Option(0, min=0, max=4, help="your seat"),
    seed: int = typer.Option(0, min=0, help="game seed"),
    record: Path | None = typer.Option(None, help="save the game record here at the end"),
    mcts_seconds: float = typer.Option(1.0, help="search budget per decision for mcts"),
) -> None:
    """Play against agents in the terminal."""
    from machu_env.agents import make_agent

    if seat >= players:
        raise typer.BadParameter(f"--seat must be below --players ({players})")
    names = _agent_list(opponents)
    others = [p for p in range(players) if p != seat]
    agents = {}
    for k, p in enumerate(others):
        name = names[k % len(names)]
        opts = {"seconds": mcts_seconds} if name == "mcts" else {}
        try:
            agents[p] = make_agent(name, seed * 8 + p, **opts)
        except ValueError as e:
            raise typer.BadParameter(str(e)) from None
    game = Game(players, seed=seed)
    console.print(f"You are P{seat}; opponents: " +
                  ", ".join(f"P{p} {agents[p].name}" for p in others))
    while not game.is_over:
        if game.current_player == seat:
            console.print(Panel(render_text(game, seat), title=f"day {game.day}"))
            game.play(human_turn(game, lambda q: console.input(f"{q}: "), console.print))
        else:
            player = game.current_player
            game.play(agents[player].act(game))
            console.print(f"P{player} ({agents[player].name}): {game.history[-1][1]}")
    console.print(Panel(render_text(game), title="game over"))
    if record:
        save_record(game, record, [agents[p].name if p in agents else "human"
                                   for p in range(players)])
        console.print(f"record saved to {record}")


# --- tournament ----------------------------------------------------------------------------------
@app.command()
def tournament(
    agents: str = typer.Option("random,builder,gold", help="comma-separated agent names"),
    players: int = typer.Option(3, min=2, max=5),
    games: int = typer.Option(60, min=1),
    workers: int = typer.Option(2, min=1, help="parallel processes"),
    seed: int = typer.Option(0, min=0),
    out: Path = typer.Option(Path("runs/tournament"), help="folder for the CSV, JSON and PNG"),
    records: bool = typer.Option(False, help="also save every game record under OUT/records"),
    mcts_seconds: float | None = typer.Option(None, help="mcts: seconds per decision"),
    mcts_iterations: int | None = typer.Option(None, help="mcts: iterations per decision"),
    progress: bool = typer.Option(True, help="show a progress bar"),
) -> None:
    """Play every seating permutation evenly; win shares, scores, endings, ratings."""
    from machu_env.agents.tournament import format_table, run_tournament, write_outputs

    try:
        summary = run_tournament(_agent_list(agents), players, games, seed=seed,
                                 workers=workers,
                                 mcts=_mcts_options(mcts_seconds, mcts_iterations),
                                 records_dir=out / "records" if records else None,
                                 progress=progress)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    console.print(format_table(summary), highlight=False)
    paths = write_outputs(summary, out)
    console.print("wrote " + ", ".join(str(p) for p in paths))


# --- replay --------------------------------------------------------------------------------------
@app.command()
def replay(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="a game record (JSON)"),
    interactive: bool = typer.Option(False, help="wait for Enter after each decision"),
    boards: bool = typer.Option(False, help="print the board after every decision"),
) -> None:
    """Step through a game record, rendering the board; checks it replays to its result."""
    try:
        final = load_record(file)
    except ValueError as e:
        console.print(f"[red]{file}: {e}[/red]")
        raise typer.Exit(1) from None
    data = json.loads(file.read_text())
    opts = data["options"]
    game = Game(opts["num_players"], seed=opts["seed"],
                learning_game=opts.get("learning_game", False))
    for k, (player, action) in enumerate(final.history, start=1):
        game.play(action)
        console.print(f"#{k} day {game.day} P{player}: {action}", highlight=False)
        if boards:
            console.print(render_text(game), highlight=False)
        if interactive:
            console.input("")
    console.print(Panel(render_text(final), title="final position"))
    stored = (data.get("result") or {}).get("scores")
    if stored is not None and stored != final.scores():
        console.print("[red]the stored result differs from the replayed one[/red]")
        raise typer.Exit(1)


# --- train ---------------------------------------------------------------------------------------
@app.command()
def train(
    players: int = typer.Option(2, min=2, max=5, help="number of players"),
    timesteps: int = typer.Option(20_000_000, min=1, help="learner decisions in total"),
    seed: int = typer.Option(0, help="seeds the games, the pool draws and torch"),
    out: Path = typer.Option(Path("runs/selfplay"), help="the run folder"),
    resume: bool = typer.Option(False, help="continue the run in OUT (its saved settings; "
                                "only --timesteps and --device apply)"),
    n_envs: int = typer.Option(128, min=1, help="games played in parallel"),
    n_steps: int = typer.Option(128, min=1, help="steps per game per PPO rollout"),
    batch_size: int = typer.Option(4096, min=1, help="PPO minibatch size"),
    n_epochs: int = typer.Option(4, min=1, help="PPO epochs per rollout"),
    learning_rate: float = typer.Option(3e-4, help="Adam learning rate"),
    gamma: float = typer.Option(0.995, help="discount factor"),
    gae_lambda: float = typer.Option(0.95, help="GAE lambda"),
    clip_range: float = typer.Option(0.2, help="PPO clip range"),
    ent_coef: float = typer.Option(0.01, help="entropy bonus"),
    vf_coef: float = typer.Option(0.5, help="value loss weight"),
    net_arch: str = typer.Option("256,256", help="hidden layer sizes of the policy and of "
                                 "the value network"),
    pool: str = typer.Option("random:0.05,builder:0.25,gold:0.45,self:0.25",
                             help="opponent pool weights (random, builder, gold, self)"),
    reward: str = typer.Option("win", help="win, rank or score (machu_env.rewards)"),
    snapshot_every: int = typer.Option(1_000_000, min=1, help="steps between snapshots"),
    max_snapshots: int = typer.Option(8, min=1, help="frozen snapshots kept in the pool"),
    eval_every: int = typer.Option(500_000, min=1, help="steps between evaluations"),
    eval_games: int = typer.Option(400, min=1, help="games per opponent per evaluation"),
    device: str = typer.Option("auto", help="torch device: auto (a GPU if there is one), "
                               "cpu, cuda..."),
) -> None:
    """Self-play training (MaskablePPO) against an opponent pool; see train/selfplay.py."""
    try:
        from machu_env.train.selfplay import TrainConfig
        from machu_env.train.selfplay import train as run_training
    except ImportError as e:
        raise typer.BadParameter(f"training needs the train extra ({e}): "
                                 "pip install 'machu-env[train]'") from None
    options = dict(locals())
    options.pop("resume")
    options.pop("TrainConfig")
    options.pop("run_training")
    options["out"] = str(out)
    try:
        summary = run_training(TrainConfig(**options), resume=resume)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    console.print_json(json.dumps(summary))


# --- bench, rules --------------------------------------------------------------------------------
@app.command()
def bench(quick: bool = typer.Option(False, help="shorter timings, fewer points"),
          out: Path = typer.Option(Path("benchmarks/results"), help="output folder")) -> None:
    """Run the throughput benchmark suite (benchmarks/run.py)."""
    from machu_env.benchmarks import run

    run.main(["--out", str(out), *(["--quick"] if quick else [])])


@app.command()
def rules() -> None:
    """Print the action notation table (id and notation of every action)."""
    print(action_table())


def main() -> None:
    app()


if __name__ == "__main__":
    main()
