"""Train MaskablePPO on ``MachuPicchu-v0`` against random opponents, save it, and report its
win rate against random players before and after training.

    python examples/ppo_vs_random.py --players 2 --timesteps 200000 --out runs/ppo_vs_random

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib). The minimal complete loop on
the Gymnasium env; the self-play pipeline with an opponent pool is ``machu train``
(``selfplay.py``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from machu_env.core import files


def win_rate(model, num_players: int, games: int, seed: int) -> dict:
    """Play ``games`` episodes of the learner (``model``, or uniformly random legal actions
    when None) against random opponents; a shared win counts as a win."""
    from machu_env.envs.gym_env import MachuPicchuGymEnv

    env = MachuPicchuGymEnv(num_players=num_players)
    rng = np.random.default_rng(seed)
    wins = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        while not done:
            mask = env.action_masks()
            if model is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += env.game.scores()[env.seat]["winner"]
    p = wins / games
    half = 1.96 * (p * (1 - p) / games) ** 0.5
    return {"games": games, "win_rate": p, "ci95": [max(0.0, p - half), min(1.0, p + half)]}


def _every(seconds: float, say):
    """An SB3 callback: ``say(steps)`` every ``seconds`` of training (no silent minute)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Every(BaseCallback):
        def _on_training_start(self) -> None:
            self.last = time.perf_counter()

        def _on_step(self) -> bool:
            if time.perf_counter() - self.last >= seconds:
                self.last = time.perf_counter()
                say(self.num_timesteps)
            return True

    return Every()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=2, choices=range(2, 6))
    ap.add_argument("--timesteps", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-envs", type=int, default=8, help="parallel envs (DummyVecEnv)")
    ap.add_argument("--eval-games", type=int, default=500)
    ap.add_argument("--out", type=Path, default=Path("runs/ppo_vs_random"))
    args = ap.parse_args()

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from machu_env.agents.policy_file import save_sb3_policy
    from machu_env.envs.gym_env import MachuPicchuGymEnv

    venv = DummyVecEnv([lambda: MachuPicchuGymEnv(num_players=args.players)] * args.n_envs)
    venv.seed(args.seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=512, batch_size=512, learning_rate=3e-4,
                        ent_coef=0.01, gamma=0.995, seed=args.seed, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": [256, 256]})
    eval_seed = 10_000_000
    print(f"playing {args.eval_games:,} games against random players, before training (a "
          "random agent, then the untrained network)...", flush=True)
    results = {"players": args.players, "timesteps": args.timesteps, "seed": args.seed,
               "random_agent": win_rate(None, args.players, args.eval_games, eval_seed),
               "before": win_rate(model, args.players, args.eval_games, eval_seed)}
    print(f"before training: {results['before']['win_rate']:.1%} wins vs random "
          f"(uniform random agent: {results['random_agent']['win_rate']:.1%})")
    t0 = time.perf_counter()
    print(f"training {args.timesteps:,} steps (MaskablePPO, {args.n_envs} envs)...", flush=True)
    model.learn(total_timesteps=args.timesteps, progress_bar=False,
                callback=_every(10.0, lambda n: print(
                    f"  {n:,} / {args.timesteps:,} steps ({time.perf_counter() - t0:.0f} s)",
                    flush=True)))
    results["train_seconds"] = time.perf_counter() - t0
    results["steps_per_second"] = args.timesteps / results["train_seconds"]
    print(f"playing {args.eval_games:,} games against random players, after training...",
          flush=True)
    results["after"] = win_rate(model, args.players, args.eval_games, eval_seed)
    args.out.mkdir(parents=True, exist_ok=True)
    save_sb3_policy(args.out / "model.safetensors", model.policy,
                    {"players": args.players, "num_timesteps": args.timesteps,
                     "trained": "ppo_vs_random", "seed": args.seed})
    files.write_json(args.out / "results.json", results)
    print(f"trained {args.timesteps:,} steps in {results['train_seconds']:.0f} s "
          f"({results['steps_per_second']:.0f} steps/s)")
    a = results["after"]
    print(f"after training: {a['win_rate']:.1%} wins vs random over {a['games']} games "
          f"(95% CI {a['ci95'][0]:.1%}-{a['ci95'][1]:.1%}); saved to {args.out}")


if __name__ == "__main__":
    main()
