"""Masked PPO in one file, on the Gymnasium VectorEnv (``gym.make_vec("MachuPicchu-v0")``).

    python examples/ppo_vector.py --num-envs 128 --total-steps 10000000

A CleanRL-style script: plain torch, no project trainer, everything in this file. It shows how to
train on the vector env: the legal actions come in ``infos["action_mask"]``, illegal logits are set
to a large negative number before sampling, and games that end are restarted in the same step
(``autoreset_mode="same_step"``, asked for here: the env's default is Gymnasium's next-step
autoreset, whose extra step per game a PPO loop must mask out): the reward of a step belongs to the
game that was in the slot, and the returns are cut there. It trains against ``--opponents``
(random, builder, gold and frozen copies of itself, as ``machu train``: against gold and builder
alone a new policy hardly ever wins and learned nothing here in 6M steps); every ``--eval-every``
steps it plays ``--eval-games`` games against ``--eval-opponents`` (gold) with its most probable
legal action and prints the win share; it saves the policy as an agent file (``--save``), playable
as ``policy:<file>``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import machu_env  # noqa: F401  (registers MachuPicchu-v0 and its vector entry point)

ILLEGAL = -1e8


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--opponents", default="random:0.05,builder:0.25,gold:0.45,self:0.25",
                   help="the vector env's opponent pool while training (self: frozen copies "
                        "of the policy, see --snapshot-every)")
    p.add_argument("--eval-opponents", default="gold:1",
                   help="the opponents of the evaluation games")
    p.add_argument("--max-learner-steps", type=int, default=1000,
                   help="a game still running after this many of the learner's decisions "
                        "is cut (nothing in the rules forces a player to stay)")
    p.add_argument("--cut-reward", type=float, default=0.0,
                   help="the reward of a game cut at --max-learner-steps (-1: as a loss)")
    p.add_argument("--snapshot-every", type=int, default=1_000_000,
                   help="self-play: a frozen copy of the initial policy, then every this many "
                        "steps one of the current policy, join the opponents as self (the "
                        "newest 4 kept; 0: none)")
    p.add_argument("--total-steps", type=int, default=2_000_000)
    p.add_argument("--rollout", type=int, default=128, help="steps per game per update")
    p.add_argument("--minibatch", type=int, default=4096)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--lam", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--eval-every", type=int, default=500_000)
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--save", default="", help="write the policy as an agent file here")
    args = p.parse_args(argv)
    if args.num_envs * args.rollout % args.minibatch:
        p.error("--minibatch must divide --num-envs x --rollout")
    return args


class ActorCritic(nn.Module):
    """Separate policy and value MLPs (tanh), named as machu-env agent files name them."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()

        def mlp(gain_out: float, out: int) -> tuple[nn.Sequential, nn.Linear]:
            body = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                 nn.Linear(hidden, hidden), nn.Tanh())
            for layer in body:
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, np.sqrt(2))
                    nn.init.zeros_(layer.bias)
            head = nn.Linear(hidden, out)
            nn.init.orthogonal_(head.weight, gain_out)
            nn.init.zeros_(head.bias)
            return body, head

        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net, self.action_net = mlp(0.01, num_actions)
        self.mlp_extractor.value_net, self.value_net = mlp(1.0, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor):
        logits = self.action_net(self.mlp_extractor.policy_net(obs))
        value = self.value_net(self.mlp_extractor.value_net(obs))[:, 0]
        return torch.where(mask, logits, torch.tensor(ILLEGAL)), value


def _mask(infos: dict) -> torch.Tensor:
    """The legal actions (the env's int8 mask) as a bool tensor."""
    return torch.as_tensor(infos["action_mask"]).bool()


def evaluate(net: ActorCritic, args: argparse.Namespace, seed: int) -> float:
    """Win share of the greedy policy over ``--eval-games`` games, each played once."""
    envs = gym.make_vec("MachuPicchu-v0", num_envs=args.eval_games, autoreset_mode="same_step",
                        num_players=args.num_players, opponents=args.eval_opponents,
                        max_learner_steps=args.max_learner_steps)
    obs, infos = envs.reset(seed=seed)
    result = np.full(args.eval_games, -1)
    while (result < 0).any():
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(obs), _mask(infos))
        obs, _, terminated, truncated, infos = envs.step(logits.argmax(1).numpy())
        first = (terminated | truncated) & (result < 0)
        if first.any():
            result[first] = infos["final_info"]["won"][first] & terminated[first]
    return float(result.mean())


def snapshot(net: ActorCritic, gen: torch.Generator):
    """A frozen copy of ``net`` as a batched opponent policy ``(obs, masks) -> actions``
    (sampling its masked distribution)."""
    import copy

    frozen = copy.deepcopy(net).eval()

    def policy(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = frozen(torch.as_tensor(obs), torch.as_tensor(masks))
            return torch.distributions.Categorical(logits=logits).sample().numpy()
    return policy


def train(args: argparse.Namespace) -> dict:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    envs = gym.make_vec("MachuPicchu-v0", num_envs=args.num_envs, autoreset_mode="same_step",
                        num_players=args.num_players, opponents=args.opponents,
                        max_learner_steps=args.max_learner_steps)
    N, T = args.num_envs, args.rollout
    obs_size = int(envs.single_observation_space.shape[0])
    num_actions = int(envs.single_action_space.n)
    net = ActorCritic(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    gen = torch.Generator().manual_seed(args.seed)
    obs_buf = torch.zeros((T, N, obs_size))
    mask_buf = torch.zeros((T, N, num_actions), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, val_buf = torch.zeros((T, N)), torch.zeros((T, N))
    rew_buf, done_buf = torch.zeros((T, N)), torch.zeros((T, N))

    obs, infos = envs.reset(seed=args.seed)
    obs, mask = torch.as_tensor(obs), _mask(infos)
    steps, start, next_eval, history = 0, time.perf_counter(), args.eval_every, []
    next_snapshot, frozen = args.snapshot_every, []
    if args.snapshot_every:  # the first opponent of self-play: the initial policy
        frozen = [snapshot(net, gen)]
        envs.set_opponent_policies(frozen)
    while steps < args.total_steps:
        for t in range(T):
            with torch.no_grad():
                logits, value = net(obs, mask)
            gumbel = -torch.log(-torch.log(torch.rand(logits.shape, generator=gen)
                                           .clamp_(1e-20, 1.0)))
            action = (logits + gumbel).argmax(1)
            obs_buf[t], mask_buf[t], act_buf[t], val_buf[t] = obs, mask, action, value
            logp_buf[t] = torch.log_softmax(logits, 1).gather(1, action[:, None])[:, 0]
            next_obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            # a cut game: --cut-reward (0, as the env's truncation; -1 to count it lost)
            rew_buf[t] = torch.as_tensor(np.where(truncated, args.cut_reward, reward))
            done_buf[t] = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            obs, mask = torch.as_tensor(next_obs), _mask(infos)
        steps += N * T
        with torch.no_grad():
            _, last_value = net(obs, mask)
        advantages = torch.zeros((T, N))
        running = torch.zeros(N)
        for t in reversed(range(T)):
            next_value = last_value if t == T - 1 else val_buf[t + 1]
            live = 1.0 - done_buf[t]
            delta = rew_buf[t] + args.gamma * next_value * live - val_buf[t]
            running = delta + args.gamma * args.lam * live * running
            advantages[t] = running
        returns = advantages + val_buf
        b_obs, b_mask = obs_buf.reshape(N * T, -1), mask_buf.reshape(N * T, -1)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.epochs):
            for idx in torch.randperm(N * T, generator=gen).split(args.minibatch):
                logits, value = net(b_obs[idx], b_mask[idx])
                logp_all = torch.log_softmax(logits, 1)
                ratio = torch.exp(logp_all.gather(1, b_act[idx, None])[:, 0] - b_logp[idx])
                adv = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                policy_loss = -torch.min(adv * ratio, adv * ratio.clamp(1 - args.clip,
                                                                        1 + args.clip)).mean()
                entropy = -(logp_all.exp() * logp_all).sum(1).mean()
                loss = (policy_loss + args.vf_coef * ((value - b_ret[idx]) ** 2).mean()
                        - args.ent_coef * entropy)
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                optimizer.step()
        if args.snapshot_every and steps >= next_snapshot:  # self-play: freeze a copy
            next_snapshot += args.snapshot_every
            frozen = [*frozen, snapshot(net, gen)][-4:]
            envs.set_opponent_policies(frozen)
        if steps >= next_eval or steps >= args.total_steps:
            next_eval += args.eval_every
            share = evaluate(net, args, seed=10_000 + steps)
            seconds = time.perf_counter() - start
            history.append({"steps": steps, "win_share": share, "seconds": round(seconds, 1)})
            print(f"{steps:>10,} steps  {seconds:7.1f} s  win share vs {args.eval_opponents}: "
                  f"{share:.1%}", flush=True)
    if args.save:
        from machu_env.agents import policy_file

        config = {"obs_size": obs_size, "num_actions": num_actions, "pi": [args.hidden] * 2,
                  "vf": [args.hidden] * 2, "activation": "tanh"}
        policy_file.save(args.save, net.state_dict(), config,
                         {"trainer": "examples/ppo_vector.py", "steps": steps})
    return {"steps": steps, "seconds": round(time.perf_counter() - start, 1),
            "history": history}


if __name__ == "__main__":
    train(parse_args())
