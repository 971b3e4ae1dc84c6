"""Behaviour cloning from a ``machu dataset``: a policy that imitates ``ppo-2p``'s moves.

    machu dataset --agents ppo-2p --players 2 --games 2000 --out runs/bc_data --name ppo2p
    python examples/bc_from_dataset.py --data runs/bc_data --eval-games 1000

Plain torch, everything in this file. It reads the Minari datasets of every seat (Minari's own
``load_dataset``; the ``integrations`` extra), trains an MLP to predict the recorded action
from the observation by cross-entropy over the legal actions only (the mask of each step is in
``infos["action_mask"]``), then plays ``--eval-games`` 2-player games against ``gold`` on the
VectorEnv with its most probable legal action and prints the win share. ``--save`` writes the
clone as an agent file (``policy:<file>``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

ILLEGAL = -1e8


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, required=True, help="the folder machu dataset wrote")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--save", type=Path, default=None, help="write the clone as an agent file")
    return p.parse_args(argv)


def load(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every recorded decision of every seat: observations, masks (bool), actions."""
    import minari

    card = json.loads((folder / "dataset.json").read_text())
    os.environ["MINARI_DATASETS_PATH"] = card["minari_datasets_path"]
    obs, masks, actions = [], [], []
    for dataset_id in card["datasets"]:
        for ep in minari.load_dataset(dataset_id).iterate_episodes():
            t = len(ep.actions)
            obs.append(ep.observations[:t])
            masks.append(ep.infos["action_mask"][:t].astype(bool))
            actions.append(ep.actions)
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(actions)


class Policy(nn.Module):
    """An MLP over the observation; illegal actions masked out of its logits. Its layers are
    named as the project's agent files name them (``mlp_extractor.policy_net``, ``action_net``),
    so ``--save`` writes a file ``policy:<file>`` plays."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.action_net = nn.Linear(hidden, num_actions)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = self.action_net(self.mlp_extractor.policy_net(obs))
        return torch.where(mask, logits, torch.tensor(ILLEGAL))


def train(args: argparse.Namespace, obs, masks, actions) -> Policy:
    torch.manual_seed(args.seed)
    net = Policy(obs.shape[1], masks.shape[1], args.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    o, m, a = torch.as_tensor(obs), torch.as_tensor(masks), torch.as_tensor(actions)
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        order = torch.randperm(len(a), generator=gen)
        total, right = 0.0, 0
        for k in range(0, len(a), args.batch_size):
            idx = order[k:k + args.batch_size]
            logits = net(o[idx], m[idx])
            loss = nn.functional.cross_entropy(logits, a[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
            right += int((logits.argmax(1) == a[idx]).sum())
        print(f"epoch {epoch + 1}: loss {total / len(a):.3f}, "
              f"agreement with the recorded moves {right / len(a):.1%}", flush=True)
    return net


def evaluate(net: Policy, games: int, seed: int) -> float:
    """Win share of the clone's most probable legal action against ``gold`` (2 players, the
    learner's seat drawn per game), each game played once."""
    import gymnasium as gym

    import machu_env  # noqa: F401  (registers MachuPicchu-v0)

    envs = gym.make_vec("MachuPicchu-v0", num_envs=games, num_players=2, opponents="gold:1")
    obs, infos = envs.reset(seed=seed)
    result = np.full(games, -1)
    while (result < 0).any():
        with torch.no_grad():
            logits = net(torch.as_tensor(obs), torch.as_tensor(infos["action_mask"]).bool())
        obs, _, terminated, truncated, infos = envs.step(logits.argmax(1).numpy())
        first = (terminated | truncated) & (result < 0)  # (next-step autoreset: count once)
        if first.any():  # (infos["won"] comes with the steps in which games end)
            result[first] = (infos["won"][first] & terminated[first]).astype(int)
    return float(result.mean())


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    obs, masks, actions = load(args.data)
    print(f"{len(actions):,} recorded decisions from {args.data}", flush=True)
    net = train(args, obs, masks, actions).eval()
    trained = time.perf_counter() - t0
    share = evaluate(net, args.eval_games, args.seed + 1)
    print(f"the clone wins {share:.1%} of {args.eval_games} games against gold "
          f"(trained in {trained:.0f} s)")
    if args.save:
        from machu_env.agents import policy_file

        config = {"obs_size": obs.shape[1], "num_actions": masks.shape[1],
                  "pi": [args.hidden, args.hidden], "vf": [args.hidden, args.hidden],
                  "activation": "tanh"}
        state = {k: v for k, v in net.state_dict().items()}
        state.update(_value_head(args.hidden, obs.shape[1]))
        policy_file.save(args.save, state, config, {"algorithm": "behaviour cloning "
                                                    "(examples/bc_from_dataset.py)"})
    return {"decisions": int(len(actions)), "win_share_vs_gold": share,
            "train_seconds": round(trained, 1)}


def _value_head(hidden: int, obs_size: int) -> dict[str, torch.Tensor]:
    """Zero value-network weights: an agent file holds them; cloning learns no value."""
    return {"mlp_extractor.value_net.0.weight": torch.zeros(hidden, obs_size),
            "mlp_extractor.value_net.0.bias": torch.zeros(hidden),
            "mlp_extractor.value_net.2.weight": torch.zeros(hidden, hidden),
            "mlp_extractor.value_net.2.bias": torch.zeros(hidden),
            "value_net.weight": torch.zeros(1, hidden), "value_net.bias": torch.zeros(1)}


if __name__ == "__main__":
    main()
