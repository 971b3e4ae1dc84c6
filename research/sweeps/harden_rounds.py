# Reproduces research/log.md, "Rounds of probe, freeze and polish" (2026-12-06).
"""Rounds of probe → freeze the exploiter → polish: each round probes the current agent with
fresh exploiter seeds, puts those exploiters (and the newest earlier ones) frozen in the pool and
fine-tunes the agent against them; the last agent is probed on seeds no round used.

    python research/sweeps/harden_rounds.py INIT OUT [--rounds 4] [--frozen F1,F2,...]

INIT is a policy file. Round r probes with seeds ``--first-seed + 2r`` and ``+ 2r + 1``
(``machu exploit --steps 1500000 --eval-games 2000 --threads 1``, both at once): as no round has
met those seeds before, each round's probes also measure the agent it starts from. The fine-tune
is ``machu train --init … --frozen <the newest --max-frozen exploiters> --exploiter-share 0.5``
with the polish's settings (2 threads, overlap). The final agent and ``--reference`` are probed on
``--confirm-seeds``, with the soups (the equal mean of INIT and every round's agent after the
last round and after each of ``--soups``), each of them also in 1,000 games against the
reference (``machu tournament --seed 7``). Every finished step is kept and skipped on a rerun
(so a rerun with more ``--rounds`` goes on from the last); OUT/rounds.json holds every figure,
the commands, the machine and the times.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from select_by_probe import _cpu, probe  # noqa: E402

FINE_TUNE = ["--players", "2", "--threads", "2", "--overlap", "--reward", "score",
             "--observation", "2", "--clip-range", "0.1", "--ent-coef", "0.01",
             "--pool", "random:0.03,builder:0.07,gold:0.15,racer:0.15,self:0.6",
             "--exploiter-share", "0.5", "--eval-opponents", "gold", "--eval-agents", "ladder",
             "--eval-games", "400", "--snapshot-every", "1000000"]


def fine_tune(init: str, frozen: list[str], steps: int, seed: int, out: Path) -> dict:
    """``machu train`` from ``init`` with ``frozen`` in the pool: its final evaluation."""
    done = out / "summary.json"
    if not done.is_file():
        if out.exists():
            sys.exit(f"{out}: an unfinished fine-tune is there; move it away to run it again")
        command = ["machu", "train", "--init", init, "--frozen", ",".join(frozen),
                   "--timesteps", str(steps), "--eval-every", str(steps), "--seed", str(seed),
                   *FINE_TUNE, "--out", str(out)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    summary = json.loads(done.read_text())
    return {"agent": str(out / "latest.safetensors"), "steps_per_second":
            summary["steps_per_second"], "wall_seconds": summary["wall_seconds"],
            "final_eval": summary["final_eval"]}


def soup(members: list[str], out: Path) -> str:
    """``machu average`` of the policy files ``members`` (equal weights) into ``out``."""
    if not out.is_file():
        subprocess.run(["machu", "average", "--members", ",".join(f"policy:{m}" for m in
                                                                   members), "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
    return f"policy:{out}"


def strength(label: str, agent: str, reference: str, out: Path) -> dict:
    """``agent``'s win share in 1,000 games against ``reference`` (cached in ``out``)."""
    done = out / "summary.json"
    if not done.is_file():
        subprocess.run(["machu", "tournament", "--agents", f"{agent},{reference}", "--players",
                        "2", "--games", "1000", "--seed", "7", "--workers", "2", "--no-progress",
                        "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
    row = json.loads(done.read_text())["agents"]
    mine = next(r for r in row if r["agent"] == agent)
    return {"label": label, "agent": agent, "games": mine["games"],
            "win_share": mine["win_share"], "ci95": mine["win_ci95"]}


def _probe_minutes(probes: list[dict]) -> float:
    """The minutes of a round's probes (run at once: the longer one's training and games)."""
    seconds = [json.loads((Path(p["folder"]) / "summary.json").read_text()) for p in probes]
    return round(max(s["train_seconds"] + s["eval_seconds"] for s in seconds) / 60, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("init", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--frozen", default="", help="exploiter files frozen from round 1 on")
    parser.add_argument("--max-frozen", type=int, default=6)
    parser.add_argument("--steps", type=int, default=6_000_000)
    parser.add_argument("--first-seed", type=int, default=200)
    parser.add_argument("--confirm-seeds", default="101,103")
    parser.add_argument("--reference", default="best-2p")
    parser.add_argument("--soups", default="", help="also the soup after these rounds (1,4)")
    a = parser.parse_args()
    if not a.init.is_file():
        sys.exit(f"{a.init}: no such policy file")
    frozen = [f"policy:{f}" for f in a.frozen.split(",") if f]
    a.out.mkdir(parents=True, exist_ok=True)
    result = {"command": " ".join(sys.argv), "cpu": _cpu(),
              "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "probe": "machu exploit --agent AGENT --players 2 --steps 1500000 --seed SEED "
                       "--eval-games 2000 --threads 1",
              "fine_tune": "machu train --init AGENT --frozen FROZEN --timesteps STEPS "
                           "--eval-every STEPS --seed ROUND " + " ".join(FINE_TUNE),
              "rounds": []}
    agent = str(a.init)
    with ThreadPoolExecutor(2) as pool:
        for r in range(a.rounds):
            seeds = [a.first_seed + 2 * r, a.first_seed + 2 * r + 1]
            probes = list(pool.map(lambda s, ag=agent, r=r: probe(
                f"policy:{ag}", s, a.out / f"round{r + 1}_probe_s{s}"), seeds))
            frozen = (frozen + [f"policy:{p['folder']}/exploiter.safetensors"
                                for p in probes])[-a.max_frozen:]
            tuned = fine_tune(f"policy:{agent}", frozen, a.steps, r + 1,
                              a.out / f"round{r + 1}_ft")
            result["rounds"].append({"round": r + 1, "agent": agent, "probes": probes,
                                     "frozen": frozen, "fine_tune": tuned,
                                     "minutes": {"probes": _probe_minutes(probes),
                                                 "fine_tune": round(
                                                     tuned["wall_seconds"] / 60, 1)}})
            agent = tuned["agent"]
            (a.out / "rounds.json").write_text(json.dumps(result, indent=2) + "\n")
            best = tuned["final_eval"].get(f"win_vs_{a.reference}")
            print(f"round {r + 1}: probes " + ", ".join(
                f"s{p['seed']} {p['exploiter_win_share']:.4f}" for p in probes)
                + f"; after the fine-tune {best} against {a.reference}", flush=True)
        agents = {f"round{a.rounds}_final": f"policy:{agent}"}
        for k in sorted({a.rounds, *map(int, filter(None, a.soups.split(",")))}):
            agents[f"round{k}_soup"] = soup([str(a.init)] + [r["fine_tune"]["agent"] for r in
                                                             result["rounds"][:k]],
                                            a.out / f"round{k}_soup.safetensors")
        agents["reference"] = a.reference
        jobs = [(label, ag, s) for s in map(int, a.confirm_seeds.split(","))
                for label, ag in agents.items()]
        result["confirmation"] = list(pool.map(lambda j: {"label": j[0], **probe(
            j[1], j[2], a.out / f"{j[0]}_s{j[2]}")}, jobs))
    result["strength"] = [strength(label, ag, a.reference, a.out / f"{label}_vs_reference")
                          for label, ag in agents.items() if label != "reference"]
    result["ended"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    (a.out / "rounds.json").write_text(json.dumps(result, indent=2) + "\n")
    for c in result["confirmation"]:
        print(f"{c['label']:>14}  probe s{c['seed']} {c['exploiter_win_share']:.4f} "
              f"(margin {c['exploiter_margin']})")
    for c in result["strength"]:
        print(f"{c['label']:>14}  {c['win_share']:.3f} of {c['games']} against {a.reference}")
    print(f"{a.rounds} rounds; {a.out / 'rounds.json'}")


if __name__ == "__main__":
    main()
