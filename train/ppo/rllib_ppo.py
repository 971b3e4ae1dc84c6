"""PPO with RLlib on the game (the ``rllib`` extra).

    python -m machu_env.train.ppo.rllib_ppo --players 2 --iterations 50 --out runs/rllib_2p \\
        [--envs-per-runner 128] [--env-runners 0] [--opponents random:0.1,builder:0.3,gold:0.6]
        [--snapshot-every 10 --self-weight 0.3] [--eval-every 5] [--checkpoint-every 10]
        [--resume runs/rllib_2p/checkpoint_20] [--address auto | ray://host:port]

By default RLlib runs on the **batch engine**: each env runner steps ``--envs-per-runner`` games
per call (``gym.make_vec`` of ``MachuPicchu-v0`` through its vector entry point:
``machu_env.envs.rllib.vector_ppo_config``), one masked policy (``MaskedActorCritic``) learning the
learner seat against opponents played inside the batch: the compiled ``random``, ``builder`` and
``gold`` by the ``--opponents`` weights, and, with ``--snapshot-every K``, frozen copies of the
policy itself (``self``, weight ``--self-weight``; the newest ``--snapshots`` copies, refreshed
every K iterations). ``--multi-agent`` trains the older way instead: every seat learns, one
game per env copy (``MachuPicchuMultiAgentEnv``).

Results: each iteration prints the env steps and steps per second and the learner's
``win_share`` against its opponents; with ``--eval-every K``, every K iterations RLlib plays
``--eval-games`` games against ``--eval-opponents`` (``gold`` by default) and that win share is
printed too. All of it goes to TensorBoard (``OUT/tb``, where torch's tensorboard is installed)
and ``OUT/summary.json``. Every ``--checkpoint-every`` iterations and at the end, the algorithm
is saved (RLlib's ``save_to_path``) in ``OUT/checkpoint_<iteration>`` and ``OUT/checkpoint``,
each with the module's weights beside it as a data-only agent file (``policy.safetensors``),
which ``make_agent`` plays as ``rllib:<checkpoint folder>``. ``--resume DIR`` continues from
such a checkpoint: RLlib's state files there are pickles, so resuming needs ``--trust-pickle``
(load only checkpoints you wrote yourself).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from machu_env.core import files, schema

_PROGRESS = schema.check(schema.record({"iteration": schema.integer(0, 10**9)}),
                         "a run's progress")


def output_folder(out: str | Path) -> Path:
    """``out`` created as a folder (before Ray starts); ValueError naming the problem for a
    file there, a file above it or a folder that cannot be written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file: give a folder for the checkpoints")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {out}: cannot create the folder ({e.strerror})") from None
    if not os.access(out, os.W_OK):
        raise ValueError(f"--out {out} is not writable")
    return out


def train(players: int = 2, iterations: int = 10, env_runners: int = 1,
          envs_per_runner: int = 1, address: str | None = None, out: str | Path = "runs/rllib",
          seed: int = 0, train_batch_size: int = 4000, minibatch_size: int = 500,
          layers: tuple[int, ...] = (256, 256), log=print, batch_engine: bool = False,
          opponents: str = "random:0.1,builder:0.3,gold:0.6", eval_every: int = 0,
          eval_games: int = 200, eval_opponents: str = "gold:1", checkpoint_every: int = 0,
          snapshot_every: int = 0, self_weight: float = 0.3, snapshots: int = 4,
          resume: str | Path | None = None, trust_pickle: bool = False) -> dict[str, Any]:
    """Train and save; returns a summary (per iteration: steps, seconds, steps/s, win shares;
    the checkpoint and the agent name)."""
    from machu_env.ray_backend import connect, require_ray

    if resume is not None and not trust_pickle:
        raise ValueError("resuming loads RLlib's state files, which are pickles (they can run "
                         "code): pass --trust-pickle for a checkpoint you wrote yourself")
    if resume is not None and not Path(resume).is_dir():
        raise ValueError(f"--resume {resume}: no such checkpoint folder")
    out = output_folder(out)
    ray = require_ray()
    config, module_id, pool = _configured(
        players, batch_engine, opponents, eval_opponents, snapshot_every, self_weight,
        dict(num_env_runners=env_runners, envs_per_runner=envs_per_runner, layers=layers,
             seed=seed, train_batch_size=train_batch_size, minibatch_size=minibatch_size),
        eval_every, eval_games)
    writer = _tensorboard(out / "tb")
    started = connect(address or "local")
    rows: list[dict[str, Any]] = []
    frozen: list[Any] = []
    try:
        algo = config.build_algo()
        first = 0
        if resume is not None:
            algo.restore_from_path(str(Path(resume).resolve()))
            first = files.read_json(Path(resume) / "progress.json", _PROGRESS)["iteration"] \
                if (Path(resume) / "progress.json").is_file() else 0
            log(f"resumed from {resume} (iteration {first})")
        for i in range(first, first + iterations):
            t = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - t
            row = _row(i + 1, result, seconds)
            steps = row["env_steps"]
            rows.append(row)
            _log_row(writer, row)
            log(f"iteration {i + 1}: {steps} env steps in {seconds:.1f} s "
                f"({steps / seconds:,.0f} steps/s)"
                + (f", win share {row['win_share']:.1%}" if "win_share" in row else "")
                + (f", vs {eval_opponents} {row['eval_win_share']:.1%}"
                   if "eval_win_share" in row else ""))
            if batch_engine and snapshot_every and (i + 1) % snapshot_every == 0:
                frozen = _refresh_snapshots(algo, module_id, frozen, snapshots)
                log(f"  {len(frozen)} frozen copies of the policy in the opponent pool")
            if checkpoint_every and (i + 1) % checkpoint_every == 0:
                _save(algo, module_id, out / f"checkpoint_{i + 1}", i + 1, players, seed)
        checkpoint = out / "checkpoint"
        _save(algo, module_id, checkpoint, first + iterations, players, seed)
        algo.stop()
    finally:
        if started:
            ray.shutdown()
        if writer is not None:
            writer.close()
    summary = {"players": players, "batch_engine": batch_engine, "opponents": pool,
               "env_runners": env_runners, "envs_per_runner": envs_per_runner,
               "iterations": rows, "checkpoint": str(checkpoint),
               "agent": f"rllib:{checkpoint}", "command": " ".join(sys.argv)}
    files.write_json(out / "summary.json", summary, indent=1)
    log(f"saved {checkpoint} (play it as rllib:{checkpoint})")
    return summary


def _configured(players: int, batch_engine: bool, opponents: str, eval_opponents: str,
                snapshot_every: int, self_weight: float, common: dict[str, Any],
                eval_every: int, eval_games: int) -> tuple[Any, str, str]:
    """RLlib's PPO config, the module it trains and the opponent pool (the pools checked
    before Ray starts)."""
    from machu_env.core.opponent_pool import parse_pool
    from machu_env.envs.rllib import MODULE_ID, ppo_config, vector_ppo_config

    if not batch_engine:
        return ppo_config(num_players=players, **common), MODULE_ID, opponents
    parse_pool(opponents)
    parse_pool(eval_opponents)
    pool = f"{opponents},self:{self_weight}" if snapshot_every else opponents
    parse_pool(pool)
    config = vector_ppo_config(num_players=players, opponents=pool, eval_interval=eval_every,
                               eval_games=eval_games, eval_opponents=eval_opponents, **common)
    return config, "default_policy", pool


def _row(iteration: int, result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One iteration's row: env steps, seconds, steps/s and the win shares RLlib reported."""
    runners = result.get("env_runners", {})
    try:  # (NaN when no runner reported, on a busy machine say: 0 steps)
        steps = int(runners.get("num_env_steps_sampled", 0))
    except (TypeError, ValueError, OverflowError):
        steps = 0
    row = {"iteration": iteration, "env_steps": steps, "seconds": round(seconds, 2),
           "steps_per_second": round(steps / seconds, 1)}
    if "win_share" in runners:
        row["win_share"] = round(float(runners["win_share"]), 4)
    evaluation = result.get("evaluation", {}).get("env_runners", {})
    if "win_share" in evaluation:
        row["eval_win_share"] = round(float(evaluation["win_share"]), 4)
    return row


def _save(algo, module_id: str, folder: Path, iteration: int, players: int, seed: int) -> None:
    """RLlib's checkpoint, the module's weights as a data-only agent file and the iteration."""
    from machu_env.envs.rllib import POLICY_FILE, export_policy

    algo.save_to_path(str(folder.resolve()))
    info = {"trainer": "rllib-ppo", "players": players, "iteration": iteration, "seed": seed,
            "command": " ".join(sys.argv)}
    export_policy(algo.get_module(module_id), folder / POLICY_FILE, info)
    files.write_json(folder / "progress.json", {"iteration": iteration})


def _refresh_snapshots(algo, module_id: str, frozen: list[Any], keep: int) -> list[Any]:
    """Add a frozen copy of the current policy to every env runner's opponent pool (the
    newest ``keep``), as a ``PolicyBank`` played in one batched call."""
    import copy

    module = algo.get_module(module_id)
    net = copy.deepcopy(module.net).cpu().eval().requires_grad_(False)
    frozen = [*frozen, net][-keep:]

    def install(runner, nets=tuple(frozen)):
        from machu_env.train.ppo.bank import PolicyBank

        env = getattr(runner, "env", None)
        if env is not None:
            env.unwrapped.set_opponent_policies(PolicyBank(list(nets), seed=len(nets)))

    algo.env_runner_group.foreach_env_runner(install, local_env_runner=True)
    return frozen


def _tensorboard(folder: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(folder))


def _log_row(writer, row: dict[str, Any]) -> None:
    if writer is None:
        return
    for key in ("steps_per_second", "win_share", "eval_win_share"):
        if key in row:
            writer.add_scalar(f"rllib/{key}", row[key], row["iteration"])
    writer.flush()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m machu_env.train.ppo.rllib_ppo",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2, choices=range(2, 6), metavar="2-5")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--multi-agent", action="store_true",
                   help="every seat learns, one game per env copy (not the batch engine)")
    p.add_argument("--env-runners", type=int, default=None,
                   help="remote env runners (default: 0 on the batch engine, else 1)")
    p.add_argument("--envs-per-runner", type=int, default=None,
                   help="games per env runner (default: 128 on the batch engine, else 1)")
    p.add_argument("--opponents", default="random:0.1,builder:0.3,gold:0.6")
    p.add_argument("--snapshot-every", type=int, default=0)
    p.add_argument("--self-weight", type=float, default=0.3)
    p.add_argument("--snapshots", type=int, default=4)
    p.add_argument("--eval-every", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--eval-opponents", default="gold:1")
    p.add_argument("--checkpoint-every", type=int, default=0)
    p.add_argument("--resume", default=None)
    p.add_argument("--trust-pickle", action="store_true")
    p.add_argument("--address", default=None, help="auto, ray://host:port (default: local)")
    p.add_argument("--out", default="runs/rllib")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train-batch-size", type=int, default=None,
                   help="default: 16384 on the batch engine, else 4000")
    p.add_argument("--minibatch-size", type=int, default=None,
                   help="default: 4096 on the batch engine, else 500")
    args = p.parse_args(argv)
    batch = not args.multi_agent
    defaults = {"env_runners": 0 if batch else 1, "envs_per_runner": 128 if batch else 1,
                "train_batch_size": 16384 if batch else 4000,
                "minibatch_size": 4096 if batch else 500}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    for name in ("iterations", "env_runners", "envs_per_runner", "train_batch_size",
                 "minibatch_size", "eval_every", "eval_games", "checkpoint_every",
                 "snapshot_every", "snapshots", "seed"):
        lowest = 0 if name in ("env_runners", "eval_every", "checkpoint_every",
                               "snapshot_every", "seed") else 1
        if getattr(args, name) < lowest:
            p.error(f"--{name.replace('_', '-')} must be >= {lowest}, got {getattr(args, name)}")
    if not 0 < args.self_weight < float("inf"):
        p.error(f"--self-weight must be > 0, got {args.self_weight}")
    try:
        train(args.players, args.iterations, args.env_runners, args.envs_per_runner,
              args.address, args.out, args.seed, args.train_batch_size, args.minibatch_size,
              batch_engine=batch, opponents=args.opponents, eval_every=args.eval_every,
              eval_games=args.eval_games, eval_opponents=args.eval_opponents,
              checkpoint_every=args.checkpoint_every, snapshot_every=args.snapshot_every,
              self_weight=args.self_weight, snapshots=args.snapshots, resume=args.resume,
              trust_pickle=args.trust_pickle)
    except (ImportError, ValueError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
