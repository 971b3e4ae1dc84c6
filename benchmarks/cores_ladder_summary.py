"""The figures of one ``benchmarks/cores_ladder.sh`` run, gathered into ``cores_ladder.json``.

    python benchmarks/cores_ladder_summary.py OUT_FOLDER WORK_FOLDER RUN [RUN ...]

Reads each steps/s run's ``summary.json`` (``WORK_FOLDER/RUN``: ``cpuN`` or ``gpuN``, N
cores) and the ladder run's ``OUT_FOLDER/cores_ladder_rungs.json``; writes
``OUT_FOLDER/cores_ladder.json`` (the machine, the date, each run's training and wall-clock
steps/s, the minutes to each rung) and prints a short table.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

from machu_env.core import files


def cpu_model() -> str:
    """The CPU's model name with its family and model numbers (``/proc/cpuinfo``), else the
    platform's word."""
    try:
        text = files.read_text("/proc/cpuinfo", limit=1 << 22)
    except (OSError, ValueError):
        return platform.processor() or platform.machine()
    fields = dict(line.split(":", 1) for line in text.split("\n\n")[0].splitlines()
                  if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return (f"{fields.get('model name', platform.machine())}, family "
            f"{fields.get('cpu family', '?')} model {fields.get('model', '?')}")


def speed_run(work: Path, name: str) -> dict:
    """One steps/s run's figures, or what was missing."""
    try:
        s = files.read_json(work / name / "summary.json")
    except (OSError, ValueError) as e:
        return {"error": f"no summary: {e}"}
    wall = s.get("wall_seconds") or 0
    return {"cores": int(name[3:]), "device": s.get("device"),  # (cpuN, gpuN)
            "timesteps": s.get("timesteps"), "train_steps_per_second": s.get("steps_per_second"),
            "wall_steps_per_second": round(s["timesteps"] / wall, 1) if wall else None,
            "wall_seconds": wall, "torch_threads": s.get("torch_threads"),
            "rollout_workers": s.get("rollout_workers")}


def rungs(out: Path) -> dict:
    """The ladder run's minutes to each rung it reached, and its speed."""
    try:
        r = files.read_json(out / "cores_ladder_rungs.json")
    except (OSError, ValueError) as e:
        return {"error": f"no ladder result: {e}"}
    run = r["runs"]["whole"][0]
    return {"command": r.get("command"), "setting": r.get("settings", {}).get("whole"),
            "minutes_budget": r.get("minutes"),
            "minutes_to": {k: round(v["seconds"] / 60, 2) for k, v in run["marks"].items()
                           if not k.replace(".", "").isdigit()},
            "steps_to": {k: v["timesteps"] for k, v in run["marks"].items()
                         if not k.replace(".", "").isdigit()},
            "steps_per_second": r["summary"]["whole"].get("steps_per_second"),
            "wall_seconds": run.get("wall_seconds")}


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out, work, names = Path(argv[0]), Path(argv[1]), argv[2:]
    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": cpu_model(),
              "cores": os.cpu_count(), "gpu": gpu, "load_1min": round(os.getloadavg()[0], 2),
              "command": "bash benchmarks/cores_ladder.sh OUT (SPEED_MINUTES="
                         f"{os.environ.get('SPEED_MINUTES', '0.75')}, LADDER_MINUTES="
                         f"{os.environ.get('LADDER_MINUTES', '5')})",
              "speed": {n: speed_run(work, n) for n in names}, "ladder": rungs(out)}
    files.write_json(out / "cores_ladder.json", result)
    print(f"{result['cpu']}, {result['cores']} cores, GPU: {gpu or 'none'}")
    for n, s in result["speed"].items():
        if "error" in s:
            print(f"  {n}: {s['error']}")
        else:
            print(f"  {n}: {s['train_steps_per_second']:,.0f} training steps/s, "
                  f"{s['wall_steps_per_second'] or 0:,.0f} wall-clock")
    lad = result["ladder"]
    print("  ladder: " + (lad.get("error") or ", ".join(
        f"{k} at {v} min" for k, v in lad["minutes_to"].items()) or "no rung reached"))
    print(f"wrote {out / 'cores_ladder.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
