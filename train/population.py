"""Population agents: several trained policies played as one agent, mixed by a Nash solver.

    machu population --members ppo-2p,policy:a.safetensors,policy:b.safetensors \\
        --players 2 --games 1000 --seed 0 --out pop.safetensors

Exploiters are specialists: each beats the policy it was trained against and loses to others,
so no single policy covers them all. A mixture over a population can, if its weights are a
Nash equilibrium of the population's empirical game (PSRO's meta-solver, Lanctot et al. 2017).

The empirical game: every member is played as its file says, member ``i`` at one seat against
copies of member ``j`` at every other seat, ``--games`` games per ordered pair, seats rotated
(``evaluate.game_outcomes``). ``W[i, j]`` is ``i``'s win share. With 2 players the payoff is
``A[i, j] = W[i, j] - W[j, i]``, a symmetric zero-sum game whose maximin mixture (a linear
program, solved with scipy's ``linprog``/HiGHS) is its Nash equilibrium. With 3-5 players the
payoff is ``A[i, j] = W[i, j] - 1/players`` (the share above break-even against a table of
``j``), and the mixture maximises the worst case over those tables: a conservative choice, not
an equilibrium of the whole n-player game (which has no such simple solution).

The output is a population agent file (``policy_file``: data only) holding the members with a
positive weight, and the matrix, names and value in its ``info``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from machu_env.checks import check_int

from .bank import PolicyBank
from .evaluate import game_outcomes

MAX_MEMBERS = 16  # n * (n - 1) pairings of --games games each


def members_of(names: list[str], trust_pickle: bool = False) -> list[tuple[str, Any, float]]:
    """(name, PolicyNet, temperature) of each named single policy; ValueError otherwise."""
    from machu_env.agents import make_agent

    if not 2 <= len(names) <= MAX_MEMBERS:
        raise ValueError(f"a population needs 2..{MAX_MEMBERS} members, got {len(names)}")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"members are named twice: {twice}")
    out = []
    for name in names:
        agent = make_agent(name, trust_pickle=trust_pickle)
        members = getattr(agent, "members", None)
        if not members or len(members) != 1:
            raise ValueError(f"member {name!r} must be one trained policy (ppo-2p, policy:<file>)"
                             f"{'' if not members else f', not a population of {len(members)}'}")
        net, temperature, _ = members[0]
        out.append((name, net, temperature))
    return out


def payoff_matrix(members: list[tuple[str, Any, float]], players: int, games: int,
                  seed: int = 0) -> np.ndarray:
    """``W[i, j]``: member ``i``'s win share against copies of member ``j`` (see the module);
    the diagonal is measured too (a member against itself)."""
    check_int("players", players, 2, 5)
    check_int("games", games, 1, 1_000_000)
    n = len(members)
    W = np.zeros((n, n))
    for i, (_, net_i, t_i) in enumerate(members):
        row_bank = PolicyBank([net_i], temperatures=[t_i], seed=seed + 7919 * i)

        def predict(obs, masks, bank=row_bank):
            return bank(obs, masks, np.zeros(obs.shape[0], dtype=np.int64))

        for j, (_, net_j, t_j) in enumerate(members):
            bank = PolicyBank([net_j], temperatures=[t_j], seed=seed + 104_729 * j + i)
            won, _ = game_outcomes(predict, bank, games, players, seed=seed + 1000 * (n * i + j))
            W[i, j] = won.mean()
    return W


def payoffs(W: np.ndarray, players: int) -> np.ndarray:
    """The row player's payoff matrix of the empirical game (see the module)."""
    return W - W.T if players == 2 else W - 1.0 / players


def nash_mixture(A: np.ndarray) -> tuple[np.ndarray, float]:
    """(x, v): the mixture over the rows maximising the worst case ``min_j sum_i x_i A[i, j]``,
    and that value (the Nash equilibrium of a zero-sum game); HiGHS via scipy's ``linprog``."""
    from scipy.optimize import linprog

    n = A.shape[0]
    # variables (x_1..x_n, v): minimise -v  s.t.  v - sum_i x_i A[i, j] <= 0,  sum x = 1
    c = np.zeros(n + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A.T, np.ones((A.shape[1], 1))])
    result = linprog(c, A_ub=A_ub, b_ub=np.zeros(A.shape[1]),
                     A_eq=np.concatenate([np.ones(n), [0.0]])[None], b_eq=[1.0],
                     bounds=[(0, None)] * n + [(None, None)], method="highs")
    if not result.success:
        raise ValueError(f"the linear program found no mixture: {result.message}")
    x = np.clip(result.x[:n], 0, None)
    return x / x.sum(), float(result.x[-1])


def build(names: list[str], players: int, games: int, out: str | Path, seed: int = 0,
          min_weight: float = 1e-3, trust_pickle: bool = False,
          command: str = "") -> dict[str, Any]:
    """Measure the payoff matrix, solve for the mixture, write the population file; returns
    the summary (names, win shares, payoffs, weights, value, path)."""
    from machu_env.agents import policy_file

    members = members_of(names, trust_pickle)
    W = payoff_matrix(members, players, games, seed)
    A = payoffs(W, players)
    x, value = nash_mixture(A)
    x[x < min_weight] = 0.0
    x /= x.sum()
    kept = [k for k in range(len(members)) if x[k] > 0]
    summary = {"members": names, "players": players, "games_per_pair": games, "seed": seed,
               "win_share": np.round(W, 4).tolist(), "payoff": np.round(A, 4).tolist(),
               "weights": np.round(x, 6).tolist(), "value": round(value, 4),
               "command": command}
    entries = [(members[k][1].state_dict(), members[k][1].config, {"name": names[k]},
                members[k][2], float(x[k])) for k in kept]
    path = policy_file.save_population(out, entries, {**summary, "format_note":
                                       "weights: Nash mixture of the payoff matrix "
                                       "(machu_env.train.population)"})
    return {**summary, "out": str(path)}
