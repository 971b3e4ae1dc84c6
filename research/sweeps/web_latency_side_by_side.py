# Reproduces research/log.md, "The web client's targets and timings, side by side" (2026-12-08).
"""Two checkouts' web clients timed side by side on one machine, in alternating rounds: each
round runs the checkout's own ``benchmarks/web_phone.py`` (a whole game tapped on a 390x844
phone against ``best-2p``, its own ``machu serve``) in a fresh process whose ``machu_env`` is
the checkout's (``PYTHONPATH``), and keeps its medians: a tap to the own move on screen and to
the next decision after the agents' replies.

    git worktree add /tmp/before <commit>
    python research/sweeps/web_latency_side_by_side.py --before /tmp/before --after . \
        --rounds 3 --out research/results/web_latency_side_by_side_2026_12_08.json
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machu_env.core import files

KEYS = ("own_move_ms_median", "reply_ms_median", "decisions")


def one_round(checkout: Path, seed: int) -> dict:
    """One game of ``checkout``'s phone benchmark: its figures named by ``KEYS``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "web_phone.json"
        env = dict(os.environ, PYTHONPATH=str(checkout))
        subprocess.run([sys.executable, "benchmarks/web_phone.py", "--seed", str(seed),
                        "--out", str(out)], cwd=checkout, env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=900)
        figures = files.read_json(out, limit=1 << 20)
    figures = figures.get("figures", figures)
    return {k: figures[k] for k in KEYS}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--before", type=Path, required=True)
    p.add_argument("--after", type=Path, required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for r in range(a.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            runs[name].append(one_round(getattr(a, name).resolve(), a.seed))
            print(name, runs[name][-1], flush=True)
    medians = {name: {k: statistics.median(x[k] for x in rows) for k in KEYS[:2]}
               for name, rows in runs.items()}
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text()
                .splitlines() if line.startswith("model name")), platform.processor())
    result = {"command": "python " + " ".join(sys.argv), "cpu": cpu, "cores": os.cpu_count(),
              "load_before": os.getloadavg()[0], "started": started,
              "ended": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "before": str(a.before), "after": str(a.after), "runs": runs, "medians": medians}
    files.write_json(a.out, result)
    for name, m in medians.items():
        print(f"{name}: your move {m['own_move_ms_median']:.1f} ms, the next decision "
              f"{m['reply_ms_median']:.1f} ms (medians of {a.rounds} games)")


if __name__ == "__main__":
    main()
