"""``machu train``, ``machu population`` and ``machu average`` (the ``train`` extra; ``machu
exploit`` is in ``probing``)."""

from __future__ import annotations

import inspect
import re
import shlex
import sys
from contextlib import contextmanager
from pathlib import Path

import typer

from machu_env._extras import install_hint
from machu_env.cli.commands import compile_first, err_console
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
from machu_env.train.recipes.recipe_run import RecipeRun
from machu_env.train.run.args import TrainArgs
from machu_env.train.run.settings import option, resumable
from machu_env.train.run.settings import options as options_of


# --- train ---------------------------------------------------------------------------------------
def train(ctx: typer.Context, resume: bool = False, as_json: bool = False,
          **settings) -> None:
    """Self-play or league training (masked PPO) against an opponent pool; see
    train/run/selfplay.py. Recipes that rebuild the shipped agents from scratch: RECIPES."""
    try:
        import torch  # noqa: F401  (the train extra: said here, not mid-run)

        from machu_env.train.run.selfplay import TrainConfig
        from machu_env.train.run.selfplay import train as run_training
    except ImportError as e:
        raise typer.BadParameter(f"training needs the train extra ({e}): "
                                 + install_hint("train")) from None
    options, out, minutes = dict(settings), Path(settings["out"]), settings["minutes"]
    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} is a file: give a folder for the run", param_hint="--out")
    if options["recipe"]:
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
        with work_output(as_json), saying_what_was_kept(out, "machu train --out"):
            summary = run_training(config, resume=resume,
                                   minutes=minutes if resume and given else None)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(option_words(str(e), options)) from None
    finish(summary, train_lines(summary, str(out), config.players), as_json)


@contextmanager
def saying_what_was_kept(out: Path, command: str):
    """On a stop (Ctrl-C, SIGTERM, SIGHUP), a line before the command's last one: the
    checkpoint that was kept (the newest of the run or of a recipe's phases) and the command
    that goes on from it."""
    try:
        yield
    except KeyboardInterrupt:
        err_console.print(kept_line(out, command))
        raise


def kept_line(out: Path, command: str) -> str:
    from machu_env.train.run import checkpoints

    found = []
    for folder in (out, *(p for p in sorted(out.glob("*")) if p.is_dir())):
        try:
            found.append((checkpoints.read_state(folder)[0], folder))
        except (ValueError, OSError):
            continue
    if not found:
        return (f"machu train: no checkpoint was written yet in {out}: the run starts again "
                "from the beginning (without --resume)")
    steps, folder = max(found, key=lambda f: ((f[1] / checkpoints.STATE).stat().st_mtime, f[0]))
    where = "" if folder == out else f" (phase {folder.name})"
    return (f"machu train: kept the checkpoint at {steps:,} steps in {folder}{where}; "
            f"go on with: {command} {shlex.quote(str(out))} --resume")


def run_recipe(options: dict, resume: bool, given: set[str], as_json: bool = False) -> None:
    """``machu train --recipe NAME``: every phase of the recipe
    (``machu_env.train.recipes.recipes``); the options it takes are ``RecipeRun``'s fields, the
    others (the recipe's own settings) are refused when given."""
    from machu_env.train.recipes import recipes
    from machu_env.train.run.config import TrainConfig

    passed = RecipeRun.names()
    owned = [k for k in TrainConfig().__dict__ if k in given and k not in (*passed, "recipe")]
    if owned:
        named = ", ".join("--" + g.replace("_", "-") for g in owned)
        allowed = ", ".join("--" + o.replace("_", "-") for o in passed)
        raise typer.BadParameter(f"--recipe sets its own settings: {named} cannot be given "
                                 f"with it (allowed: {allowed}, --resume)", param_hint="--recipe")
    # (a budget not given is the recipe's: --timesteps' default is a plain run's)
    run = {k: options[k] for k in passed if k != "out" and (k != "timesteps" or k in given)}
    try:
        recipe = recipes.load(options["recipe"])  # (a bad file: one line, before compiling;
        # read once: an edit of the file during the run changes nothing)
        compile_first("train")
        again = (f"machu train --recipe {shlex.quote(options['recipe'])} "
                 f"--seed {options['seed']} --out")
        with work_output(as_json), saying_what_was_kept(Path(options["out"]), again):
            summary = recipes.run(options["recipe"], options["out"], resume=resume,
                                  recipe=recipe, **run)
    except (ValueError, ImportError) as e:
        raise typer.BadParameter(option_words(str(e), options)) from None
    finish(summary, recipe_lines(summary, options["out"], recipe["players"]), as_json)


def recipe_help() -> str:
    """The shipped recipes, for ``machu train --help``."""
    try:
        from machu_env.train.recipes.recipes import describe

        return describe()
    except (ImportError, ValueError):  # (no train extra, or a recipe file that fails its
        return "see train/recipes/recipes.py"  # check: --recipe says why when given)


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
    players: int = option(TrainArgs, "players"),
    games: int = typer.Option(1000, min=1, max=1_000_000, help="games per ordered pair of "
                              "members (seats rotated)"),
    seed: int = option(TrainArgs, "seed", "seeds the games"),
    min_weight: float = typer.Option(1e-3, min=0.0, max=0.5, help="members below this weight "
                                     "are dropped (the rest renormalised)"),
    trust_pickle: bool = typer.Option(False, help="allow sb3 .zip members (runs pickled "
                                      "code)"),
    psro: int = typer.Option(0, min=0, max=15, help="PSRO: this many times, train a best "
                             "response to the mixture and add it (0: none)"),
    psro_steps: int = typer.Option(1_000_000, min=1, max=10**10, help="PSRO: training steps "
                                   "of each best response"),
    threads: int = option(TrainArgs, "threads", "with --psro: torch and numba threads (0: "
                          "their defaults)"),
    as_json: bool = json_option(),
) -> None:
    """Nash mixture of a population: measure the members' payoff matrix, solve it, write one
    agent file that plays them as one agent (train/probe/population.py). With --psro, grow the
    population by best responses first (PSRO); they are kept in OUT's folder <stem>_psro/."""
    try:
        import torch  # noqa: F401  (the train extra: said here, not mid-run)

        from machu_env.train.probe.population import build
        from machu_env.train.probe.population import psro as run_psro
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
            from machu_env.train.ppo.ppo import set_threads

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
    (an agent and its fine-tune, or snapshots of one run; train/probe/average.py)."""
    try:
        import torch  # noqa: F401  (the train extra: said here, not mid-run)

        from machu_env.train.probe.average import average as run_average
        from machu_env.train.probe.average import check_count, parse_weights
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


def _train_signature() -> inspect.Signature:
    """``train``'s options: every setting of ``TrainArgs`` (declared once, with its help), then
    ``--resume`` and ``--json``; the recipe names filled into the help."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    settings = [p.replace(default=typer.Option(p.default.default, help=p.default.help.replace(
        "RECIPES", recipe_help()).replace("RECIPE_OPTIONS", flags((*RecipeRun.names(), "resume")))))
        if p.name == "recipe" else p for p in options_of(TrainArgs)]
    changed = flags(n for n in resumable(TrainArgs) if n != "out")
    return inspect.Signature([
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          annotation=typer.Context),
        *settings,
        inspect.Parameter("resume", keyword, annotation=bool, default=typer.Option(
            False, help=f"continue the run in OUT (its saved settings; only {changed} apply)")),
        inspect.Parameter("as_json", keyword, annotation=bool, default=json_option())])


def flags(names) -> str:
    """Settings as the command line spells them: ``--a, --b and --c``."""
    said = ["--" + n.replace("_", "-") for n in names]
    return ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else "".join(said)





train.__signature__ = _train_signature()
train.__doc__ = (train.__doc__ or "").replace("RECIPES", recipe_help())
