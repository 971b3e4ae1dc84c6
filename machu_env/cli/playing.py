"""``machu play`` (a human against agents, in the terminal) and ``machu replay`` (a record as
text, an HTML page or a GIF)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from machu_env.cli.commands import compile_first, console, err_console
from machu_env.cli.options import (
    agent_files,
    agent_list,
    check_seconds,
    output_file,
    refuse_overwrite,
)
from machu_env.core import files
from machu_env.core.checks import MAX_SEED
from machu_env.core.game import Game
from machu_env.core.records import read_record, save_record
from machu_env.core.records import replay as replay_record
from machu_env.views.render import render_text


# --- play ----------------------------------------------------------------------------------------
def human_turn(game: Game, read: Callable[[str], str], show: Callable[[object], None]) -> str:
    """Ask the human for one decision until a legal one is given; returns its notation."""
    legal = game.legal_actions()
    table = Table(title=f"P{game.current_player}: {game.decision}", show_header=False)
    for i, a in enumerate(legal, start=1):
        table.add_row(str(i), a)
    show(table)
    while True:
        answer = read("your action (number or notation, help, q to quit)").strip()
        if answer.lower() in ("q", "quit", "exit"):
            raise typer.Exit(0)
        if answer.lower() in ("help", "h", "?"):
            show(help_table(game, legal))
            continue
        if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        if answer.lower() in legal:
            return answer.lower()
        show(Text(f"{answer!r} is not a legal action. Legal: " + ", ".join(
            f"{i}={a}" for i, a in enumerate(legal, start=1)), style="red"))


def help_table(game: Game, legal: list[str]) -> Table:
    """``help`` at the prompt: what is being decided, each legal action in words beside its
    number and notation, and how to answer."""
    from machu_env.views.phrases import say_you

    table = Table(title=f"Help: {game.decision} (type a number or the notation; q quits; the "
                  "rules: machu rules)", show_header=True)
    table.add_column("#")
    table.add_column("notation")
    table.add_column("what it does")
    for i, a in enumerate(legal, start=1):
        table.add_row(str(i), a, say_you(a))
    return table


def play(
    players: int = typer.Option(3, min=2, max=5, help="number of players"),
    opponents: str = typer.Option("builder,gold", help="agents for the other seats, cycled"),
    seat: int = typer.Option(0, min=0, max=4, help="your seat"),
    seed: int = typer.Option(0, min=0, max=MAX_SEED, help="game seed"),
    record: Path | None = typer.Option(None, help="save the game record here at the end (or "
                                       "when you quit)"),
    mcts_seconds: float = typer.Option(1.0, help="search budget per decision for mcts, in "
                                       "(0, 3600]"),
    trust_pickle: bool = typer.Option(False, help="allow policy:<file>.zip (sb3 zips unpickle, "
                                      "which can run code)"),
) -> None:
    """Play against agents in the terminal."""
    from machu_env.agents import make_agent

    if seat >= players:
        raise typer.BadParameter(f"--seat must be below --players ({players})")
    check_seconds(mcts_seconds)
    names = agent_list(opponents)
    if record:
        output_file(record, "--record")
        refuse_overwrite(record, agent_files(names), "--record")
    others = [p for p in range(players) if p != seat]
    agents = {}
    for k, p in enumerate(others):
        name = names[k % len(names)]
        opts = {"seconds": mcts_seconds} if name == "mcts" else {"trust_pickle": trust_pickle}
        try:
            agents[p] = make_agent(name, seed * 8 + p, **opts)
        except ValueError as e:
            raise typer.BadParameter(str(e)) from None
    from machu_env.agents.tournament import trained_for

    for name in dict.fromkeys(names[k % len(names)] for k in range(len(others))):
        if trained_for(name) not in (None, players):
            err_console.print(f"machu play: warning: {name} was trained for {trained_for(name)} "
                              f"players; it plays this {players}-player game as it is")
    compile_first("play")
    game = Game(players, seed=seed)
    console.print(f"You are P{seat}; opponents: " +
                  ", ".join(f"P{p} {agents[p].name}" for p in others))
    try:
        while not game.is_over:
            if game.current_player == seat:
                console.print(Panel(render_text(game, seat), title=f"day {game.day}"),
                              soft_wrap=False)  # (wrapped to the terminal, never cut)
                game.play(human_turn(game, lambda q: console.input(f"{q}: "), console.print))
                console.print(f"P{seat} (you): {game.history[-1][1]}")
            else:
                player = game.current_player
                game.play(agents[player].act(game))
                console.print(f"P{player} ({agents[player].name}): {game.history[-1][1]}")
        console.print(Panel(render_text(game), title="game over"), soft_wrap=False)
    finally:  # also when the human quits: the game so far is kept
        if record:
            save_record(game, record, [agents[p].name if p in agents else "human"
                                       for p in range(players)])
            console.print(f"record saved to {record}")


# --- replay --------------------------------------------------------------------------------------
def replay(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="a game record (JSON)"),
    interactive: bool = typer.Option(False, help="wait for Enter after each decision"),
    boards: bool = typer.Option(False, help="print the board after every decision"),
    html: Path = typer.Option(None, help="write a self-contained HTML replay page here "
                              "instead of printing"),
    view: str = typer.Option("all", help="--html/--gif: whose view: all (every hand), public, "
                             "or a seat number"),
    gif: Path = typer.Option(None, help="write an animated GIF of the game here (the move "
                             "just played outlined)"),
    fps: float = typer.Option(2.0, min=0.1, max=50, help="--gif: frames per second"),
    every: int = typer.Option(1, min=1, help="--gif: a frame after every N-th decision"),
) -> None:
    """Step through a game record, rendering the board; checks it replays to its result.
    With --html, write the replay as one HTML page (board, slider, buttons, arrow keys);
    with --gif, an animated GIF."""
    if html is not None and gif is not None:
        raise typer.BadParameter("give --html or --gif, not both", param_hint="--gif")
    if html is not None:
        refuse_overwrite(html, [file], "--html")
    if gif is not None:
        refuse_overwrite(gif, [file], "--gif")
        if gif.suffix.lower() != ".gif":
            raise typer.BadParameter(f"{gif}: a GIF file ends in .gif", param_hint="--gif")
    data = read_record(file)  # ValueError (one line) for anything that is not a record
    final = replay_record(data)
    stored = data["result"]["scores"] if data.get("result") else None
    if stored is not None and stored != final.scores():
        raise ValueError("the stored result differs from the replayed one")
    if gif is not None:
        from machu_env.views.replay_html import MAX_GIF_FRAMES, replay_gif

        output_file(gif, "--gif")
        who = _view(view, final.num_players)
        try:
            n, used = replay_gif(data, gif, who, fps=fps, every=every)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--view") from None
        step = "" if used == every else f"; every {used}th decision, to keep at most " \
            f"{MAX_GIF_FRAMES} frames"
        console.print(f"wrote {gif} ({n} frames, {len(final.history)} decisions{step})")
        return
    if html is not None:
        from machu_env.views.replay_html import html_replay

        output_file(html, "--html")
        who = _view(view, final.num_players)
        try:
            page = html_replay(data, who, title=f"Machu Picchu replay: {file.name}")
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--view") from None
        files.write_text(html, page)
        console.print(f"wrote {html} ({len(final.history)} decisions)")
        return
    game = final.initial()
    for k, (player, action) in enumerate(final.history, start=1):
        game.play(action)
        console.print(f"#{k} day {game.day} P{player}: {action}")
        if boards:
            console.print(render_text(game))
        if interactive:
            console.input("")
    console.print(Panel(render_text(final), title="final position"), soft_wrap=False)


def _view(view: str, num_players: int) -> int | str | None:
    """--view as board_svg's ``player``: all -> None, public, or a seat."""
    if view not in ("all", "public") and not view.isdigit():
        raise typer.BadParameter(f"all, public or a seat number 0..{num_players - 1}, "
                                 f"got {view!r}", param_hint="--view")
    return None if view == "all" else view if view == "public" else int(view)
