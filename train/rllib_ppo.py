"""PPO with RLlib on the game (the ``rllib`` extra): one masked policy shared by every seat.

    python -m machu_env.train.rllib_ppo --players 2 --iterations 20 --env-runners 2 \\
        --out runs/rllib_2p [--address auto | ray://host:port]

Without ``--address`` a local Ray instance is started (or joined); with one, the env runners
are spread over that cluster (machu-env installed on every node). Each iteration prints the
env steps sampled and the steps per second; at the end the algorithm is saved with
``save_to_path`` in ``OUT/checkpoint`` and the shared module's weights are written beside it as a
data-only agent file (``OUT/checkpoint/policy.safetensors``), which ``make_agent`` plays as
``rllib:OUT/checkpoint`` (``machu tournament --agents rllib:runs/rllib_2p/checkpoint,gold``).
RLlib's own state files are pickles; nothing of this project ever loads them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def train(players: int = 2, iterations: int = 10, env_runners: int = 1,
          envs_per_runner: int = 1, address: str | None = None, out: str | Path = "runs/rllib",
          seed: int = 0, train_batch_size: int = 4000, minibatch_size: int = 500,
          layers: tuple[int, ...] = (256, 256), log=print) -> dict[str, Any]:
    """Train and save; returns a summary (steps, seconds, steps/s per iteration, paths)."""
    from machu_env.ray_backend import connect, require_ray
    from machu_env.rllib import MODULE_ID, POLICY_FILE, export_policy, ppo_config

    ray = require_ray()
    out = Path(out)
    config = ppo_config(num_players=players, num_env_runners=env_runners,
                        envs_per_runner=envs_per_runner, layers=layers, seed=seed,
                        train_batch_size=train_batch_size, minibatch_size=minibatch_size)
    started = connect(address or "local")
    try:
        algo = config.build_algo()
        rows = []
        steps_before = 0
        for i in range(iterations):
            t = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - t
            total = int(result.get("num_env_steps_sampled_lifetime", 0))
            steps = total - steps_before
            steps_before = total
            rows.append({"iteration": i + 1, "env_steps": steps, "seconds": round(seconds, 2),
                         "steps_per_second": round(steps / seconds, 1)})
            log(f"iteration {i + 1}/{iterations}: {steps} env steps in {seconds:.1f} s "
                f"({steps / seconds:,.0f} steps/s)")
        checkpoint = out / "checkpoint"
        algo.save_to_path(str(checkpoint.resolve()))
        module = algo.get_module(MODULE_ID)
        info = {"trainer": "rllib-ppo", "players": players, "iterations": iterations,
                "env_steps": steps_before, "seed": seed, "command": " ".join(sys.argv)}
        export_policy(module, checkpoint / POLICY_FILE, info)
        algo.stop()
    finally:
        if started:
            ray.shutdown()
    summary = {"players": players, "env_runners": env_runners,
               "envs_per_runner": envs_per_runner, "iterations": rows,
               "checkpoint": str(checkpoint), "agent": f"rllib:{checkpoint}"}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    log(f"saved {checkpoint} (play it as rllib:{checkpoint})")
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m machu_env.train.rllib_ppo",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2, choices=range(2, 6), metavar="2-5")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--env-runners", type=int, default=1)
    p.add_argument("--envs-per-runner", type=int, default=1)
    p.add_argument("--address", default=None, help="auto, ray://host:port (default: local)")
    p.add_argument("--out", default="runs/rllib")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train-batch-size", type=int, default=4000)
    p.add_argument("--minibatch-size", type=int, default=500)
    args = p.parse_args(argv)
    for name in ("iterations", "env_runners", "envs_per_runner", "train_batch_size",
                 "minibatch_size"):
        lowest = 0 if name == "env_runners" else 1
        if getattr(args, name) < lowest:
            p.error(f"--{name.replace('_', '-')} must be >= {lowest}, got {getattr(args, name)}")
    try:
        train(args.players, args.iterations, args.env_runners, args.envs_per_runner,
              args.address, args.out, args.seed, args.train_batch_size, args.minibatch_size)
    except (ImportError, ValueError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
