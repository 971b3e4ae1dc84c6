"""Time to strength: how long ``machu train`` takes, from a cold start, to beat ``gold``.

    python benchmarks/time_to_strength.py [--setting NAME='FLAGS' ...] [--seeds 1,2,3]
        [--players 2] [--timesteps 4000000] [--eval-every 250000] [--eval-games 400]
        [--final-games 1000] [--out benchmarks/results] [--name FILE.json] [--peer SETTING]

Every setting trains from scratch (no agent file; the heuristics play in the pool) once per
seed, as a user runs it: ``machu train --players P --seed S --eval-opponents gold
--stop-at 0.95 ...FLAGS`` in a new process (start-up, numba's cached kernels and torch's first
calls included), the settings interleaved seed by seed so that a drifting machine treats them
alike. Each run evaluates against ``gold`` every ``--eval-every`` steps (``--eval-games``
games) and stops at the first evaluation of 95 % or more; its wall-clock to 90 % and to 95 % is
the time from the process's launch to the moment that evaluation was written (the evaluations'
own time included; numba's kernels are compiled by an unmeasured short run first, as after a
user's first run). The checkpoint that reached 95 % (or the last one) then plays
``--final-games`` more games against ``gold`` (seats rotated, fixed seed): the confirmed
figure. Per setting: the median and range over the seeds of both times, env steps/s and the
split of the training time (simulator, the learner's rollout policy, update, evaluation).

The default settings are today's ``machu train`` defaults (``defaults``) beside the recipe the
project used before them (``previous``: fresh weights with no imitation, 128 x 128 steps,
minibatch 4096, 4 epochs, two 256x256 MLPs, fp32, learning rate 3e-4). Writes
``time_to_strength.json`` (``time_to_strength_<P>p.json`` for other player counts) under
``--out``; measure on an idle machine.

The strength ladder (``--ladder --minutes M``): every run trains for ``M`` minutes, evaluating the
shipped agents too (``--eval-agents ladder``, ``machu_env.train.probe.ladder``), and the table gives
the wall-clock from launch to each rung (95 % against ``gold``, then 50 % against ``ppo-2p-v1``,
``ppo-2p``, ``ppo-2p-race``, ``best-2p``; for 3 players 90 % against two ``gold`` and a third
against two of each 3-player agent), the last rung reached replayed with ``--final-games`` games by
the run's agent (a recipe's ``OUT/agent.safetensors``: with ``"keep": "ladder"`` the checkpoint that
did best on the ladder, not the last one). A setting ``--recipe NAME`` runs that recipe (``machu
train --recipe``) with the same budget; the peer (MaskablePPO) trains for the same minutes and is
measured on the ladder at the end::

    python benchmarks/time_to_strength.py --ladder --minutes 60 --seeds 1 \
        --setting recipe='--recipe best-2p' --setting defaults= --peer defaults
"""

from __future__ import annotations

import argparse
import csv
import json
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from train_speed import maskable_setup

from machu_env.bench.machine import describe

PREVIOUS = ("--imitate '' --n-envs 128 --n-steps 128 --batch-size 4096 --n-epochs 4 "
            "--net-arch 256,256 --learning-rate 3e-4 --precision fp32 --threads 0")
DEFAULT_SETTINGS = {"previous": PREVIOUS, "defaults": ""}
MARKS = (0.90, 0.95)


def _rows(history: Path) -> list[dict[str, float]]:
    if not history.exists():
        return []
    try:
        with history.open(newline="") as f:
            return [{k: float(v) for k, v in r.items() if v not in (None, "")}
                    for r in csv.DictReader(f)]
    except (OSError, ValueError):  # being written: read again at the next poll
        return []


def _histories(folder: Path) -> list[dict[str, float]]:
    """Every evaluation row of a run, in order: its own history, or a recipe's phases' (each
    phase's steps counted on from the phases before)."""
    if (folder / "history.csv").exists() or not folder.is_dir():
        return _rows(folder / "history.csv")
    rows, base = [], 0
    for phase in sorted((p for p in folder.iterdir() if (p / "config.json").exists()),
                        key=lambda p: (p / "config.json").stat().st_mtime):
        own = _rows(phase / "history.csv")
        rows += [{**r, "timesteps": base + r["timesteps"]} for r in own]
        base += int(own[-1]["timesteps"]) if own else 0
    return rows


def _marks_of(row: dict[str, float], marks: dict, now: float, players: int,
              ladder: bool) -> None:
    """The marks a history row reaches first: win shares against gold (``MARKS``), and with
    ``ladder`` each rung of the strength ladder (``machu_env.train.probe.ladder``)."""
    goals = [(f"{m}", "gold", m) for m in MARKS]
    if ladder:
        from machu_env.train.probe.ladder import ladder as rungs

        goals += [(name, name, mark) for name, mark in rungs(players)]
    for key, name, mark in goals:
        if key not in marks and row.get(f"win_vs_{name}", 0.0) >= mark:
            marks[key] = {"seconds": round(now, 1), "timesteps": int(row["timesteps"])}


def run_once(flags: str, seed: int, players: int, timesteps: int, eval_every: int,
             eval_games: int, folder: Path, stop_at: float = 0.95, minutes: float = 0.0,
             ladder: bool = False) -> dict:
    """One training run in a new process; wall-clock from launch to each mark. Flags holding
    ``--recipe`` run that recipe (its own settings; ``minutes`` its budget)."""
    argv = [sys.executable, "-c", "import machu_launch; machu_launch.main()", "train",
            "--seed", str(seed), "--out", str(folder)]
    if "--recipe" in flags:
        argv += [*shlex.split(flags), *(["--minutes", str(minutes)] if minutes else [])]
    else:
        argv += ["--players", str(players), "--timesteps", str(timesteps), "--eval-every",
                 str(eval_every), "--eval-games", str(eval_games), "--eval-opponents", "gold",
                 "--stop-at", str(stop_at), *(["--minutes", str(minutes)] if minutes else []),
                 *(["--eval-agents", "ladder"] if ladder else []), *shlex.split(flags)]
    t0 = time.perf_counter()
    log = (folder.parent / f"{folder.name}.log").open("w")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, text=True)
    seen, marks = 0, {}
    while proc.poll() is None:
        time.sleep(0.25)
        rows = _histories(folder)
        for row in rows[seen:]:
            _marks_of(row, marks, time.perf_counter() - t0, players, ladder)
        seen = max(seen, len(rows))
    log.close()
    output = (folder.parent / f"{folder.name}.log").read_text()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"machu train failed ({proc.returncode}): {output[-2000:]}")
    rows = _histories(folder)
    for row in rows[seen:]:  # written in the last poll interval: the process's end bounds it
        _marks_of(row, marks, wall, players, ladder)
    phases = [folder]
    if (folder / "recipe.json").exists():  # a recipe: its phases' steps and seconds add up
        phases = [folder / name for name in json.loads((folder / "recipe.json").read_text())
                  ["done"]]
    summaries = [json.loads((f / "summary.json").read_text()) for f in phases]
    total = {k: round(sum(s[k] for s in summaries), 1)
             for k in ("train_seconds", "simulator_seconds", "rollout_policy_seconds",
                       "update_seconds", "eval_seconds")}
    steps = sum(s["timesteps"] for s in summaries)
    policy = agent_file(folder, phases[-1])
    return {"seed": seed, "wall_seconds": round(wall, 1), "marks": marks,
            "history": [{k: v for k, v in row.items() if k == "timesteps"
                         or k.startswith("win_vs_") or k.endswith("_seconds")} for row in rows],
            "policy": str(policy), "timesteps": steps,
            "steps_per_second": round(steps / max(total["train_seconds"], 1e-9), 1),
            **total, "torch_threads": summaries[-1]["torch_threads"]}


def agent_file(folder: Path, last_phase: Path) -> Path:
    """The agent a run hands its user: a recipe's ``OUT/agent.safetensors`` (its ``keep`` may
    pick an earlier checkpoint than the last policy), else the last phase's latest policy."""
    agent = folder / "agent.safetensors"
    return agent if agent.exists() else last_phase / "latest.safetensors"


def confirm(policy: Path, players: int, games: int, seed: int = 11,
            opponent: str = "gold") -> float:
    """The win share of an agent file against ``opponent`` (at every other seat) over
    ``games`` games (seats rotated)."""
    import numpy as np
    import torch

    from machu_env.agents import policy_file
    from machu_env.agents.masking import masked_argmax
    from machu_env.train.ppo.evaluate import game_outcomes

    tensors, config, _ = policy_file.parse(policy.read_bytes(), str(policy))
    net = policy_file.build_net(tensors, config)

    def predict(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = net(torch.as_tensor(obs[:, :config["obs_size"]]))[0]
        return masked_argmax(logits, torch.as_tensor(masks)).numpy()

    if opponent != "gold":
        from machu_env.train.probe.probe_opponent import opponent_for

        opponent = opponent_for(opponent, players, seed=seed)[1]
    won, _, _ = game_outcomes(predict, opponent, games, players, seed=seed)
    return round(float(won.mean()), 4)


def confirm_ladder(run: dict, players: int, games: int) -> dict | None:
    """The last rung of the ladder a run reached, replayed with ``games`` games."""
    from machu_env.train.probe.ladder import ladder

    top = [name for name, _ in ladder(players) if name in run["marks"]]
    if not top:
        return None
    return {"rung": top[-1], "games": games,
            "win_share": confirm(Path(run["policy"]), players, games, opponent=top[-1])}


def ladder_table(runs: dict[str, list[dict]], players: int, peer: dict | None) -> list[dict]:
    """A row per rung: each setting's median seconds to it (None where a seed never got
    there), and whether the peer reached it within its budget."""
    from machu_env.train.probe.ladder import ladder

    rows = []
    for name, mark in ladder(players):
        row = {"rung": name, "win_share": round(mark, 3)}
        for setting, rs in runs.items():
            row[setting] = _stats([r["marks"].get(name, {}).get("seconds") for r in rs])
        if peer is not None:
            row["maskable_ppo"] = peer.get("ladder", {}).get(name)
        rows.append(row)
    return rows


def maskable_ppo_for(seconds: float, players: int, seed: int, games: int,
                     ladder: bool = False) -> dict:
    """The peer a user would pick: sb3-contrib's MaskablePPO on ``MachuPicchuVecEnv`` (the default
    pool, one frozen copy of its initial policy as ``self``), ``machu train``'s network and
    PPO settings, trained for ``seconds`` of wall-clock (its set-up included); then its win
    share against ``gold`` over ``games`` games (argmax, seats rotated)."""
    import numpy as np
    from stable_baselines3.common.callbacks import BaseCallback

    from machu_env.train.ppo.evaluate import game_outcomes

    t0 = time.perf_counter()
    model, _ = maskable_setup(players, seed)

    class Deadline(BaseCallback):
        def _on_step(self) -> bool:
            return time.perf_counter() - t0 < seconds

    model.learn(10**9, callback=Deadline())
    trained = time.perf_counter() - t0

    def predict(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.policy.predict(obs[:, :377], action_masks=masks, deterministic=True)
        return np.asarray(actions, dtype=np.int32)

    won, _, _ = game_outcomes(predict, "gold", games, players, seed=11)
    result = {"seconds": round(trained, 1), "timesteps": int(model.num_timesteps),
              "win_vs_gold": round(float(won.mean()), 4), "games": games}
    if ladder:  # each rung at the end of the budget: reached (its win share) or not
        from machu_env.train.probe.ladder import ladder as rungs
        from machu_env.train.probe.probe_opponent import opponent_for

        result["ladder"] = {}
        for name, mark in rungs(players):
            rival = "gold" if name == "gold" else opponent_for(name, players, seed=11)[1]
            share = float(game_outcomes(predict, rival, games, players, seed=11)[0].mean())
            result["ladder"][name] = {"win_share": round(share, 4), "reached": share >= mark}
            if share < mark:
                break
    return result


def _stats(values: list[float | None]) -> dict:
    got = [v for v in values if v is not None]
    if len(got) < len(values):  # a seed that never got there: no median claimed
        return {"median": None, "range": [min(got), max(got)] if got else None,
                "reached": f"{len(got)}/{len(values)}"}
    return {"median": round(statistics.median(got), 1), "range": [min(got), max(got)],
            "reached": f"{len(got)}/{len(values)}"}


def summarise(runs: list[dict]) -> dict:
    out = {}
    for mark in MARKS:
        key = str(mark)
        out[f"seconds_to_{round(mark * 100)}"] = _stats(
            [r["marks"][key]["seconds"] if key in r["marks"] else None for r in runs])
        out[f"steps_to_{round(mark * 100)}"] = _stats(
            [r["marks"][key]["timesteps"] if key in r["marks"] else None for r in runs])
    out["steps_per_second"] = round(statistics.median(r["steps_per_second"] for r in runs))
    for part in ("simulator_seconds", "rollout_policy_seconds", "update_seconds",
                 "eval_seconds", "train_seconds", "wall_seconds"):
        out[part] = round(statistics.median(r[part] for r in runs), 1)
    out["confirmed_win_vs_gold"] = [r["confirmed_win_vs_gold"] for r in runs]
    return out


def result_seconds(runs: list[dict]) -> float | None:
    """The median seconds to 95 % of a setting's runs (None if a seed never got there)."""
    return _stats([r["marks"].get("0.95", {}).get("seconds") for r in runs])["median"]


def machine_label(result: dict) -> str:
    """The CPU a result ran on, with its family and model where recorded (``cpu_id``) and its
    date: ``AMD EPYC, family 26 model 2, 2596 MHz, 2026-12-01``."""
    return ", ".join(str(result[k]) for k in ("cpu", "cpu_id", "date") if result.get(k))


def plot_ladder(result: dict, path: Path) -> Path:
    """The ladder's curves of a ``--ladder`` result: each run's win share against each rung
    (a colour per rung, a line style per setting) over wall-clock minutes (from the process's
    launch), its mark dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from machu_env.train.probe.ladder import ladder

    fig, ax = plt.subplots(figsize=(8, 4.5))
    colours = plt.get_cmap("viridis")
    rungs = ladder(result["players"])
    styles = ("-", "--", "-.", ":")  # one line style per setting, one colour per rung
    for j, (setting, runs) in enumerate(result["runs"].items()):
        for run in runs:
            # (a recipe's phases count their seconds from the recipe's start)
            start = run["wall_seconds"] - max(r.get("elapsed_seconds", 0)
                                              for r in run["history"])
            for k, (name, _) in enumerate(rungs):
                points = [((start + r["elapsed_seconds"]) / 60, r[f"win_vs_{name}"])
                          for r in run["history"]
                          if r.get(f"win_vs_{name}", float("nan")) == r.get(f"win_vs_{name}")
                          and "elapsed_seconds" in r]
                if points:
                    ax.plot(*zip(*points, strict=True), marker="o", ms=2.5,
                            ls=styles[j % len(styles)],
                            color=colours(k / max(1, len(rungs) - 1)),
                            label=f"vs {name} ({setting}, seed {run['seed']})")
    for mark in sorted({m for _, m in rungs}):
        ax.axhline(mark, color="grey", lw=0.7, ls=":")
    ax.set(xlabel="wall-clock minutes since launch", ylabel="win share", ylim=(0, 1.02),
           title=f"the strength ladder, {result['players']} players ({machine_label(result)})")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--setting", action="append", default=[], metavar="NAME=FLAGS",
                   help="a setting: a name and machu train's flags (repeatable)")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--timesteps", type=int, default=4_000_000)
    p.add_argument("--eval-every", type=int, default=250_000)
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--final-games", type=int, default=1000)
    p.add_argument("--stop-at", type=float, default=0.95)
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    p.add_argument("--name", default="", help="the result file's name (default "
                   "time_to_strength.json, time_to_strength_<P>p.json for P players)")
    p.add_argument("--peer", default="defaults", help="also train sb3-contrib's MaskablePPO "
                   "for as long as this setting's median time to 95 %% ('' : no peer)")
    p.add_argument("--ladder", action="store_true", help="the strength ladder: every run "
                   "evaluates the shipped agents too (--eval-agents ladder) for --minutes, "
                   "and the time to each rung is reported; the peer gets the same minutes")
    p.add_argument("--minutes", type=float, default=0.0, help="each run's time budget (machu "
                   "train --minutes); a setting '--recipe NAME' runs that recipe for it")
    p.add_argument("--plot", type=Path, default=None, metavar="RESULT.json", help="only draw "
                   "the ladder's curves of an earlier --ladder result (RESULT.png beside it)")
    a = p.parse_args(argv)
    if a.plot is not None:
        result = json.loads(a.plot.read_text())
        print(plot_ladder(result, a.plot.with_suffix(".png")))
        return result
    if a.ladder:
        a.stop_at = 0.0  # (a ladder run trains its whole budget)
    settings = dict(s.split("=", 1) for s in a.setting) if a.setting else DEFAULT_SETTINGS
    seeds = [int(s) for s in a.seeds.split(",")]
    runs: dict[str, list[dict]] = {name: [] for name in settings}
    work = Path(tempfile.mkdtemp(prefix="time_to_strength_"))
    # one short unmeasured run first: numba's kernels compiled and cached, as after a user's
    # first run (an edited or new installation compiles once, about 20-60 s)
    run_once("", 0, a.players, 20_000, 10_000, 10, work / "warm-up", stop_at=0.0)
    for seed in seeds:
        for name, flags in settings.items():
            folder = work / f"{name}_s{seed}"
            r = run_once(flags, seed, a.players, a.timesteps, a.eval_every, a.eval_games,
                         folder, a.stop_at, minutes=a.minutes, ladder=a.ladder)
            r["confirmed_win_vs_gold"] = confirm(Path(r["policy"]), a.players, a.final_games)
            if a.ladder:
                r["confirmed_rung"] = confirm_ladder(r, a.players, a.final_games)
                print(f"{name:>12} seed {seed}: rungs {r['marks']}, confirmed "
                      f"{r['confirmed_rung']}", flush=True)
            runs[name].append(r)
            print(f"{name:>12} seed {seed}: 90 % at {r['marks'].get('0.9')}, 95 % at "
                  f"{r['marks'].get('0.95')}, {r['steps_per_second']:,.0f} steps/s, "
                  f"confirmed {r['confirmed_win_vs_gold']:.1%} of {a.final_games}", flush=True)
    peer = None
    if a.peer in runs or (a.peer and a.ladder):  # MaskablePPO for as long (the median to 95
        # %, or with --ladder the same budget), then measured on the ladder
        budget = a.minutes * 60 if a.ladder else result_seconds(runs[a.peer])
        peer = maskable_ppo_for(budget, a.players, seeds[0], a.final_games,
                                ladder=a.ladder) if budget else None
        print(f"MaskablePPO after {budget} s: {peer}", flush=True)
    result = {**describe(), "command": "python benchmarks/time_to_strength.py "
              + shlex.join(argv if argv is not None else sys.argv[1:]),
              "players": a.players, "seeds": seeds, "eval_every": a.eval_every,
              "eval_games": a.eval_games, "final_games": a.final_games,
              "settings": settings,
              "summary": {name: summarise(rs) for name, rs in runs.items()}, "runs": runs,
              "maskable_ppo": peer, "minutes": a.minutes,
              "ladder": ladder_table(runs, a.players, peer) if a.ladder else None}
    a.out.mkdir(parents=True, exist_ok=True)
    name = a.name or ("time_to_strength.json" if a.players == 2
                      else f"time_to_strength_{a.players}p.json")
    (a.out / name).write_text(json.dumps(result, indent=1))
    for setting, s in result["summary"].items():
        print(f"{setting:>12}: to 90 % {s['seconds_to_90']}, to 95 % {s['seconds_to_95']}, "
              f"{s['steps_per_second']:,} steps/s", flush=True)
    return result


if __name__ == "__main__":
    main()
