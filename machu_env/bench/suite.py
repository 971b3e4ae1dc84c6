"""The throughput benchmark suite: one command, one run, everything side by side.

    machu bench [--quick] [--out runs/bench]

Decisions per second with uniformly random legal actions for (a) the compiled random playout of
the batch engine, (b) a Python loop over ``legal_mask``/``step``, (c) the PettingZoo AEC env,
(d) the Gymnasium env, (e) the SB3 VecEnv (and ``MachuPicchu-v0`` in SB3's ``DummyVecEnv``),
(f) the Gymnasium VectorEnv, (g) the OpenSpiel game (and its ``clone``), (h) RLlib's env runner
on the batch engine;
peers played the same way: PettingZoo's ``connect_four_v3``, ``chess_v6``, ``texas_holdem_v4``
and OpenSpiel (``connect_four``, ``chess``, ``leduc_poker``) when installed (the ``bench`` extra).
Plus scaling with ``num_envs`` and with threads, cold/warm compile time and memory per game.
Writes a table to stdout, ``results.json`` and ``scaling.png``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import time
from pathlib import Path

import numba
import numpy as np

from machu_env.bench.timing import compile_times, game_play_rate
from machu_env.core import files

PLAYERS = 3


def _timed(fn, min_seconds: float) -> float:
    """Run ``fn() -> decisions`` until ``min_seconds`` have passed; decisions per second."""
    done, t0 = 0, time.perf_counter()
    while True:
        done += fn()
        dt = time.perf_counter() - t0
        if dt >= min_seconds:
            return done / dt


def compiled_playout(num_envs: int, secs: float) -> float:
    from machu_env.envs.batch_engine import BatchEngine

    be = BatchEngine(num_envs, PLAYERS, seed=0)
    be.random_playout(num_envs * 20)  # warm-up
    per_call = max(200_000, num_envs * 50)
    return _timed(lambda: be.random_playout(per_call), secs)


def python_batch_loop(num_envs: int, secs: float) -> float:
    from machu_env.envs.batch_engine import BatchEngine

    be = BatchEngine(num_envs, PLAYERS, seed=0)
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)

    def one() -> int:
        be.legal_mask()  # (N, A) bool, as an agent would read it
        pick = (rng.random(num_envs) * be.num_legal).astype(np.int64)
        be.step(be.legal_ids()[rows, pick])  # a uniform legal action per game
        return num_envs

    one()
    return _timed(one, secs)


def aec_loop(make_env, secs: float) -> float:
    env = make_env()
    rng = np.random.default_rng(0)
    state = {"seed": 0}

    def one_game() -> int:
        env.reset(seed=state["seed"])
        state["seed"] += 1
        k = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            k += 1
            del agent
        return k

    one_game()
    return _timed(one_game, secs)


def gym_loop(secs: float) -> float:
    from machu_env.envs.gym_env import MachuPicchuGymEnv

    env = MachuPicchuGymEnv(num_players=PLAYERS)
    rng = np.random.default_rng(0)
    state = {"seed": 0}

    def one_game() -> int:
        env.reset(seed=state["seed"])
        state["seed"] += 1
        over = False
        while not over:
            _, _, over, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        return len(env.game.history)  # every decision: learner and opponents

    return _timed(one_game, secs)


def vecenv_loop(venv, secs: float, masks) -> float:
    """Learner steps per second of an SB3 VecEnv (random legal learner actions)."""
    rng = np.random.default_rng(0)
    venv.reset()
    n = venv.num_envs

    def one() -> int:
        mask = masks(venv)
        cum = mask.cumsum(axis=1)
        pick = (rng.random(n) * cum[:, -1]).astype(np.int64)
        venv.step((cum > pick[:, None]).argmax(axis=1))
        return n

    one()
    return _timed(one, secs)


def vector_loop(secs: float, num_envs: int = 4096) -> float:
    """Learner steps per second of the Gymnasium VectorEnv (``gym.make_vec``): random legal
    learner actions from its compiled sampler, random opponents inside the batch."""
    import gymnasium as gym

    import machu_env  # noqa: F401 (registers MachuPicchu-v0)

    envs = gym.make_vec("MachuPicchu-v0", num_envs=num_envs, num_players=PLAYERS,
                        opponents="random:1")
    envs.reset(seed=0)

    def one() -> int:
        envs.step(envs.random_actions())
        return num_envs

    one()
    return _timed(one, secs)


def rllib_runner_loop(secs: float, num_envs: int = 4096) -> float:
    """Env steps per second of RLlib's own ``SingleAgentEnvRunner`` on the batch engine
    (``machu_env.envs.rllib.vector_ppo_config``), random legal actions: RLlib's per-step cost on top
    of the VectorEnv (its episodes are Python objects, one step at a time)."""
    import os

    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from machu_env.envs.rllib import vector_ppo_config

    runner = SingleAgentEnvRunner(config=vector_ppo_config(
        num_players=PLAYERS, opponents="random:1", envs_per_runner=num_envs))
    runner.sample(num_timesteps=2 * num_envs, random_actions=True)

    def chunk() -> int:
        episodes = runner.sample(num_timesteps=4 * num_envs, random_actions=True)
        return sum(len(e) for e in episodes)

    return _timed(chunk, secs)


def openspiel_loop(name: str, secs: float, params: dict | None = None) -> float:
    import pyspiel

    if name == "python_machu_picchu":
        import machu_env.envs.openspiel  # noqa: F401 (registers the game)
    game = pyspiel.load_game(name, params or {})
    rnd = random.Random(0)  # as game_play_rate draws for Game.play

    def one_game() -> int:
        state = game.new_initial_state()
        k = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rnd.choices(outcomes, probs)[0])
            else:
                state.apply_action(rnd.choice(state.legal_actions()))
                k += 1
        return k

    one_game()
    return _timed(one_game, secs)


def openspiel_clones(secs: float) -> float:
    """Clones per second of a ``python_machu_picchu`` state 200 moves in (the deal included)."""
    import pyspiel

    import machu_env.envs.openspiel  # noqa: F401 (registers the game)

    state = pyspiel.load_game("python_machu_picchu", {"players": PLAYERS}).new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node() or len(state.history()) < 200 and not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])

    def hundred() -> int:
        for _ in range(100):
            state.clone()
        return 100

    return _timed(hundred, secs)


def _optional_rows(add, secs: float) -> None:
    """The rows that need an extra (SB3, RLlib, OpenSpiel) and the peers' games."""
    import machu_env

    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from machu_env.envs.sb3 import MachuPicchuVecEnv

        vec = MachuPicchuVecEnv(4096, PLAYERS, seed=0)
        add("(e) SB3 VecEnv (batch engine), N=4096", vecenv_loop(
            vec, secs, lambda v: v.action_masks()), "learner steps")
        dummy = DummyVecEnv([lambda: machu_env.MachuPicchuGymEnv(PLAYERS)] * 64)
        add("    MachuPicchu-v0 in DummyVecEnv, N=64", vecenv_loop(
            dummy, secs, lambda v: np.stack(v.env_method("action_masks"))), "learner steps")
    except ImportError:
        add("(e) SB3 VecEnv", None, "needs the train extra")
    try:
        from pettingzoo.classic import chess_v6, connect_four_v3, texas_holdem_v4

        add("peer: PettingZoo connect_four_v3", aec_loop(connect_four_v3.env, secs))
        add("peer: PettingZoo chess_v6", aec_loop(chess_v6.env, secs))
        add("peer: PettingZoo texas_holdem_v4", aec_loop(texas_holdem_v4.env, secs))
    except ImportError:
        add("peer: PettingZoo classic", None, "pip install 'pettingzoo[classic]'")
    try:
        add("(h) RLlib env runner on the batch engine, N=4096", rllib_runner_loop(secs),
            "learner steps, RLlib's SingleAgentEnvRunner")
    except ImportError:
        add("(h) RLlib env runner", None, "needs the rllib extra")
    try:
        import pyspiel  # noqa: F401

        add("(g) OpenSpiel python_machu_picchu", openspiel_loop(
            "python_machu_picchu", secs, {"players": PLAYERS}), "Python loop, as the peers")
        add("    OpenSpiel state.clone()", openspiel_clones(secs), "clones/s")
    except ImportError:
        add("(g) OpenSpiel", None, "needs the openspiel extra")
    try:
        import pyspiel  # noqa: F401

        for name in ("connect_four", "chess", "leduc_poker"):
            add(f"peer: OpenSpiel {name} (Python loop)", openspiel_loop(name, secs))
    except ImportError:
        add("peer: OpenSpiel", None, "pip install open_spiel")


def _scaling(secs: float, quick: bool, threads: int) -> dict:
    """Decisions/s of the compiled playout and the Python loop over games by batch size and
    numba threads."""
    sizes = [1, 16, 256, 4096] if quick else [1, 4, 16, 64, 256, 1024, 4096, 16384]
    thread_counts = sorted({1, threads})
    scaling: dict = {}
    print("scaling (decisions/s): num_envs x threads, compiled playout | Python loop")
    for t in thread_counts:
        numba.set_num_threads(t)
        for n in sizes:
            c, p = compiled_playout(n, secs / 2), python_batch_loop(n, secs / 2)
            scaling[f"{t}:{n}"] = {"threads": t, "num_envs": n, "compiled": c,
                                   "python_loop": p}
            print(f"  threads {t}  N={n:6d}  {c:14,.0f} | {p:14,.0f}", flush=True)
    numba.set_num_threads(threads)
    return scaling


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="shorter timings, fewer points")
    ap.add_argument("--out", type=Path, default=Path("runs") / "bench",
                    help="folder for results.json and scaling.png (default: runs/bench)")
    args = ap.parse_args(argv)
    secs = 0.5 if args.quick else 2.0
    threads = numba.config.NUMBA_NUM_THREADS
    rows: list[tuple[str, float | None, str]] = []
    res: dict = {"date": datetime.date.today().isoformat(),
                 "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                            f"{platform.system()} {platform.release()}",
                 "python": platform.python_version(), "numba": numba.__version__,
                 "numba_threads": threads, "players": PLAYERS, "rows": {}}

    def add(name: str, value: float | None, note: str = "") -> None:
        rows.append((name, value, note))
        res["rows"][name] = {"decisions_per_s": value, "note": note}
        shown = f"{value:14,.0f}" if value is not None else "  (not installed)"
        print(f"{name:48s}{shown}  {note}", flush=True)

    print(f"machu-env throughput, {res['machine']}, Python {res['python']}, numba "
          f"{res['numba']} ({threads} threads), {PLAYERS}-player games, random legal actions")
    print("timing the compile: the engine compiled from an empty cache folder, then loaded from "
          "it (about a minute on a 2-core machine)...", flush=True)
    cold, warm = compile_times()
    res["compile_cold_s"], res["compile_warm_s"] = cold, warm
    print(f"compile + first game: cold cache {cold:.1f} s, warm cache {warm:.2f} s")
    from machu_env.envs.batch_engine import BatchEngine

    be = BatchEngine(4, PLAYERS)
    res["state_bytes_per_game"] = be.state_bytes_per_game
    res["batch_bytes_per_game"] = int((be.states.nbytes + be._bufs.nbytes + be._counts.nbytes
                                       + be._rngs.nbytes + be._mask.nbytes) / 4)
    print(f"memory per game: state {res['state_bytes_per_game']} B; with the legal-action "
          f"list, mask and generator {res['batch_bytes_per_game']} B")
    print(f"{'':48s}{'decisions/s':>14s}")
    add("(a) compiled random playout, N=4096", compiled_playout(4096, secs))
    add("(b) Python loop legal_mask/step, N=4096", python_batch_loop(4096, secs))
    import machu_env

    add("(c) PettingZoo AEC env", aec_loop(lambda: machu_env.env(num_players=PLAYERS), secs))
    add("(d) Gymnasium env", gym_loop(secs), "all seats' decisions")
    add("    Game.play (scripting API)", game_play_rate(int(20_000 * secs)))
    add("(f) Gymnasium VectorEnv (gym.make_vec), N=4096", vector_loop(secs), "learner steps")
    _optional_rows(add, secs)
    ratio = res["rows"]["(a) compiled random playout, N=4096"]["decisions_per_s"] / \
        res["rows"]["(c) PettingZoo AEC env"]["decisions_per_s"]
    res["compiled_over_aec"] = ratio
    print(f"compiled / AEC env: {ratio:,.0f}x")

    res["scaling"] = _scaling(secs, args.quick, threads)

    args.out.mkdir(parents=True, exist_ok=True)
    files.write_json(args.out / "results.json", res)
    _plot(res, args.out / "scaling.png")
    for line in beside_the_docs(res):
        print(line)
    print(f"wrote {args.out / 'results.json'} and {args.out / 'scaling.png'}")


REFERENCE = Path(__file__).resolve().parent / "reference.json"  # the docs' table
COMPARED = ("(a) compiled random playout, N=4096", "(c) PettingZoo AEC env",
            "(f) Gymnasium VectorEnv (gym.make_vec), N=4096")


def beside_the_docs(res: dict, reference: Path = REFERENCE) -> list[str]:
    """This machine's headline rows beside the figures the docs show (the reference results
    file's machine and date), as ratios; nothing where that file is not at hand."""
    try:
        ref = files.read_json(reference, limit=4_000_000)
    except (OSError, ValueError):
        return []
    lines = [f"beside the docs' figures ({ref.get('machine', '?')}, {ref.get('date', '?')}):"]
    for name in COMPARED:
        mine = (res["rows"].get(name) or {}).get("decisions_per_s")
        theirs = (ref.get("rows", {}).get(name) or {}).get("decisions_per_s")
        if mine and theirs:
            lines.append(f"  {name}: {mine:,.0f} here, {theirs:,.0f} there "
                         f"({mine / theirs:.2f}x)")
    return lines if len(lines) > 1 else []


def _plot(res: dict, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no plot)")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for t in sorted({v["threads"] for v in res["scaling"].values()}):
        pts = sorted((v["num_envs"], v["compiled"], v["python_loop"])
                     for v in res["scaling"].values() if v["threads"] == t)
        n, c, p = zip(*pts, strict=True)
        ax.plot(n, c, "o-", label=f"compiled random playout, {t} thread(s)")
        ax.plot(n, p, "s--", label=f"Python loop legal_mask/step, {t} thread(s)")
    aec = res["rows"]["(c) PettingZoo AEC env"]["decisions_per_s"]
    ax.axhline(aec, color="grey", linestyle=":", label="PettingZoo AEC env")
    ax.set(xscale="log", yscale="log", xlabel="num_envs (games in the batch)",
           ylabel="decisions per second",
           title=f"machu-env batch engine scaling\n{res['machine']}, {res['date']}")
    ax.title.set_fontsize(10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
