"""``machu exploit``: the exploitability probe (the ``train`` extra)."""

from __future__ import annotations

import inspect
from pathlib import Path

import typer

from machu_env._extras import install_hint
from machu_env.cli.commands import compile_first
from machu_env.cli.options import agent_files, check_output_folder, refuse_inputs_inside
from machu_env.cli.summaries import finish, json_option, work_output
from machu_env.train.run.args import MAX_THREADS, PPOArgs, TrainArgs
from machu_env.train.run.settings import option
from machu_env.train.run.settings import options as options_of


# --- exploit -------------------------------------------------------------------------------------
def exploit(
    agent: str = typer.Option(..., help="the agent to probe (any agent name)"),
    players: int = option(TrainArgs, "players"),
    steps: int = typer.Option(1_500_000, min=1, help="exploiter training steps"),
    seed: int = option(TrainArgs, "seed", "seeds the games and the learner"),
    eval_games: int = typer.Option(2000, min=1, help="evaluation games after training (seats "
                                   "rotated)"),
    eval_every: int = typer.Option(0, min=0, help="also evaluate (400 games) every this many "
                                   "steps (0: only at the end)"),
    eval_at: str = typer.Option("", help="comma-separated steps at which to also play "
                                "EVAL_GAMES games (1500000 in a 5M-step probe)"),
    cold: bool = typer.Option(False, help="start the exploiter from fresh weights, not the "
                              "agent's"),
    reward: str = typer.Option("win", help="the exploiter's training reward: win (+1/-1 at "
                               "the end) or score (the final score margin: denser, for --cold)"),
    out: Path = typer.Option(None, help="folder for curve.csv/png, summary.json and the "
                             "exploiter's agent file"),
    trust_pickle: bool = typer.Option(False, help="allow an sb3 .zip policy (runs pickled "
                                      "code)"),
    ray: str = typer.Option(None, metavar="[ADDRESS]", help="play the evaluation games as Ray "
                            "tasks: --ray alone joins or starts a local instance; auto or "
                            "ray://host:port a cluster (the ray extra)"),
    workers: int = typer.Option(2, min=1, help="with --ray: evaluation tasks in flight / 4"),
    sampled: bool = typer.Option(False, help="a trained policy samples its actions (as it "
                                 "trains) instead of taking the most probable one"),
    as_json: bool = json_option(),
    **ppo,
) -> None:
    """Exploitability probe: train an exploiter against AGENT alone, report its win share."""
    precision, threads = ppo["precision"], ppo["threads"]
    if not 0 <= threads <= MAX_THREADS:
        raise typer.BadParameter(f"threads must be an int in 0..{MAX_THREADS}, got {threads}",
                                 param_hint="--threads")
    try:
        import torch  # noqa: F401  (the train extra: said here, not mid-run)

        from machu_env.train.ppo.ppo import PPOSettings, check_precision
        from machu_env.train.probe.exploit import exploit as run_exploit
    except ImportError as e:
        raise typer.BadParameter(f"the probe needs the train extra ({e}): "
                                 + install_hint("train")) from None
    at = _eval_at(eval_at, steps)
    if out is not None:
        _check_probe_folder(out, agent)
    settings = _probe_settings(ppo, precision, reward, PPOSettings, check_precision)
    from machu_env.train.ppo.ppo import set_threads

    set_threads(threads)
    try:
        compile_first("exploit")
        with work_output(as_json):
            summary = run_exploit(agent, players, steps, seed, out, eval_games, eval_every,
                                  settings, trust_pickle=trust_pickle, ray=ray, workers=workers,
                                  sampled=sampled, cold=cold, eval_at=at, reward=reward)
    except BaseException as e:  # (a failed or stopped probe removes what it wrote: exploit)
        if isinstance(e, (ValueError, ImportError)):
            raise typer.BadParameter(str(e)) from None
        raise
    from machu_env.train.probe.probe_verdict import verdict

    lines = verdict(summary, steps)
    lines.append(f"the exploiter and its curve: {out}" if out is not None else
                 "(--out DIR keeps the exploiter, its curve and summary.json)")
    finish(summary, lines, as_json)


def _eval_at(eval_at: str, steps: int) -> tuple[int, ...]:
    """``--eval-at`` as steps within ``--steps``; BadParameter in words otherwise."""
    try:
        at = tuple(int(x) for x in eval_at.split(",") if x.strip())
    except ValueError:
        raise typer.BadParameter(f"give steps as comma-separated integers, like 1500000; got "
                                 f"{eval_at!r}", param_hint="--eval-at") from None
    bad = [x for x in at if not 1 <= x <= steps]
    if bad:
        raise typer.BadParameter(f"eval_at must be an int in 1..{steps} (within --steps), got "
                                 f"{bad[0]}", param_hint="--eval-at")
    return at


def _check_probe_folder(out: Path, agent: str) -> None:
    """``--out`` may not hold the probed agent's file nor an earlier probe's outputs (a
    stopped probe removes its own outputs, never an earlier probe's)."""
    refuse_inputs_inside(out, agent_files([agent]), "--out")
    existed = check_output_folder(out, "--out")  # (created when the probe starts)
    earlier = sorted(p.name for pattern in EXPLOIT_OUTPUTS for p in out.glob(pattern)) \
        if existed else []
    if earlier:
        raise typer.BadParameter(f"{out} holds an earlier probe's {', '.join(earlier)}: "
                                 "choose another --out (nothing was changed)",
                                 param_hint="--out")


def _probe_settings(ppo: dict, precision: str, reward: str, settings_class, check_precision):
    """The exploiter's PPO settings, checked (named as options)."""
    try:
        check_precision(precision)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--precision") from None
    if reward not in ("win", "score"):
        raise typer.BadParameter(f"reward must be win or score, got {reward!r}",
                                 param_hint="--reward")
    settings = settings_class(**{k: ppo[k] for k in PPO_OPTIONS})  # (the probe's defaults)
    if not settings.n_envs or not settings.n_steps:  # (0: sized to the machine, as a run's)
        from machu_env.train.ppo import sizing

        fit = sizing.size(settings.n_envs, settings.n_steps, ppo["threads"], "cpu",
                          sizing.usable_cores(), None)
        settings.n_envs, settings.n_steps = fit.n_envs, fit.n_steps
    try:
        settings.check()
    except ValueError as e:
        from machu_env.cli.training import option_words

        raise typer.BadParameter(option_words(str(e), ppo)) from None
    return settings


EXPLOIT_OUTPUTS = ("curve.csv", "curve.png", "exploiter.safetensors", "summary.json",
                   "member_*")


PPO_OPTIONS = ("n_envs", "n_steps", "batch_size", "n_epochs", "precision", "cut_as_loss")


def _exploit_signature() -> inspect.Signature:
    """``exploit``'s own options, then the PPO settings it shares with ``machu train`` (as
    ``PPOArgs`` declares them: the probe's defaults) and ``--threads``."""
    own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
           for p in inspect.signature(exploit).parameters.values()
           if p.kind is not inspect.Parameter.VAR_KEYWORD]
    shared = options_of(PPOArgs, PPO_OPTIONS) + options_of(TrainArgs, ("threads",))
    return inspect.Signature(own[:-1] + shared + own[-1:])


exploit.__signature__ = _exploit_signature()
