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

import hashlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

from machu_env.core import files
from machu_env.core.checks import check_int
from machu_env.train.ppo.bank import PolicyBank
from machu_env.train.ppo.evaluate import game_outcomes

MAX_MEMBERS = 16  # n * (n - 1) pairings of --games games each


def members_of(names: list[str], trust_pickle: bool = False,
               fewest: int = 2) -> list[tuple[str, Any, float]]:
    """(name, PolicyNet, temperature) of each named single policy; ValueError otherwise."""
    from machu_env.agents import make_agent

    if not fewest <= len(names) <= MAX_MEMBERS:
        raise ValueError(f"a population needs {fewest}..{MAX_MEMBERS} members, "
                         f"got {len(names)}")
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
    seen: dict[str, str] = {}
    for name, net, temperature in out:  # one policy under two names (an alias, a copy)
        digest = hashlib.sha256(repr(temperature).encode())
        for tensor in net.state_dict().values():
            digest.update(tensor.detach().cpu().numpy().tobytes())
        if (first := seen.setdefault(digest.hexdigest(), name)) != name:
            raise ValueError(f"members {first!r} and {name!r} are the same policy (the same "
                             "weights and play): name each policy once")
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
        predict = _greedy(net_i, t_i, seed + 7919 * i)  # one row player for the whole row
        for j in range(n):
            W[i, j] = _win_share(predict, members, i, j, players, games, seed,
                                 seed + 1000 * (n * i + j))
    return W


def _win_share(predict, members: list[tuple[str, Any, float]], i: int, j: int, players: int,
               games: int, seed: int, game_seed: int) -> float:
    """Member ``i`` (played by ``predict``)'s win share at one seat against copies of member
    ``j`` as its file says (seats rotated)."""
    _, net_j, t_j = members[j]
    won, _, _ = game_outcomes(predict,
                           PolicyBank([net_j], temperatures=[t_j], seed=seed + 104_729 * j + i),
                           games, players, seed=game_seed)
    return float(won.mean())


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
                                       "(machu_env.train.probe.population)"})
    return {**summary, "out": str(path)}


def _check_psro(names: list[str], iterations: int, steps: int, out: Path, folder: Path) -> None:
    """PSRO's sizes, and no output that is also a member; ValueError in words."""
    check_int("iterations", iterations, 1, MAX_MEMBERS - 1)
    check_int("steps", steps, 1, 10**10)
    if not 1 <= len(names) <= MAX_MEMBERS - iterations:
        raise ValueError(f"PSRO starts from 1..{MAX_MEMBERS - iterations} members with "
                         f"{iterations} iterations (at most {MAX_MEMBERS} in all), got "
                         f"{len(names)}")
    inputs = {Path(n.split(":", 1)[1]).resolve() for n in names if n.startswith("policy:")}
    for target in [out, *(folder / f"br_{k}.safetensors" for k in range(iterations))]:
        if target.resolve() in inputs:  # continuing from an earlier run's best response
            raise ValueError(f"{target} is also a member of the population: write the new "
                             "population elsewhere (another --out)")


def psro(names: list[str], players: int, games: int, out: str | Path, iterations: int,
         steps: int, seed: int = 0, min_weight: float = 1e-3, trust_pickle: bool = False,
         command: str = "", settings: Any = None, verbose: bool = True) -> dict[str, Any]:
    """PSRO (Lanctot et al. 2017) over a starting population: ``iterations`` times, solve the
    Nash mixture of the empirical game, train a best response to it (masked PPO for ``steps``
    steps, warm-started from the mixture's heaviest member), measure it against the mixture
    (``games`` games, seats rotated: PSRO's estimate of the mixture's exploitability), and add
    it to the population (its row and column of the payoff matrix measured). Each best response
    is kept as an agent file ``<out stem>_psro/br_<k>.safetensors``; the population file is
    rewritten after every iteration, so a stopped run leaves its last mixture."""
    import json

    from machu_env.agents import policy_file
    from machu_env.train.ppo.ppo import PPOSettings
    from machu_env.train.probe.exploit import train_against

    out = Path(out)
    folder = out.parent / f"{out.stem}_psro"
    _check_psro(names, iterations, steps, out, folder)
    members = members_of(names, trust_pickle, fewest=1)
    folder.mkdir(parents=True, exist_ok=True)
    W = np.zeros((0, 0))
    W = _extend(W, members, players, games, seed)
    history: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    for k in range(iterations + 1):
        x, value = nash_mixture(payoffs(W, players))
        x[x < min_weight] = 0.0
        x /= x.sum()
        kept = [i for i in range(len(members)) if x[i] > 0]
        summary = {"members": [m[0] for m in members], "players": players,
                   "games_per_pair": games, "seed": seed, "psro_iterations": k,
                   "psro_steps": steps, "win_share": np.round(W, 4).tolist(),
                   "payoff": np.round(payoffs(W, players), 4).tolist(),
                   "weights": np.round(x, 6).tolist(), "value": round(value, 4),
                   "history": history, "command": command}
        entries = [(members[i][1].state_dict(), members[i][1].config, {"name": members[i][0]},
                    members[i][2], float(x[i])) for i in kept]
        policy_file.save_population(out, entries, {**summary, "format_note":
                                    "weights: Nash mixture of the payoff matrix, PSRO "
                                    "(machu_env.train.probe.population)"})
        files.write_json(folder / "psro.json", summary)
        if k == iterations:
            break
        bank = PolicyBank([members[i][1] for i in kept],
                          temperatures=[members[i][2] for i in kept],
                          seed=seed + 31 * k, weights=[float(x[i]) for i in kept])
        top = max(kept, key=lambda i: x[i])
        run = train_against(bank, players, steps, seed=seed + 1 + k, warm_start=members[top][1],
                            settings=settings or PPOSettings(),
                            layers=tuple(members[top][1].config["pi"]
                                         or members[top][1].config["shared"]))
        net = run.model.net.cpu().eval()
        name = f"policy:{folder / f'br_{k}.safetensors'}"
        policy_file.save(folder / f"br_{k}.safetensors", net.state_dict(), net.config,
                         {"psro_iteration": k, "best_response_to": summary["weights"],
                          "players": players, "num_timesteps": run.model.num_timesteps})
        won, margin, _ = game_outcomes(_greedy(net), bank, games, players,
                                    seed=seed + 500_000 + k)
        lo, hi = _wilson(won)
        history.append({"iteration": k, "mixture": {members[i][0]: round(float(x[i]), 6)
                                                    for i in kept},
                        "warm_start": members[top][0], "member": name,
                        "br_win_share": round(float(won.mean()), 4), "ci95": [lo, hi],
                        "br_margin": round(float(margin.mean()), 2),
                        "train_seconds": round(run.seconds, 1)})
        if verbose:
            print(json.dumps(history[-1]), file=sys.stderr, flush=True)
        members.append((name, net, 0.0))
        W = _extend(W, members, players, games, seed)
    return {**summary, "out": str(out)}


def _greedy(net, temperature: float = 0.0, seed: int = 0):
    """``net`` as a batched predictor ``(obs, masks) -> actions`` at ``temperature``."""
    bank = PolicyBank([net], temperatures=[temperature], seed=seed)

    def predict(obs, masks):
        return bank(obs, masks, np.zeros(obs.shape[0], dtype=np.int64))

    return predict


def _wilson(won: np.ndarray) -> tuple[float, float]:
    from machu_env.agents.standings import wilson

    return wilson(int(won.sum()), int(won.size))


def _extend(W: np.ndarray, members: list[tuple[str, Any, float]], players: int, games: int,
            seed: int) -> np.ndarray:
    """``W`` grown to the members' count: only the new rows and columns are played (pair
    ``(i, j)`` seeded by ``seed`` and its indices alone, so the order of growth doesn't
    matter)."""
    n, old = len(members), W.shape[0]
    grown = np.zeros((n, n))
    grown[:old, :old] = W
    for i in range(n):
        for j in range(n):
            if i < old and j < old:
                continue
            _, net_i, t_i = members[i]
            grown[i, j] = _win_share(_greedy(net_i, t_i, seed + 7919 * i), members, i, j,
                                     players, games, seed,
                                     seed + 1000 * (MAX_MEMBERS * i + j))
    return grown
