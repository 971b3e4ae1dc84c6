"""The league's ratings table: the main agent against every pool member; and how often the
pool draws each member (prioritised fictitious self-play).

Each evaluation plays the main agent against each member (``games`` games, the member at every
other seat). The table lists each member's win share against main with its 95 % Wilson
interval and an OpenSkill (Plackett-Luce) rating fitted to those games, main included, so that
members that never met each other are still placed on one scale through main.
"""

from __future__ import annotations

import time
from typing import Any

from machu_env.agents import policy_file
from machu_env.agents.standings import wilson
from machu_env.core import files
from machu_env.train.ppo.bank import PolicyBank

PFSP_FLOOR = 0.02  # every member keeps at least this share of its group's draws (before norm)


def pfsp_weights(wins: list[float | None], exponent: float) -> list[float]:
    """AlphaStar's prioritised fictitious self-play, its "hard" weighting: each member is drawn
    in proportion to ``(1 - w) ** exponent``, ``w`` the learner's latest win share against it
    (a member not yet measured counts as even, 0.5), so that the members that beat the learner
    are met most; ``exponent`` 0 draws them equally. The weights sum to 1."""
    raw = [max((1.0 - (0.5 if w is None or w != w else w)) ** exponent, PFSP_FLOOR)
           for w in wins]
    total = sum(raw)
    return [r / total for r in raw] if total > 0 else [1.0 / len(wins)] * len(wins)


def evaluate_members(trainer, row: dict[str, Any]) -> None:
    """The main agent against every pool member (both deterministic, ``league_games`` games
    each): the win shares kept for the draws (``trainer.member_wins``), a ratings table
    (``league.json``) and the worst exploiter's row entry."""
    from machu_env.train.ppo.bank import PolicyBank
    from machu_env.train.ppo.evaluate import win_share

    c = trainer.config
    games = c.league_games or c.eval_games
    members = {name: row[f"win_vs_{name}"] for name in c.eval_names()}
    rivals = [(f"frozen:{k}", k, net) for k, net in enumerate(trainer.frozen)]
    for label, entries in (("snapshot", trainer.snapshots), ("exploiter", trainer.exploiters)):
        rivals += [(f"{label}:{step}", step, net) for step, net in entries]
    for name, step, net in rivals:
        bank = PolicyBank([net], deterministic=True, names=[name])
        members[name] = win_share(trainer.model.predict, bank, games, c.players,
                                  seed=7_000_003 + step)
    trainer.member_wins = members
    table = league_table(members, games, c.players)
    files.write_json(trainer.out / "league.json", {
        "timesteps": row["timesteps"], "games_per_member": games, "table": table})
    worst = min((v for k, v in members.items() if k.startswith(("exploiter", "frozen"))),
                default=None)
    row["win_vs_worst_exploiter"] = worst if worst is not None else float("nan")


def league_table(main_wins: dict[str, float], games: int, players: int) -> list[dict[str, Any]]:
    """Rows sorted by rating: ``main`` and every member, from main's win share per member."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in ["main", *main_wins]}
    for name, share in main_wins.items():
        won = round(share * games)
        for k in range(games):  # wins and losses interleaved evenly (the order matters)
            main_won = (k + 1) * won // games > k * won // games
            teams = [[ratings["main"]]] + [[ratings[name]] for _ in range(players - 1)]
            ranks = [1 if main_won else 2] + [2 if main_won else 1] * (players - 1)
            new = model.rate(teams, ranks=ranks)
            ratings["main"] = new[0][0]
            ratings[name] = new[1][0]  # (the copies at the other seats are one member)
    rows = []
    for name, r in ratings.items():
        row: dict[str, Any] = {"member": name, "mu": round(r.mu, 2), "sigma": round(r.sigma, 2),
                               "ordinal": round(r.ordinal(), 2)}
        if name != "main":
            share = main_wins[name]
            lo, hi = wilson(round(share * games), games)
            row.update(main_win_share=share, ci95=[round(lo, 4), round(hi, 4)])
        rows.append(row)
    return sorted(rows, key=lambda r: -r["ordinal"])


def train_exploiter(trainer) -> None:
    """League: train an exploiter against the trainer's frozen main agent (``exploiter_steps``
    steps, warm-started per ``exploiter_init``); it joins the pool, the oldest leaving beyond
    ``max_exploiters``."""
    from machu_env.train.probe.exploit import train_against

    c = trainer.config
    step = int(trainer.model.num_timesteps)
    t0 = time.perf_counter()
    main = trainer._frozen()
    last = c.exploiter_init == "last" and trainer.exploiters
    start = trainer.exploiters[-1][1] if last else main
    run = train_against(PolicyBank([main], deterministic=c.exploit_greedy,
                                   seed=c.seed + step, precision=c.precision, names=["main"]),
                        players=c.players, steps=c.exploiter_steps,
                        seed=c.seed + step + 1, warm_start=start,
                        settings=c.exploiter_settings(),
                        reward=c.reward, device=trainer.device)
    net = run.model.net.cpu().eval()
    trainer.exploiters.append((step, net))
    folder = trainer.out / "exploiters"
    info = {**trainer._info(), "exploiter_of": step, "exploiter_steps": c.exploiter_steps,
            "rollout_win_share": run.last_win_share}
    policy_file.save(folder / f"step_{step}{policy_file.SUFFIX}", net.state_dict(),
                     trainer.config_net, info)
    while len(trainer.exploiters) > c.max_exploiters:
        old, _ = trainer.exploiters.pop(0)
        files.remove(folder / f"step_{old}{policy_file.SUFFIX}")
    install_pool(trainer)
    trainer.exploiter_seconds += time.perf_counter() - t0
    if trainer.verbose:
        games = run.curve[-1]["rollout_games"] if run.curve else 0
        trainer.progress.say(f"{step:>12,} steps  exploiter trained ({c.exploiter_steps:,} "
                             f"steps): won {run.last_win_share:.1%} of the {games} games of "
                             "its last rollout")


def install_pool(trainer) -> None:
    """The trainer's snapshots, exploiters and ``frozen`` policies as one bank; exploiters and
    frozen policies share ``exploiter_share`` of the ``self`` weight (``pfsp_weights`` within
    each group)."""
    c = trainer.config
    others = [n for _, n in trainer.exploiters] + trainer.frozen
    nets = [n for _, n in trainer.snapshots] + others
    names = (["self"] * len(trainer.snapshots) + ["exploiter"] * len(trainer.exploiters)
             + ["frozen"] * len(trainer.frozen))
    labels = ([f"snapshot:{k}" for k, _ in trainer.snapshots]
              + [f"exploiter:{k}" for k, _ in trainer.exploiters]
              + [f"frozen:{k}" for k in range(len(trainer.frozen))])
    shares = [trainer.member_wins.get(label) for label in labels]
    cut, share = len(trainer.snapshots), c.exploiter_share if others else 0.0
    weights = ([(1 - share) * w for w in pfsp_weights(shares[:cut], c.pfsp)]
               + ([share * w for w in pfsp_weights(shares[cut:], c.pfsp)] if others else []))
    bank = PolicyBank(nets, seed=c.seed + int(trainer.model.num_timesteps) + 7,
                      precision=c.precision, names=names)
    trainer.env.set_snapshots(bank, weights=weights)
