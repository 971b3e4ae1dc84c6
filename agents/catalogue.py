"""The catalogue of shipped agents: what each one is, how it plays and how strong it is.

A file's own facts (its player count, observation version, play mode and size) are read from its
safetensors header, without torch; the measurements (strength against ``gold`` and against the
agent it replaced, the exploitability probe, the OpenSkill rating; each with its date, games,
command and machine) come from ``checkpoints/catalogue.json``, which is data. ``best-2p`` ...
``best-5p`` are the aliases of the recommended agent for each player count: every layer that
takes an agent name takes them (``make_agent``, the CLI, the web app).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from machu_env.core import files

CHECKPOINTS = Path(__file__).parent / "checkpoints"
CATALOGUE = CHECKPOINTS / "catalogue.json"
MEASURES = ("vs_gold", "vs_replaced", "probe", "rating")
NO_RECIPE = ("no recipe rebuilds it: trained before the recipes existed (its commands are in "
             "research/log.md)")


def _header(path: Path) -> dict[str, Any]:
    """The ``__metadata__`` of a safetensors file, read from its JSON header alone."""
    from machu_env.agents.policy_file import MAX_FILE_BYTES

    data = files.read_bytes(path, MAX_FILE_BYTES)
    size = int.from_bytes(data[:8], "little")
    if not 0 < size <= min(1_000_000, len(data) - 8):
        raise ValueError(f"{path.name}: not a safetensors file")
    header = files.parse_json(data[8:8 + size], path.name)
    if not isinstance(header, dict):
        raise ValueError(f"{path.name}: not a safetensors file")
    meta = header.get("__metadata__") or {}
    return meta if isinstance(meta, dict) else {}


def shipped_policies() -> dict[str, Path]:
    """The trained agents shipped with the package: name (``ppo-2p``) -> agent file."""
    return {p.stem.replace("_", "-"): p for p in sorted(CHECKPOINTS.glob("*.safetensors"))}


def _measurements() -> dict[str, Any]:
    return files.read_json(CATALOGUE, limit=4_000_000)


def aliases() -> dict[str, str]:
    """``best-<N>p`` -> the recommended shipped agent for N players."""
    return dict(_measurements()["recommended"])


def resolve(name: str) -> str:
    """The shipped agent an alias names (any other name is returned as it is)."""
    return aliases().get(name, name)


def _file_facts(path: Path) -> dict[str, Any]:
    from machu_env.agents.policy_file import observation_version

    meta = _header(path)
    config = json.loads(meta.get("config", "{}"))
    info = json.loads(meta.get("info", "{}"))
    play = json.loads(meta.get("play", "null")) or {"temperature": 0}
    temperature = float(play.get("temperature", 0))
    recipe = info.get("command") if info.get("recipe") else None
    return {"players": int(info.get("players", 0)), "observation": observation_version(config),
            "play": "argmax" if temperature == 0 else f"sampled, temperature {temperature:g}",
            "file_bytes": path.stat().st_size, "timesteps": int(info.get("num_timesteps", 0)),
            "rebuilt_by": recipe if isinstance(recipe, str) else None}


def catalogue(players: int | None = None) -> list[dict[str, Any]]:
    """Every shipped agent (for ``players`` only, if given), recommended first within each
    player count: its name, alias, the file's facts and the dated measurements."""
    data, best = _measurements(), aliases()
    alias_of = {agent: alias for alias, agent in best.items()}
    rows = []
    for name, path in shipped_policies().items():
        entry = data["agents"].get(name, {})
        row = {"name": name, "alias": alias_of.get(name), "recommended": name in alias_of,
               **_file_facts(path), "summary": entry.get("summary", ""),
               **{k: entry.get(k) for k in MEASURES}}
        if row["rebuilt_by"] is None:  # trained before the recipes: how it was made
            row["history"] = entry.get("history", NO_RECIPE)
        if players is None or row["players"] == players:
            rows.append(row)
    return sorted(rows, key=lambda r: (r["players"], not r["recommended"],
                                       -((r["rating"] or {}).get("value") or -1e9), r["name"]))


def figure(measure: dict[str, Any] | None) -> str:
    """One measurement as a short text: ``99.7 % (1,000 games, <its date>)``."""
    if not measure:
        return "—"
    value = measure["value"]
    text = f"{value * 100:.1f} %" if measure.get("unit", "share") == "share" else f"{value:.1f}"
    games = f"{measure['games']:,} games, " if measure.get("games") else ""
    return f"{text} ({games}{measure['date']})"


def probe_seeds(probe: dict[str, Any]) -> int:
    """How many exploiter seeds a probe figure is the mean of (``seeds``; else one)."""
    return len(probe.get("seeds") or {}) or 1


def probe_figure(probe: dict[str, Any] | None, players: int) -> str:
    """A probe in short: ``74.1 % (6 seeds; break-even 50 %)``; figures are comparable only
    over the same seeds (``train.probe.probe_verdict.PROTOCOL_SEEDS``)."""
    if not probe:
        return "—"
    n = probe_seeds(probe)
    return (f"{probe['value'] * 100:.1f} % ({n} seed{'s' if n > 1 else ''}; break-even "
            f"{100 / players:.0f} %)")


def markdown() -> str:
    """The catalogue as the markdown table of docs/agents.md (its test keeps them equal): each
    figure's value; its games, date, machine and command are on the agent's card (``machu
    agents NAME``) and in ``--json``."""
    lines = ["| agent | players | against `gold` | against the agent it replaced "
             "| probe (seeds; break-even) | rating |",
             "| --- | --- | --- | --- | --- | --- |"]

    def value(measure: dict[str, Any] | None) -> str:
        return figure(measure).split(" (", 1)[0]

    for r in catalogue():
        name = f"`{r['alias']}` = `{r['name']}`" if r["alias"] else f"`{r['name']}`"
        replaced = (f"{value(r['vs_replaced'])} vs {r['vs_replaced']['against']}"
                    if r["vs_replaced"] else "—")
        probe = probe_figure(r["probe"], r["players"]).replace("break-even ", "")
        rating = f"{r['rating']['value']:.1f}" if r["rating"] else "—"
        lines.append(f"| {name} | {r['players']} | {value(r['vs_gold'])} | {replaced} | "
                     f"{probe} | {rating} |")
    return "\n".join(lines)
