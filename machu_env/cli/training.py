"""``machu train``, ``machu population`` and ``machu average`` (the ``train`` extra; ``machu
exploit`` is in ``probing``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import typer

from machu_env._extras import install_hint
from machu_env.cli.commands import compile_first
from machu_env.cli.options import (
    agent_files,
    check_output_folder,
    refuse_overwrite,
)
from machu_env.cli.summaries import (
    average_lines,
    finish,
    json_option,
    population_lines,
    recipe_lines,
    train_lines,
    work_output,
)
from machu_env.cli.warmup import training_parts


# --- train ---------------------------------------------------------------------------------------
def train(
    ctx: typer.Context,
    players: int = typer.Option(2, min=2, max=5, help="number of players"),
    timesteps: int = typer.Option(20_000_000, min=1, help="learner decisions in total"),
    seed: int = typer.Option(0, help="seeds the games, the pool draws and torch"),
    out: Path = typer.Option(Path("runs/selfplay"), help="the run folder"),
    resume: bool = typer.Option(False, help="continue the run in OUT (its saved settings; "
                                "only --timesteps and --device apply)"),
    n_envs: int = typer.Option(128, min=1, help="games played in parallel"),
    n_steps: int = typer.Option(128, min=1, help="steps per game per PPO rollout"),
    batch_size: int = typer.Option(4096, min=1, help="PPO minibatch size"),
    n_epochs: int = typer.Option(2, min=1, help="PPO epochs per rollout"),
    learning_rate: float = typer.Option(3e-4, help="Adam learning rate"),
    learning_rate_final: float = typer.Option(-1.0, help="decay the learning rate linearly "
                                              "to this over the run (-1: no schedule)"),
    gamma: float = typer.Option(0.995, help="discount factor"),
    gae_lambda: float = typer.Option(0.95, help="GAE lambda"),
    clip_range: float = typer.Option(0.2, help="PPO clip range"),
    ent_coef: float = typer.Option(0.01, help="entropy bonus"),
    ent_coef_final: float = typer.Option(-1.0, help="decay the entropy bonus linearly to this "
                                         "over the run (-1: no schedule)"),
    magnet_coef: float = typer.Option(0.0, help="weight of the reverse KL to the magnet "
                                      "policy (MMD; machu_env/train/ppo.py)"),
    magnet_every: int = typer.Option(0, min=0, help="updates between magnet resets to the "
                                     "current policy (0: the uniform magnet)"),
    cut_as_loss: bool = typer.Option(False, help="a game still running at the decision limit "
                                     "counts as a loss (-1) instead of a time limit"),
    vf_coef: float = typer.Option(0.5, help="value loss weight"),
    max_grad_norm: float = typer.Option(0.5, help="gradient norm clip"),
    net_arch: str = typer.Option("", help="the network: shared:256,256 (one trunk that both "
                                 "heads read) or 256,256 (a policy and a value network); "
                                 "empty: the --init policy's own shape, else shared:256,256"),
    pool: str = typer.Option("random:0.05,builder:0.25,gold:0.45,self:0.25",
                             help="opponent pool weights (random, builder, gold, racer, self)"),
    reward: str = typer.Option("win", help="win, rank or score (machu_env.core.reward_modes)"),
    snapshot_every: int = typer.Option(1_000_000, min=1, help="steps between snapshots"),
    max_snapshots: int = typer.Option(8, min=1, help="frozen snapshots kept in the pool"),
    eval_every: int = typer.Option(0, min=0, help="steps between evaluations (0: 65,536 with "
                                   "--stop-at, to stop near the goal; else 500,000)"),
    eval_games: int = typer.Option(400, min=1, help="games per opponent per evaluation"),
    eval_opponents: str = typer.Option("random,builder,gold", help="the heuristics evaluated at "
                                       "every checkpoint (gold among them; gold alone is "
                                       "fastest)"),
    stop_at: float = typer.Option(0.0, min=0.0, max=1.0, help="end the run at the first "
                                  "evaluation whose win share against gold reaches this (0: "
                                  "train all --timesteps)"),
    stop_at_sacrifices: float = typer.Option(0.0, min=0.0, max=50.0, help="end the run at the "
                                             "first evaluation where the learner sacrifices "
                                             "this often a game against gold (0: never)"),
    imitate: str = typer.Option("gold", help="a fresh policy (not --init, not --resume) first "
                                "imitates this compiled heuristic (gold, builder, racer, "
                                "random) on its own games: a head start (\"\": none)"),
    imitate_games: int = typer.Option(2000, min=1, max=100_000, help="--imitate: games of the "
                                      "heuristic at every seat"),
    imitate_epochs: int = typer.Option(4, min=1, max=100, help="--imitate: epochs over them"),
    device: str = typer.Option("auto", help="torch device: auto (a GPU if there is one), "
                               "cpu, cuda..."),
    precision: str = typer.Option("fp32", help="fp32, or bf16 (autocast; CPUs with bfloat16 "
                                  "arithmetic)"),
    threads: int = typer.Option(0, min=0, max=256, help="torch and numba threads (0: their "
                                "defaults)"),
    overlap: bool = typer.Option(False, help="collect the next rollout on a thread of its own "
                                 "while the learner updates (one update of policy lag; "
                                 "--threads are split between the two)"),
    torch_compile: bool = typer.Option(False, help="run the PPO update through torch.compile "
                                       "(needs a C++ compiler; compiling takes a while)"),
    league: bool = typer.Option(False, help="league training: exploiters of the main agent "
                                "join the pool (machu_env/train/selfplay.py)"),
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
    exploiter_ppo: str = typer.Option("learner", help="league: the exploiters' PPO settings: "
                                      "learner (the learner's own) or probe (machu exploit's: "
                                      "clip 0.2, 4 epochs, whatever the learner's)"),
    exploiter_init: str = typer.Option("main", help="league: where each exploiter starts: main "
                                       "(the main agent's weights) or last (the newest "
                                       "exploiter's, which keeps adapting)"),
    frozen: str = typer.Option("", help="comma-separated policies (shipped names, "
                               "policy:<file>) that stay in the pool all run long beside the "
                               "exploiters, sharing --exploiter-share with them: frozen "
                               "exploiters of earlier probes, say"),
    init: str = typer.Option("", help="start from this trained policy (ppo-2p-v1, "
                             "policy:<file>) instead of fresh weights"),
    observation: int = typer.Option(0, min=0, max=3, help="the observation version: 1, 2 "
                                    "(with the race for the gold majority) or 3 (and the "
                                    "history summary); 0: the --init policy's own, else 1; "
                                    "--init from a shorter version widens its input"),
    ray: str = typer.Option("", metavar="[ADDRESS]", help="play the evaluations against the "
                            "heuristics as Ray tasks: --ray alone joins or starts a local "
                            "instance; auto or ray://host:port a cluster (the ray extra)"),
    eval_agents: str = typer.Option("", help="trained agents also evaluated at every "
                                    "checkpoint: 'ladder' (the shipped agents, weakest first, "
                                    "up to the first not beaten) or comma-separated names; "
                                    "they never enter training"),
    league_games: int = typer.Option(0, min=0, help="league: games against each pool member "
                                     "per evaluation (0: --eval-games)"),
    pfsp: float = typer.Option(0.0, min=0.0, max=10.0, help="league: draw each exploiter and "
                               "snapshot in proportion to (1 - your win share against it) ** "
                               "PFSP (prioritised fictitious self-play; 0: equally)"),
    minutes: float = typer.Option(0.0, min=0.0, help="end the run (with a checkpoint) once "
                                  "this many minutes have passed since it first started (0: no "
                                  "time budget)"),
    head_start: float = typer.Option(0.0, min=0.0, max=1.0, help="a curriculum: the share of "
                                     "training games in which the learner starts holding one "
                                     "priest card, free (to meet the temples; evaluations play "
                                     "the rules)"),
    recipe: str = typer.Option("", help="train a shipped recipe from scratch, every phase "
                               "(RECIPES); with it only --out, --seed, --minutes, --timesteps "
                               "(budgets: its phases end at their share of either, so "
                               "--timesteps gives the same schedule on any machine), --threads, "
                               "--overlap, --device and --resume apply"),
    as_json: bool = json_option(),
) -> None:
    """Self-play or league training (masked PPO) against an opponent pool; see
    machu_env/train/selfplay.py. Recipes that rebuild the shipped agents from scratch: RECIPES."""
    try:
        from machu_env.train.selfplay import TrainConfig
        from machu_env.train.selfplay import train as run_training
    except ImportError as e:
        raise typer.BadParameter(f"training needs the train extra ({e}): "
                                 + install_hint("train")) from None
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} is a file: give a folder for the run", param_hint="--out")
    options = dict(locals())
    for name in ("resume", "TrainConfig", "run_training", "ctx", "as_json"):
        options.pop(name)
    options["out"] = str(out)
    if recipe:
        given = {name for name in ctx.params  # (on the command line, even at its default)
                 if ctx.get_parameter_source(name).name not in ("DEFAULT", "DEFAULT_MAP")}
        run_recipe(options, resume, given, as_json)
        return
    config = TrainConfig(**options)
    try:
        config.check()  # the options as given, before any work (named as options)
        compile_first("train", training_parts(
            bool(config.imitate) and not config.init and not resume))
        given = ctx.get_parameter_source("minutes").name not in ("DEFAULT", "DEFAULT_MAP")
        with work_output(as_json):
            summary = run_training(config, resume=resume,
                                   minutes=minutes if resume and given else None)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(option_words(str(e), options)) from None
    finish(summary, train_lines(summary, str(out), config.players), as_json)


RECIPE_OPTIONS = ("recipe", "out", "seed", "minutes", "timesteps", "threads", "overlap",
                  "device")


def run_recipe(options: dict, resume: bool, given: set[str], as_json: bool = False) -> None:
    """``machu train --recipe NAME``: every phase of the recipe (``machu_env.train.recipes``); the
    options that a recipe sets itself are refused when given."""
    from machu_env.train import recipes
    from machu_env.train.config import TrainConfig

    owned = [k for k in TrainConfig().__dict__ if k in given and k not in RECIPE_OPTIONS]
    if owned:
        named = ", ".join("--" + g.replace("_", "-") for g in owned)
        allowed = ", ".join("--" + o for o in RECIPE_OPTIONS[1:])
        raise typer.BadParameter(f"--recipe sets its own settings: {named} cannot be given "
                                 f"with it (allowed: {allowed}, --resume)", param_hint="--recipe")
    steps = options["timesteps"] if "timesteps" in given else 0
    try:
        recipes.load(options["recipe"])  # (a bad name or file: one line, before compiling)
        compile_first("train")
        with work_output(as_json):
            summary = recipes.run(options["recipe"], options["out"], seed=options["seed"],
                                  minutes=options["minutes"], timesteps=steps,
                                  threads=options["threads"], device=options["device"],
                                  resume=resume, overlap=options["overlap"])
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(option_words(str(e), options)) from None
    finish(summary, recipe_lines(summary, options["out"], recipes.load(options["recipe"])
                                 ["players"]), as_json)


def recipe_help() -> str:
    """The shipped recipes, for ``machu train --help``."""
    try:
        from machu_env.train.recipes import describe
    except ImportError:  # (the train extra is missing: the command says so when run)
        return "see machu_env/train/recipes.py"
    return describe()


def option_words(message: str, options: dict) -> str:
    """A setting's message in the command line's words: ``eval_games must be...`` reads
    ``--eval-games must be...`` (only messages about the options, which start with a setting's
    name; a file's message starts with its path)."""
    first = re.match(r"[a-z_]+", message)
    if first is None or first.group() not in options:
        return message
    names = "|".join(sorted((n for n in options if "_" in n), key=len, reverse=True))
    message = "--" + first.group().replace("_", "-") + message[first.end():]
    return re.sub(rf"(?<!-)\b({names})\b", lambda m: "--" + m.group(1).replace("_", "-"),
                  message)


# --- population -----------------------------------------------------------------------------------
def _members_and_output(members: str, out: Path) -> tuple[list[str], list[Path]]:
    """The names of ``--members`` and the files they read, with ``--out`` checked first: an
    agent file that can be written and is none of them."""
    from machu_env.agents import shipped_policy

    names = [m.strip() for m in members.split(",") if m.strip()]
    if out.suffix != ".safetensors":
        raise typer.BadParameter(f"{out}: an agent file ends in .safetensors",
                                 param_hint="--out")
    inputs = agent_files(names) + [shipped_policy(n) for n in names
                                   if shipped_policy(n) is not None]
    if out.is_dir():  # (checked before the games and the training, creating nothing)
        raise typer.BadParameter(f"{out} is a folder: give a file name", param_hint="--out")
    check_output_folder(out.parent, "--out")
    refuse_overwrite(out, inputs, "--out")
    return names, inputs


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
    as_json: bool = json_option(),
) -> None:
    """Nash mixture of a population: measure the members' payoff matrix, solve it, write one
    agent file that plays them as one agent (machu_env/train/population.py). With --psro, grow the
    population by best responses first (PSRO); they are kept in OUT's folder <stem>_psro/."""
    try:
        from machu_env.train.population import build
        from machu_env.train.population import psro as run_psro
    except ImportError as e:
        raise typer.BadParameter(f"populations need the train extra ({e}): "
                                 + install_hint("train")) from None
    names, inputs = _members_and_output(members, out)
    if psro:  # the best responses' files: never one of the inputs either
        folder = out.parent / f"{out.stem}_psro"
        check_output_folder(folder, "--out")
        for k in range(psro):
            refuse_overwrite(folder / f"br_{k}.safetensors", inputs, "--out")
    command = " ".join(["machu", *sys.argv[1:]])
    try:
        compile_first("population")
        if psro:
            from machu_env.train.ppo import set_threads

            set_threads(threads)
            with work_output(as_json):
                summary = run_psro(names, players, games, out, psro, psro_steps,
                                   seed=seed, min_weight=min_weight,
                                   trust_pickle=trust_pickle, command=command)
        else:
            summary = build(names, players, games, out, seed=seed, min_weight=min_weight,
                            trust_pickle=trust_pickle, command=command)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(str(e)) from None
    finish(summary, population_lines(summary), as_json)


# --- average --------------------------------------------------------------------------------------
def average(
    members: str = typer.Option(..., help="comma-separated trained policies of one network "
                                "(ppo-2p, policy:<file>), 2 to 16"),
    out: Path = typer.Option(..., help="the averaged policy file to write (.safetensors)"),
    weights: str = typer.Option("", help="comma-separated weights, one per member (empty: "
                                "equal); normalised to sum to 1"),
    as_json: bool = json_option(),
) -> None:
    """Weight averaging: write one policy whose weights are the weighted mean of the members'
    (an agent and its fine-tune, or snapshots of one run; machu_env/train/average.py)."""
    try:
        from machu_env.train.average import average as run_average
        from machu_env.train.average import check_count, parse_weights
    except ImportError as e:
        raise typer.BadParameter(f"averaging needs the train extra ({e}): "
                                 + install_hint("train")) from None
    names, _ = _members_and_output(members, out)
    try:
        check_count(names)
        summary = run_average(names, parse_weights(weights, len(names)), out,
                              command=" ".join(["machu", *sys.argv[1:]]))
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None
    finish(summary, average_lines(summary), as_json)


train.__doc__ = (train.__doc__ or "").replace("RECIPES", recipe_help())
