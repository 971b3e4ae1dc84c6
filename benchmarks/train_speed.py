"""Training throughput side by side, in one run: sb3-contrib's MaskablePPO, ``machu train`` and
RLlib's PPO on the batch engine, and the training env's own speed without a learner.

    python benchmarks/train_speed.py [--steps 409600] [--players 2] [--threads 0]

Every learner trains from seed 0 for the same number of learner decisions (env steps) with the
same PPO settings (``machu train``'s defaults: 128 games x 128 steps, minibatch 4096, 2 epochs)
and the same opponent pool (``MachuPicchuVecEnv`` with the default weights of random, the fair
``builder`` and ``gold``, and one frozen copy of the initial policy as ``self``):

* ``maskable_ppo`` — sb3-contrib's MaskablePPO on ``MachuPicchuVecEnv`` (a peer trainer, the
  one a user of SB3 picks), two 256x256 networks (sb3 has no shared trunk for PPO), the
  frozen copy playing through its own ``predict``;
* ``machu_train_fp32`` / ``machu_train_bf16`` — ``train.selfplay.train`` (what ``machu train``
  runs; its default network, one 256x256 trunk that the policy and value heads share; bf16 only
  where the CPU has bfloat16 arithmetic), its steps per second over training time (the
  evaluations are not counted), with its own split into update, policy and simulator;
* ``machu_train_previous`` — the recipe before 2026-11-26 (two 256x256 networks, 4 epochs per
  rollout: ``--net-arch 256,256 --n-epochs 4``), and ``machu_train_two_networks`` — the
  defaults of 2026-11-26 (``--net-arch 256,256``, 2 epochs);
* ``machu_train_compiled_pool`` / ``rllib_ppo_batch_engine`` — ``machu train`` and RLlib's PPO
  (``machu_env.envs.rllib.vector_ppo_config``: the batch engine's VectorEnv in one local env
  runner, the learner in the same process) against the same compiled opponents
  (``COMPILED_POOL``, no frozen policy), with the same network and PPO settings (where RLlib
  is installed; RLlib's module has two networks);
* ``env_random`` / ``env_compiled_pool`` — the env alone (``gym.make_vec`` over the same
  batch core, ``LearnerBatch``, 128 games as the trainer, random legal learner actions from its
  compiled sampler): learner steps per second against random opponents (the VectorEnv's raw
  speed) and against ``COMPILED_POOL`` (``gold``'s lookahead is most of the difference).

Each learner first runs one short warm-up (numba's compiled kernels, torch's first calls).
Writes a table to stdout and ``train_speed.json`` (machine, versions, date) under ``--out``.
Needs the ``train`` extra. Measure on an idle machine: under load the figures mean little.
"""

from __future__ import annotations

import argparse
import copy
import json
import tempfile
import time
from pathlib import Path

from autoreset_speed import vector_steps

from machu_env._extras import install_hint
from machu_env.bench.machine import describe
from machu_env.envs.sb3 import MachuPicchuVecEnv
from machu_env.train.ppo.ppo import bf16_supported
from machu_env.train.ppo.sizing import usable_cores
from machu_env.train.run.selfplay import TrainConfig, train

NEVER = 10**12  # no evaluation or snapshot during a measured run


def maskable_setup(players: int, seed: int = 0, **settings):
    """(MaskablePPO, its config): sb3-contrib's MaskablePPO on ``MachuPicchuVecEnv`` with ``machu
    train``'s network and PPO settings (``settings`` override ``TrainConfig``'s), one frozen
    copy of its initial policy playing ``self``."""
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO

    c = TrainConfig(players=players, **settings)
    c.size_to(usable_cores(), None)  # machu train's sizing on this machine's CPU
    env = MachuPicchuVecEnv(c.n_envs, players, seed=seed, pool=c.pool,
                            max_learner_steps=1000)
    layers = c.layers()
    model = MaskablePPO("MlpPolicy", env, n_steps=c.n_steps, batch_size=c.batch_size,
                        n_epochs=c.n_epochs, learning_rate=c.learning_rate, gamma=c.gamma,
                        gae_lambda=c.gae_lambda, clip_range=c.clip_range, ent_coef=c.ent_coef,
                        vf_coef=c.vf_coef, max_grad_norm=c.max_grad_norm, seed=seed,
                        device="cpu", verbose=0,
                        policy_kwargs={"net_arch": {"pi": layers, "vf": layers}})
    frozen = copy.deepcopy(model.policy)
    frozen.set_training_mode(False)

    def snapshot(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            actions, _ = frozen.predict(obs, action_masks=masks, deterministic=False)
        return np.asarray(actions, dtype=np.int32)

    env.set_snapshots([snapshot])
    return model, c


def maskable_ppo(steps: int, players: int, seed: int = 0, **settings) -> dict:
    """MaskablePPO on ``MachuPicchuVecEnv``: env steps per second of ``learn`` (wall time).
    ``settings`` override ``TrainConfig``'s (tests use small rollouts)."""
    model, c = maskable_setup(players, seed, **settings)
    rollout = c.n_envs * c.n_steps
    model.learn(rollout)  # warm-up
    t = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    secs = time.perf_counter() - t
    done = int(model.num_timesteps) - rollout
    return {"steps": done, "seconds": round(secs, 2), "steps_per_second": round(done / secs, 1)}


def machu_train(steps: int, players: int, threads: int, precision: str, seed: int = 0,
                **settings) -> dict:
    """``train.selfplay.train`` (what ``machu train`` runs) with no evaluation on the way."""
    with tempfile.TemporaryDirectory() as tmp:
        def run(n: int, name: str) -> dict:
            c = TrainConfig(players=players, timesteps=n, seed=seed, out=f"{tmp}/{name}",
                            snapshot_every=NEVER, eval_every=NEVER, eval_games=1,
                            device="cpu", threads=threads, precision=precision,
                            **{"imitate": "", **settings})  # (steps/s of PPO alone)
            return train(c, verbose=False)

        c = TrainConfig(threads=threads, **settings)
        c.size_to(usable_cores(), None)
        run(c.n_envs * c.n_steps, "warmup")
        s = run(steps, "run")
    return {"steps": s["timesteps"], "seconds": s["train_seconds"],
            "steps_per_second": s["steps_per_second"], "update_seconds": s["update_seconds"],
            "rollout_policy_seconds": s["rollout_policy_seconds"],
            "simulator_seconds": s["simulator_seconds"]}


COMPILED_POOL = "random:0.1,builder:0.3,gold:0.6"  # opponents both RLlib and machu train meet
PREVIOUS = {"net_arch": "256,256", "n_epochs": 4}  # the recipe before 2026-11-26


def env_rate(opponents: str, players: int, num_envs: int = 128, seconds: float = 5.0) -> dict:
    """Learner steps per second of the training env alone (``gym.make_vec``: ``LearnerBatch``
    inside; ``autoreset_speed.vector_steps``), random legal learner actions."""
    steps, secs = vector_steps(num_envs, seconds, None, players, opponents)
    return {"steps": steps, "seconds": round(secs, 2), "steps_per_second": round(steps / secs, 1),
            "opponents": opponents, "num_envs": num_envs}


def rllib_ppo(steps: int, players: int, seed: int = 0, **settings) -> dict:
    """RLlib's PPO on the batch engine (``machu_env.envs.rllib.vector_ppo_config``: one local env
    runner stepping ``n_envs`` games per call, the learner in the same process, as ``machu
    train``), the same network and PPO settings; env steps per second of ``train()``."""
    import os

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # a private instance for this run
    import ray

    from machu_env.envs.rllib import vector_ppo_config

    c = TrainConfig(players=players, **settings)
    c.size_to(usable_cores(), None)  # machu train's sizing on this machine's CPU
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algo = vector_ppo_config(
            num_players=players, opponents=COMPILED_POOL, num_env_runners=0,
            envs_per_runner=c.n_envs, layers=tuple(c.layers()), seed=seed,
            train_batch_size=c.n_envs * c.n_steps, minibatch_size=c.batch_size,
            num_epochs=c.n_epochs, lr=c.learning_rate).build_algo()
        algo.train()  # warm-up
        done, t = 0, time.perf_counter()
        while done < steps:
            r = algo.train()
            done += int(r["env_runners"]["num_env_steps_sampled"])
        secs = time.perf_counter() - t
        algo.stop()
    finally:
        ray.shutdown()
    return {"steps": done, "seconds": round(secs, 2), "steps_per_second": round(done / secs, 1),
            "pool": COMPILED_POOL}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=409_600, help="learner decisions per learner")
    p.add_argument("--players", type=int, default=2, choices=range(2, 6))
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    p.add_argument("--out", default="benchmarks/results", help="output folder")
    args = p.parse_args(argv)
    if args.steps < 1 or args.threads < 0:
        p.error("--steps must be >= 1 and --threads >= 0")
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    results = {"maskable_ppo": maskable_ppo(args.steps, args.players)}
    results["machu_train_fp32"] = machu_train(args.steps, args.players, args.threads, "fp32")
    if bf16_supported():
        results["machu_train_bf16"] = machu_train(args.steps, args.players, args.threads, "bf16")
    results["machu_train_previous"] = {
        **machu_train(args.steps, args.players, args.threads, "fp32", **PREVIOUS), **PREVIOUS}
    results["machu_train_two_networks"] = {
        **machu_train(args.steps, args.players, args.threads, "fp32", net_arch="256,256"),
        "net_arch": "256,256"}
    try:
        import ray.rllib  # noqa: F401

        results["machu_train_compiled_pool"] = {
            **machu_train(args.steps, args.players, args.threads, "fp32", pool=COMPILED_POOL),
            "pool": COMPILED_POOL}
        results["rllib_ppo_batch_engine"] = rllib_ppo(args.steps, args.players)
    except ImportError:
        print("(RLlib not installed: " + install_hint("rllib") + ")")
    if "rllib_ppo_batch_engine" in results:
        share = results["rllib_ppo_batch_engine"]["steps_per_second"] / \
            results["machu_train_compiled_pool"]["steps_per_second"]
        results["rllib_ppo_batch_engine"]["share_of_machu_train"] = round(share, 3)
        print(f"RLlib on the batch engine: {share:.0%} of machu train's env steps/s (same "
              "opponents, network and settings)")
    for name in ("machu_train_fp32", "machu_train_two_networks"):
        ratio = results[name]["steps_per_second"] / \
            results["machu_train_previous"]["steps_per_second"]
        results[name]["vs_previous"] = round(ratio, 2)
        print(f"{name}: {ratio:.2f}x the env steps/s of the recipe before (4 epochs)")
    for name, opponents in (("env_random", "random:1"), ("env_compiled_pool", COMPILED_POOL)):
        results[name] = env_rate(opponents, args.players)
    raw = results["env_random"]["steps_per_second"]
    results["env_compiled_pool"]["share_of_raw"] = round(
        results["env_compiled_pool"]["steps_per_second"] / raw, 3)
    base = results["maskable_ppo"]["steps_per_second"]
    print(f"{'learner':<20} {'env steps/s':>12} {'vs MaskablePPO':>15}")
    for name, r in results.items():
        r["speedup"] = round(r["steps_per_second"] / base, 2)
        print(f"{name:<20} {r['steps_per_second']:>12,.0f} {r['speedup']:>14.2f}x")
    report = {**describe(), "players": args.players, "results": results}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "train_speed.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
