"""A head start for training from scratch: the policy imitates a compiled heuristic first.

``machu train --imitate gold`` plays ``--imitate-games`` games of the teacher at every seat on
the batch engine (``recorded.play_recorded``: the decider's observation, legal mask and the
teacher's action at every decision, at engine speed), then fits the fresh network to them for
``--imitate-epochs`` epochs: the masked cross-entropy of the teacher's action for the policy,
the game's result from the decider's seat (+1 won, -1 otherwise) for the value. PPO then starts
from a policy that plays about as well as its teacher instead of spending its first million
steps learning what a legal, sensible move is. Only the heuristics' games are used: no trained
agent is involved.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from machu_env.core.reward_modes import terminal_rewards
from machu_env.engine import pool as O

TEACHERS = tuple(O.COMPILED_NAMES)
MAX_GAMES = 100_000
# decisions a game of a compiled heuristic at every seat takes, on average, with a margin (gold:
# 183, 174, 166 and 186 with 2..5 players over 200 games each)
DECISIONS_PER_GAME = 220


def available_memory() -> int:
    """The memory the system can give without swapping (``MemAvailable``); where that cannot
    be read, half the machine's memory (8 GiB where neither can)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    from machu_env.train.ppo.ppo import memory_for_rollouts

    return memory_for_rollouts()


def imitation_bytes(games: int, obs_size: int) -> int:
    """About the most memory ``teacher_data`` holds for ``games`` games: each decision's
    observation, legal mask, action and result, twice while the chunks are joined."""
    from machu_env.rules.actions import NUM_ACTIONS

    return 2 * games * DECISIONS_PER_GAME * (4 * obs_size + NUM_ACTIONS + 8 + 4)


def check_memory(games: int, obs_size: int) -> None:
    """ValueError naming ``imitate_games`` when its decisions would not fit in the memory
    available now (with a quarter kept free), before any game is played."""
    need, room = imitation_bytes(games, obs_size), available_memory() * 3 // 4
    if need > room:
        most = max(1, room // imitation_bytes(1, obs_size))
        raise ValueError(f"imitate_games {games:,} needs about {need / 2**30:.1f} GiB for the "
                         f"teacher's decisions; {room / 2**30:.1f} GiB can be used here (three "
                         f"quarters of the memory available): at most {most:,} games")


def teacher_data(teacher: str, players: int, games: int, seed: int, obs_size: int):
    """(observations, masks, actions, results) of every decision of ``games`` games of
    ``teacher`` at every seat: float32, bool, int64, float32 (the decider's final reward)."""
    from machu_env.train.data.recorded import play_recorded

    check_memory(games, obs_size)
    obs, masks, actions, results = [], [], [], []
    for chunk in play_recorded([teacher], players, games, seed=seed):
        rows, acts, who = [], [], []
        for i, game in enumerate(chunk.games):
            n = int(chunk.lengths[i])
            rows.append(chunk.rows[i, :n])
            acts.append(chunk.actions[i, :n])
            reward = terminal_rewards(game.scores(), "win") if game.is_over else \
                [0.0] * players
            who.append(np.asarray(reward, np.float32)[chunk.seats[i, :n].astype(np.int64)])
        rows_ = np.concatenate(rows)
        obs.append(chunk.obs[rows_, :obs_size])
        masks.append(chunk.masks[rows_].astype(bool))
        actions.append(np.concatenate(acts).astype(np.int64))
        results.append(np.concatenate(who))
    return (np.concatenate(obs), np.concatenate(masks), np.concatenate(actions),
            np.concatenate(results))


def imitate(net, teacher: str, players: int, games: int, epochs: int, seed: int = 0,
            batch_size: int = 4096, learning_rate: float = 1e-3, device: Any = "cpu",
            autocast: Any = None, say: Any = None) -> dict[str, Any]:
    """Fit ``net`` (a ``PolicyNet``, in place) to ``teacher``'s decisions; returns what it did
    (decisions, the last epoch's policy loss and agreement with the teacher, seconds).
    ``say``: a callable given a line as the games are played and after each epoch."""
    import contextlib

    import torch

    from machu_env.train.ppo.ppo import masked_logits

    if teacher not in TEACHERS:
        raise ValueError(f"imitate must be one of {', '.join(TEACHERS)} (a compiled "
                         f"heuristic) or empty, got {teacher!r}")
    t0 = time.perf_counter()
    obs, masks, actions, results = teacher_data(teacher, players, games, seed,
                                                int(net.config["obs_size"]))
    played = time.perf_counter() - t0
    if say is not None:
        say(f"imitation: played {games:,} games of {teacher} ({len(actions):,} decisions, "
            f"{played:.0f} s); fitting {epochs} epochs")
    obs_t, masks_t = torch.from_numpy(obs), torch.from_numpy(masks)
    actions_t, results_t = torch.from_numpy(actions), torch.from_numpy(results)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5)
    generator = torch.Generator().manual_seed(seed)
    n = len(actions)
    loss_sum = agree = 0.0
    for epoch in range(epochs):
        order = torch.randperm(n, generator=generator)
        loss_sum = agree = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            x = obs_t[idx].to(device)
            with autocast() if autocast is not None else contextlib.nullcontext():
                logits, values = net(x)
            logits = masked_logits(logits.float(), masks_t[idx].to(device))
            target = actions_t[idx].to(device)
            policy_loss = torch.nn.functional.cross_entropy(logits, target)
            value_loss = torch.nn.functional.mse_loss(values.float()[:, 0],
                                                      results_t[idx].to(device))
            loss = policy_loss + 0.5 * value_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimizer.step()
            loss_sum += float(policy_loss.detach()) * len(idx)
            agree += float((logits.argmax(1) == target).float().sum())
        if say is not None:
            say(f"imitation: epoch {epoch + 1}/{epochs}, agreement with {teacher} "
                f"{agree / n:.1%} ({time.perf_counter() - t0:.0f} s)")
    return {"teacher": teacher, "games": games, "decisions": n, "epochs": epochs,
            "policy_loss": round(loss_sum / n, 4), "agreement": round(agree / n, 4),
            "play_seconds": round(played, 2),
            "seconds": round(time.perf_counter() - t0, 2)}


def head_start(net, config, device: Any, verbose: bool) -> dict[str, Any]:
    """``imitate`` with a run's settings (``TrainConfig``: ``imitate``, ``imitate_games``,
    ``imitate_epochs``, ``players``, ``seed``), saying what it did."""
    say = (lambda text: print(text, flush=True)) if verbose else None
    if say is not None:
        say(f"imitation: playing {config.imitate_games:,} games of {config.imitate} at every "
            f"seat, then fitting the new network to its decisions (about 20 s for 2,000 games "
            f"on 2 cores)")
    info = imitate(net, config.imitate, config.players, config.imitate_games,
                   config.imitate_epochs, seed=config.seed, device=device, say=say)
    if verbose:
        print(f"imitated {config.imitate}: {info['decisions']:,} decisions of "
              f"{config.imitate_games:,} games, agreement {info['agreement']:.1%} "
              f"({info['seconds']:.0f} s)", flush=True)
    return info
