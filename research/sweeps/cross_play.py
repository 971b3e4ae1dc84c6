# Reproduces research/log.md, "Rounds of probe, freeze and polish" (2026-12-06).
"""Cross-play of probes' exploiters: every exploiter against every agent, untrained against most.

    python research/sweeps/cross_play.py OUT --exploiters NAME=FOLDER,... --agents NAME=AGENT,...

A probe's exploiter starts from its agent's weights, so an agent can look hard to exploit only
because its weights are a poor start for an exploiter. Playing each exploiter (``FOLDER`` of a
``machu exploit`` run) against all the agents (``machu tournament --games 400 --seed 5``) asks
the other question: against the strongest exploiter any of them met, how does each agent do?
Writes OUT/cross_play.json (the matrix, the commands, the machine, the times) and prints it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from select_by_probe import _cpu  # noqa: E402

GAMES, SEED = 400, 5


def pairs(text: str, what: str) -> dict[str, str]:
    """``NAME=VALUE,...`` as a dict (exits with a line naming what is wrong)."""
    out = {}
    for item in filter(None, text.split(",")):
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            sys.exit(f"--{what}: give NAME=VALUE pairs separated by commas, got {item!r}")
        out[name] = value
    return out


def share(exploiter: str, agent: str, out: Path) -> float:
    """The exploiter's win share in ``GAMES`` games against ``agent`` (cached in ``out``)."""
    done = out / "summary.json"
    if not done.is_file():
        subprocess.run(["machu", "tournament", "--agents", f"{exploiter},{agent}", "--players",
                        "2", "--games", str(GAMES), "--seed", str(SEED), "--workers", "2",
                        "--no-progress", "--out", str(out)], check=True,
                       stdout=subprocess.DEVNULL)
    rows = json.loads(done.read_text())["agents"]
    return next(r["win_share"] for r in rows if r["agent"] == exploiter)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--exploiters", required=True)
    parser.add_argument("--agents", required=True)
    a = parser.parse_args()
    exploiters, agents = pairs(a.exploiters, "exploiters"), pairs(a.agents, "agents")
    for name, folder in exploiters.items():
        if not (Path(folder) / "exploiter.safetensors").is_file():
            sys.exit(f"--exploiters {name}: {folder} holds no exploiter.safetensors")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    matrix = {e: {n: share(f"policy:{Path(f) / 'exploiter.safetensors'}", agent,
                           a.out / f"{e}_vs_{n}") for n, agent in agents.items()}
              for e, f in exploiters.items()}
    worst = {n: max(row[n] for row in matrix.values()) for n in agents}
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "cross_play.json").write_text(json.dumps({
        "command": " ".join(sys.argv), "cpu": _cpu(), "started": started,
        "ended": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "games": f"machu tournament --agents EXPLOITER,AGENT --players 2 --games {GAMES} "
                 f"--seed {SEED} --workers 2", "exploiters": exploiters, "agents": agents,
        "exploiter_win_share": matrix, "strongest_exploiter_win_share": worst}, indent=2) + "\n")
    print(f"{'exploiter':>24}  " + "  ".join(f"{n:>14}" for n in agents))
    for e, row in matrix.items():
        print(f"{e:>24}  " + "  ".join(f"{row[n]:>14.4f}" for n in agents))
    print(f"{'strongest':>24}  " + "  ".join(f"{worst[n]:>14.4f}" for n in agents))


if __name__ == "__main__":
    main()
