"""The ``machu`` command: play, tournament, replay, train, bench, rules, cache.

Bad input never shows a traceback: every command prints one line, ``machu <command>: error:
...``, to stderr and exits with status 2 (``MACHU_DEBUG=1`` shows the traceback). Text that is
not ours (paths, agent names, records, what a player types) is printed without rich markup.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .actions import action_table
from .checks import MAX_SEED
from .game import DEFAULT_MAX_DECISIONS, Game
from .records import read_record, save_record
from .records import replay as replay_record
from .render import render_text

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  help="The Princes of Machu Picchu: play, run tournaments, replay, benchmark.")
console = Console(markup=False, highlight=False)  # no markup in text that is not ours
err_console = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)


def output_folder(path: Path, option: str) -> Path:
    """Create an output folder before the work starts; BadParameter if it cannot be one."""
    if path.exists() and not path.is_dir():
        raise typer.BadParameter(f"{path} is a file: give a folder", param_hint=option)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise typer.BadParameter(f"cannot create {path}: {e.strerror}", param_hint=option) from None
    if not os.access(path, os.W_OK):
        raise typer.BadParameter(f"{path} is not writable", param_hint=option)
    return path


def output_file(path: Path, option: str) -> Path:
    """Check (before the work) that a file can be written at ``path``."""
    if path.is_dir():
        raise typer.BadParameter(f"{path} is a folder: give a file name", param_hint=option)
    output_folder(path.parent, option)
    return path


def refuse_overwrite(output: Path, inputs: list[Path], option: str) -> None:
    """No command writes over one of its own inputs (``machu replay game.json --html
    game.json`` would replace the record with the page)."""
    for source in inputs:
        if source.exists() and output.exists() and os.path.samefile(source, output) or \
                output.resolve() == source.resolve():
            raise typer.BadParameter(f"{output} is also an input of this command ({source}): "
                                     "give another file", param_hint=option)


def refuse_inputs_inside(folder: Path, inputs: list[Path], option: str) -> None:
    """An output folder must not hold an input file (its files could be written over)."""
    root = folder.resolve()
    for source in inputs:
        if root in source.resolve().parents:
            raise typer.BadParameter(f"{folder} holds {source}, an input of this command: "
                                     "give another folder", param_hint=option)


def agent_files(names: list[str]) -> list[Path]:
    """The files that agent names refer to (``policy:<path>``, ``search:policy:<path>``...)."""
    files = []
    for name in names:
        inner = name.split(":", 1)[1] if name.startswith(("search:", "rollout:")) else name
        if inner.startswith(("policy:", "rllib:")):
            files.append(Path(inner.split(":", 1)[1]))
    return files


def _check_seconds(seconds: float | None) -> None:
    from machu_env.agents.base import check_seconds

    if seconds is not None:
        try:
            check_seconds(seconds)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--mcts-seconds") from None


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
        if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        if answer.lower() in legal:
            return answer.lower()
        show(Text(f"{answer!r} is not a legal action. Legal: " + ", ".join(
            f"{i}={a}" for i, a in enumerate(legal, start=1)), style="red"))


@app.command()
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
    _check_seconds(mcts_seconds)
    names = _agent_list(opponents)
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
    game = Game(players, seed=seed)
    console.print(f"You are P{seat}; opponents: " +
                  ", ".join(f"P{p} {agents[p].name}" for p in others))
    try:
        while not game.is_over:
            if game.current_player == seat:
                console.print(Panel(render_text(game, seat), title=f"day {game.day}"))
                game.play(human_turn(game, lambda q: console.input(f"{q}: "), console.print))
            else:
                player = game.current_player
                game.play(agents[player].act(game))
                console.print(f"P{player} ({agents[player].name}): {game.history[-1][1]}")
        console.print(Panel(render_text(game), title="game over"))
    finally:  # also when the human quits: the game so far is kept
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
    from machu_env.agents.tournament import format_table, run_tournament, write_outputs

    _check_seconds(mcts_seconds)
    names = _agent_list(agents)
    refuse_inputs_inside(out, agent_files(names), "--out")
    output_folder(out, "--out")
    if html and not records:
        raise typer.BadParameter("--html writes a replay page next to each record: add "
                                 "--records", param_hint="--html")
    try:
        summary = run_tournament(names, players, games, seed=seed,
                                 workers=workers if workers is not None or ray else 2,
                                 mcts=_mcts_options(mcts_seconds, mcts_iterations),
                                 records_dir=out / "records" if records else None,
                                 progress=progress, trust_pickle=trust_pickle, html=html,
                                 ray=ray, max_decisions=max_decisions)
    except (ValueError, ImportError) as e:
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
        from machu_env.replay_html import MAX_GIF_FRAMES, replay_gif

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
        from machu_env.replay_html import html_replay

        output_file(html, "--html")
        who = _view(view, final.num_players)
        try:
            page = html_replay(data, who, title=f"Machu Picchu replay: {file.name}")
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--view") from None
        html.write_text(page, encoding="utf-8")
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
    console.print(Panel(render_text(final), title="final position"))


def _view(view: str, num_players: int) -> int | str | None:
    """--view as board_svg's ``player``: all -> None, public, or a seat."""
    if view not in ("all", "public") and not view.isdigit():
        raise typer.BadParameter(f"all, public or a seat number 0..{num_players - 1}, "
                                 f"got {view!r}", param_hint="--view")
    return None if view == "all" else view if view == "public" else int(view)


# --- serve ---------------------------------------------------------------------------------------
@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="the address to listen on (127.0.0.1: this "
                             "computer only)"),
    port: int = typer.Option(8000, min=1, max=65535, help="the port"),
    allowed_host: list[str] = typer.Option([], help="a host name the page may be opened by "
                                           "besides localhost and --host (repeatable; "
                                           "other Host headers are refused)"),
    agents_dir: Path | None = typer.Option(None, help="also offer the agent files "
                                           "(*.safetensors) of this folder, as "
                                           "policy:<file name>"),
    proxy_headers: bool = typer.Option(False, help="trust X-Forwarded-For from a reverse "
                                       "proxy on this computer (off: a local client could "
                                       "claim another client's address)"),
) -> None:
    """Play in the browser: a local web app (needs the web extra)."""
    import ipaddress
    import socket

    try:
        from machu_env.web import serve as run_server
    except ImportError as e:
        raise typer.BadParameter(str(e)) from None
    try:
        ipaddress.ip_address(host)
    except ValueError:
        try:
            socket.getaddrinfo(host, port)
        except OSError:
            raise typer.BadParameter(f"{host!r} is neither an IP address nor a name this "
                                     "computer resolves (e.g. 127.0.0.1, ::1, 0.0.0.0)",
                                     param_hint="--host") from None
    if agents_dir is not None and not agents_dir.is_dir():
        raise typer.BadParameter(f"{agents_dir} is not a folder", param_hint="--agents-dir")
    try:  # can we listen there? (uvicorn would print its own error and exit)
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as e:
        raise typer.BadParameter(f"cannot listen on {host}:{port}: {e.strerror}",
                                 param_hint="--host/--port") from None
    from machu_env.web import warm_up

    with console.status("warming the engine (the first start after an install compiles it; "
                        "later starts read numba's cache)"):
        seconds = warm_up()
    console.print(f"engine ready in {seconds:.1f} s")
    console.print(f"machu-env web app on http://{host}:{port} (Ctrl+C stops it)")
    try:
        run_server(host, port, allowed_host, agents_dir, proxy_headers=proxy_headers)
    except ImportError as e:
        raise typer.BadParameter(str(e)) from None


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
    ent_coef_final: float = typer.Option(-1.0, help="decay the entropy bonus linearly to this "
                                         "over the run (-1: no schedule)"),
    magnet_coef: float = typer.Option(0.0, help="weight of the reverse KL to the magnet "
                                      "policy (MMD; train/ppo.py)"),
    magnet_every: int = typer.Option(0, min=0, help="updates between magnet resets to the "
                                     "current policy (0: the uniform magnet)"),
    cut_as_loss: bool = typer.Option(False, help="a game still running at the decision limit "
                                     "counts as a loss (-1) instead of a time limit"),
    vf_coef: float = typer.Option(0.5, help="value loss weight"),
    max_grad_norm: float = typer.Option(0.5, help="gradient norm clip"),
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
    precision: str = typer.Option("fp32", help="fp32, or bf16 (autocast; CPUs with bfloat16 "
                                  "arithmetic)"),
    threads: int = typer.Option(0, min=0, max=256, help="torch and numba threads (0: their "
                                "defaults)"),
    league: bool = typer.Option(False, help="league training: exploiters of the main agent "
                                "join the pool (train/selfplay.py)"),
    exploiter_every: int = typer.Option(2_000_000, min=1, help="league: main steps between "
                                        "exploiters"),
    exploiter_steps: int = typer.Option(500_000, min=1, help="league: training steps of "
                                        "each exploiter"),
    exploiter_share: float = typer.Option(0.5, help="league: the exploiters' share of the "
                                          "self weight"),
    max_exploiters: int = typer.Option(4, min=1, help="league: exploiters kept in the pool"),
    exploit_greedy: bool = typer.Option(False, help="league: exploiters train against the main "
                                        "agent's deterministic play (as tournaments and "
                                        "`machu exploit` play it) instead of its sampled play"),
    init: str = typer.Option("", help="start from this trained policy (ppo-2p-v1, "
                             "policy:<file>) instead of fresh weights"),
    ray: str = typer.Option("", metavar="[ADDRESS]", help="play the evaluations against the "
                            "heuristics as Ray tasks: --ray alone joins or starts a local "
                            "instance; auto or ray://host:port a cluster (the ray extra)"),
) -> None:
    """Self-play or league training (masked PPO) against an opponent pool; see
    train/selfplay.py."""
    try:
        from machu_env.train.selfplay import TrainConfig
        from machu_env.train.selfplay import train as run_training
    except ImportError as e:
        raise typer.BadParameter(f"training needs the train extra ({e}): "
                                 "pip install 'machu-env[train]'") from None
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} is a file: give a folder for the run", param_hint="--out")
    options = dict(locals())
    options.pop("resume")
    options.pop("TrainConfig")
    options.pop("run_training")
    options["out"] = str(out)
    try:
        summary = run_training(TrainConfig(**options), resume=resume)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(str(e)) from None
    console.print_json(json.dumps(summary))


# --- exploit -------------------------------------------------------------------------------------
@app.command()
def exploit(
    agent: str = typer.Option(..., help="the agent to probe (any agent name)"),
    players: int = typer.Option(2, min=2, max=5, help="number of players"),
    steps: int = typer.Option(1_500_000, min=1, help="exploiter training steps"),
    seed: int = typer.Option(0, min=0, max=2**32 - 1, help="seeds the games and the learner"),
    eval_games: int = typer.Option(2000, min=1, help="evaluation games after training (seats "
                                   "rotated)"),
    eval_every: int = typer.Option(0, min=0, help="also evaluate (400 games) every this many "
                                   "steps (0: only at the end)"),
    eval_at: str = typer.Option("", help="comma-separated steps at which to also play "
                                "EVAL_GAMES games (1500000 in a 5M-step probe)"),
    cold: bool = typer.Option(False, help="start the exploiter from fresh weights, not the "
                              "agent's"),
    cut_as_loss: bool = typer.Option(False, help="a training game still running at the "
                                     "decision limit counts as a loss (-1), not as a time "
                                     "limit: an exploiter can't learn to stall (for --cold)"),
    reward: str = typer.Option("win", help="the exploiter's training reward: win (+1/-1 at "
                               "the end) or score (the final score margin: denser, for --cold)"),
    out: Path = typer.Option(None, help="folder for curve.csv/png, summary.json and the "
                             "exploiter's agent file"),
    precision: str = typer.Option("fp32", help="fp32 or bf16"),
    threads: int = typer.Option(0, min=0, max=256, help="torch and numba threads (0: their "
                                "defaults)"),
    n_envs: int = typer.Option(128, min=1, help="games played in parallel"),
    n_steps: int = typer.Option(128, min=1, help="steps per game per PPO rollout"),
    batch_size: int = typer.Option(4096, min=1, help="PPO minibatch size"),
    trust_pickle: bool = typer.Option(False, help="allow an sb3 .zip policy (runs pickled "
                                      "code)"),
    ray: str = typer.Option(None, metavar="[ADDRESS]", help="play the evaluation games as Ray "
                            "tasks: --ray alone joins or starts a local instance; auto or "
                            "ray://host:port a cluster (the ray extra)"),
    workers: int = typer.Option(2, min=1, help="with --ray: evaluation tasks in flight / 4"),
    sampled: bool = typer.Option(False, help="a trained policy samples its actions (as it "
                                 "trains) instead of taking the most probable one"),
) -> None:
    """Exploitability probe: train an exploiter against AGENT alone, report its win share."""
    try:
        from machu_env.train.exploit import exploit as run_exploit
        from machu_env.train.ppo import PPOSettings, bf16_supported
    except ImportError as e:
        raise typer.BadParameter(f"the probe needs the train extra ({e}): "
                                 "pip install 'machu-env[train]'") from None
    try:
        at = tuple(int(x) for x in eval_at.split(",") if x.strip())
    except ValueError:
        raise typer.BadParameter(f"give steps as comma-separated integers, like 1500000; got "
                                 f"{eval_at!r}", param_hint="--eval-at") from None
    bad = [x for x in at if not 1 <= x <= steps]
    if bad:
        raise typer.BadParameter(f"eval_at must be an int in 1..{steps} (within --steps), got "
                                 f"{bad[0]}", param_hint="--eval-at")
    if out is not None:
        refuse_inputs_inside(out, agent_files([agent]), "--out")
        output_folder(out, "--out")
    if precision not in ("fp32", "bf16") or (precision == "bf16" and not bf16_supported()):
        raise typer.BadParameter(f"precision must be fp32 or bf16 (bf16 only on CPUs with "
                                 f"bfloat16 arithmetic), got {precision!r}",
                                 param_hint="--precision")
    if reward not in ("win", "score"):
        raise typer.BadParameter(f"reward must be win or score, got {reward!r}",
                                 param_hint="--reward")
    settings = PPOSettings(n_envs=n_envs, n_steps=n_steps, batch_size=batch_size,
                           precision=precision, cut_as_loss=cut_as_loss)
    try:
        settings.check()
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    from machu_env.train.ppo import set_threads

    set_threads(threads)
    try:
        summary = run_exploit(agent, players, steps, seed, out, eval_games, eval_every,
                              settings, trust_pickle=trust_pickle, ray=ray, workers=workers,
                              sampled=sampled, cold=cold, eval_at=at, reward=reward)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(str(e)) from None
    console.print_json(json.dumps(summary))


# --- population -----------------------------------------------------------------------------------
@app.command()
def population(
    members: str = typer.Option(..., help="comma-separated trained policies (ppo-2p, "
                                "policy:<file>), 2 to 16"),
    out: Path = typer.Option(..., help="the population agent file to write (.safetensors)"),
    players: int = typer.Option(2, min=2, max=5, help="number of players"),
    games: int = typer.Option(1000, min=1, max=1_000_000, help="games per ordered pair of "
                              "members (seats rotated)"),
    seed: int = typer.Option(0, min=0, max=2**32 - 1, help="seeds the games"),
    min_weight: float = typer.Option(1e-3, min=0.0, max=0.5, help="members below this weight "
                                     "are dropped (the rest renormalised)"),
    trust_pickle: bool = typer.Option(False, help="allow sb3 .zip members (runs pickled "
                                      "code)"),
    psro: int = typer.Option(0, min=0, max=15, help="PSRO: this many times, train a best "
                             "response to the mixture and add it (0: none)"),
    psro_steps: int = typer.Option(1_000_000, min=1, max=10**10, help="PSRO: training steps "
                                   "of each best response"),
    threads: int = typer.Option(0, min=0, max=256, help="with --psro: torch and numba threads "
                                "(0: their defaults)"),
) -> None:
    """Nash mixture of a population: measure the members' payoff matrix, solve it, write one
    agent file that plays them as one agent (train/population.py). With --psro, grow the
    population by best responses first (PSRO); they are kept in OUT's folder <stem>_psro/."""
    try:
        from machu_env.train.population import build
        from machu_env.train.population import psro as run_psro
    except ImportError as e:
        raise typer.BadParameter(f"populations need the train extra ({e}): "
                                 "pip install 'machu-env[train]'") from None
    names = [m.strip() for m in members.split(",") if m.strip()]
    if out.suffix != ".safetensors":
        raise typer.BadParameter(f"{out}: an agent file ends in .safetensors",
                                 param_hint="--out")
    from machu_env.agents import shipped_policies

    shipped = shipped_policies()
    inputs = agent_files(names) + [shipped[n] for n in names if n in shipped]
    output_file(out, "--out")  # before the games and the training, not after
    refuse_overwrite(out, inputs, "--out")
    if psro:  # the best responses' files: never one of the inputs either
        folder = out.parent / f"{out.stem}_psro"
        output_folder(folder, "--out")
        for k in range(psro):
            refuse_overwrite(folder / f"br_{k}.safetensors", inputs, "--out")
    command = " ".join(["machu", *sys.argv[1:]])
    try:
        if psro:
            from machu_env.train.ppo import set_threads

            set_threads(threads)
            summary = run_psro(names, players, games, out, psro, psro_steps, seed=seed,
                               min_weight=min_weight, trust_pickle=trust_pickle,
                               command=command)
        else:
            summary = build(names, players, games, out, seed=seed, min_weight=min_weight,
                            trust_pickle=trust_pickle, command=command)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(str(e)) from None
    console.print_json(json.dumps(summary))


# --- bench, rules --------------------------------------------------------------------------------
@app.command()
def bench(quick: bool = typer.Option(False, help="shorter timings, fewer points"),
          out: Path = typer.Option(Path("benchmarks/results"), help="output folder")) -> None:
    """Run the throughput benchmark suite (benchmarks/run.py)."""
    from machu_env.benchmarks import run

    output_folder(out, "--out")
    run.main(["--out", str(out), *(["--quick"] if quick else [])])


@app.command()
def rules() -> None:
    """Print the action notation table (id and notation of every action)."""
    print(action_table())


@app.command()
def cache(clear: bool = typer.Option(False, help="delete every compiled version")) -> None:
    """Show (or clear) numba's cache of the compiled engine."""
    import shutil

    from . import _cache

    root = _cache.cache_root()
    versions = sorted(root.glob("numba-*"))
    size = sum(f.stat().st_size for v in versions for f in v.rglob("*") if f.is_file())
    console.print(f"{root}: {len(versions)} compiled version(s), {size / 2**20:.1f} MiB; "
                  f"this version: {_cache.cache_dir().name}")
    if clear:
        for v in versions:
            shutil.rmtree(v, ignore_errors=True)
        console.print("cleared")


def main(argv: list[str] | None = None) -> int:
    """Run ``machu``; bad input prints one line to stderr and exits with status 2."""
    args = (sys.argv[1:] if argv is None else list(argv)) or ["--help"]
    for k, a in enumerate(args):  # `--ray` without an address: the local instance
        if a == "--ray" and (k + 1 == len(args) or args[k + 1].startswith("-")):
            args.insert(k + 1, "local")
            break
    name = next((a for a in args if not a.startswith("-")), "")
    prefix = f"machu {name}" if name in app_commands() else "machu"
    try:
        result = app(args=args, prog_name="machu", standalone_mode=False)
        if isinstance(result, int):  # (click returns the exit code of typer.Exit)
            return result
    except typer.Exit as e:
        return e.exit_code
    except typer.Abort:
        err_console.print(f"{prefix}: aborted")
        return 130
    except (ValueError, OSError, RecursionError) as e:  # bad files, records, settings
        if os.environ.get("MACHU_DEBUG"):
            raise
        text = str(e) if not isinstance(e, OSError) else f"{e.strerror}: {e.filename}"
        err_console.print(f"{prefix}: error: {' '.join(text.split())}")
        return 2
    except KeyboardInterrupt:
        err_console.print(f"{prefix}: interrupted")
        return 130
    except Exception as e:
        if not hasattr(e, "format_message"):  # not a usage error: a bug, show it
            raise
        err_console.print(f"{prefix}: error: {' '.join(e.format_message().split())}")
        return 2
    return 0


def app_commands() -> set[str]:
    return {c.name or c.callback.__name__ for c in app.registered_commands}


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
