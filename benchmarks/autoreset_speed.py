"""The VectorEnv's autoreset modes and the CleanRL-style example, timed on one checkout.

    python benchmarks/autoreset_speed.py [--num-envs 4096] [--seconds 10] [--out DIR]

The VectorEnv's default is Gymnasium's next-step autoreset; same-step is an option. This script
measures, on whatever ``machu_env`` is importable, the learner steps per second of
``gym.make_vec("MachuPicchu-v0", num_envs, opponents="random:1")`` stepped with its compiled
random sampler, in its default mode and in each mode asked for by name, and the wall time of
``examples/ppo_vector.py`` (``--example``: the example of the same checkout) training for a
fixed number of steps with no evaluation. Run it on two checkouts (before and after, laid out as
installed, one after the other on the same idle machine) to compare them; ``machu train``
and RLlib's PPO are timed by ``train_speed.py``. Writes ``autoreset_speed.json`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def vector_rate(num_envs: int, seconds: float, mode: str | None) -> float:
    """Learner steps per second of the VectorEnv (``mode`` None: its default)."""
    steps, secs = vector_steps(num_envs, seconds, mode)
    return steps / secs


def vector_steps(num_envs: int, seconds: float, mode: str | None, players: int = 2,
                 opponents: str = "random:1") -> tuple[int, float]:
    """(learner steps, seconds) of the VectorEnv stepped for about ``seconds`` (``mode`` None:
    its default), random legal learner actions from its compiled sampler, ``opponents`` inside
    the batch."""
    import gymnasium as gym

    import machu_env  # noqa: F401 (registers MachuPicchu-v0)

    kwargs = {} if mode is None else {"autoreset_mode": mode}
    envs = gym.make_vec("MachuPicchu-v0", num_envs=num_envs, num_players=players,
                        opponents=opponents, **kwargs)
    envs.reset(seed=0)
    for _ in range(20):  # warm-up: every kernel compiled, some games ended
        envs.step(envs.random_actions())
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        envs.step(envs.random_actions())
        steps += num_envs
    return steps, time.perf_counter() - t0


def example_seconds(example: Path, steps: int) -> float:
    """Wall time of the example training ``steps`` learner steps (no evaluation, one thread)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, str(example), "--total-steps", str(steps), "--eval-every",
                    str(10 * steps), "--threads", "1"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--example", type=Path, default=Path("examples/ppo_vector.py"))
    p.add_argument("--example-steps", type=int, default=327_680)
    p.add_argument("--label", default="", help="a name for this checkout in the output")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    args = p.parse_args(argv)
    import machu_env

    rows = {"checkout": args.label or str(Path(machu_env.__file__).parent.parent),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    for mode in (None, "same_step", "next_step"):
        rate = vector_rate(args.num_envs, args.seconds, mode)
        rows[f"vector_{mode or 'default'}_steps_per_second"] = round(rate)
        print(f"VectorEnv ({mode or 'default'}), {args.num_envs} games: {rate:,.0f} steps/s",
              flush=True)
    secs = example_seconds(args.example, args.example_steps)
    rows["example_seconds"], rows["example_steps"] = round(secs, 1), args.example_steps
    print(f"{args.example}: {args.example_steps:,} steps in {secs:.1f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "autoreset_speed.json"
    old = json.loads(path.read_text()) if path.exists() else []
    path.write_text(json.dumps(old + [rows], indent=2) + "\n")


if __name__ == "__main__":
    main()
