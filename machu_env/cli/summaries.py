"""The last lines of the long commands: a short summary a person reads (what was reached, where
the files are, the next command). The whole result stays in the run folder's JSON, or on
standard output with ``--json`` (then nothing else is printed there)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

import typer

from machu_env.cli.commands import console, err_console
from machu_env.core.files import finite

JSON_HELP = "print the whole result as JSON on stdout (the summary lines go to stderr)"


def json_option() -> Any:
    return typer.Option(False, "--json", help=JSON_HELP)


@contextmanager
def work_output(as_json: bool) -> Iterator[None]:
    """While the work runs: its progress lines on stdout, or with ``--json`` on stderr (stdout
    then holds the JSON alone, for ``jq``)."""
    if not as_json:
        yield
        return
    with redirect_stdout(sys.stderr):
        yield


def finish(result: dict[str, Any], lines: list[str], as_json: bool) -> None:
    """The command's end: the summary lines, or with ``as_json`` the JSON (strict: NaN is
    null) on stdout and the lines on stderr."""
    if as_json:
        for line in lines:
            err_console.print(line, highlight=False, markup=False)
        print(json.dumps(finite(result), indent=2, allow_nan=False))
        return
    for line in lines:
        console.print(line, highlight=False, markup=False)


def _share(value: Any) -> str:
    return f"{value:.1%}" if isinstance(value, (int, float)) and value == value else "—"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 120 else f"{seconds:.0f} s"


def train_lines(summary: dict[str, Any], out: str, players: int) -> list[str]:
    row = summary["final_eval"]
    speed = summary.get("steps_per_second")
    shares = ", ".join(f"{_share(v)} against {k[len('win_vs_'):]}" for k, v in row.items()
                       if k.startswith("win_vs_") and v == v)
    best = Path(out) / "best.safetensors"
    return [f"trained {summary['timesteps']:,} steps in {_minutes(summary['wall_seconds'])} "
            "of wall-clock" + (f" (training alone: {speed:,.0f} steps/s)" if speed else "")
            + f"; last evaluation: {shares}",
            f"best against gold: {_share(summary['best_win_vs_gold'])}, kept in {best}; "
            f"the run: {out} (summary.json, history.csv, curve.png)",
            f"next: machu tournament --agents policy:{best},gold --players {players}"]


def recipe_lines(state: dict[str, Any], out: str, players: int) -> list[str]:
    agent = Path(out) / "agent.safetensors"
    rungs = ", ".join(state.get("rungs", [])) or "none yet"
    lines = [f"recipe {state['recipe']}: {state['steps']:,} steps in "
             f"{_minutes(state['elapsed_seconds'])} (phases: {', '.join(state['done'])}); "
             f"rungs reached: {rungs}"]
    kept = state.get("kept")
    if kept:
        reached = kept.get("reached") or "no rung"
        lines.append(f"kept: phase {kept['phase']} at {kept['timesteps']:,} steps (reached "
                     f"{reached}; {_share(kept['win_share'])} against "
                     f"{kept['evaluated_against']})")
    done = state.get("rounds", {})
    if done.get("kept"):
        kept = done["kept"]
        lines.append(f"rounds: {len(done['done'])} in {_minutes(done['seconds'])}; kept "
                     f"{'the start' if kept['round'] == 0 else 'round ' + str(kept['round'])}"
                     f" (its two exploiters won {_share(kept['probe'])})")
    lines += [f"agent: {agent}; the run's state: {Path(out) / 'recipe.json'}",
              f"the same run again: {state['command']} --out OUT",
              f"next: machu exploit --agent policy:{agent} --players {players} --out "
              f"{Path(out) / 'probe'}"]
    return lines


def _next(summary: dict[str, Any]) -> str:
    players = summary.get("players", 2)
    return (f"wrote {summary['out']}; next: machu tournament --agents "
            f"policy:{summary['out']},best-{players}p --players {players}")


def population_lines(summary: dict[str, Any]) -> list[str]:
    pairs = zip(summary["members"], summary["weights"], strict=False)
    weights = ", ".join(f"{m} {w:.1%}" for m, w in pairs if w > 0)
    return [f"population: the Nash mixture plays {weights} (its value "
            f"{summary['value']:+.3f})", _next(summary)]


def average_lines(summary: dict[str, Any]) -> list[str]:
    pairs = zip(summary["members"], summary["weights"], strict=False)
    weights = ", ".join(f"{m} ({w:.1%})" for m, w in pairs)
    return [f"average: the weighted mean of {weights}", _next(summary)]
