"""Rounds of probe → freeze → fine-tune: a recipe's last stage, against its own exploiters.

After a recipe's phases have chosen its agent, ``"rounds"`` in the recipe file hardens it::

    "rounds": {"count": 10, "minutes": 120, "timesteps": 6000000, "probe_steps": 1500000,
               "probe_games": 2000, "max_frozen": 6, "first_probes": 6,
               "keep": "least-exploitable",
               "settings": {"clip_range": 0.1, "ent_coef": 0.01, "exploiter_share": 0.5},
               "late": {"from": 11, "timesteps": 3000000, "settings": {"learning_rate": 0.0001}}}

Round ``r`` (1, 2, …) probes the current agent with two exploiters (``machu exploit``: warm-
started from the agent, ``probe_steps`` steps against it alone, then ``probe_games`` games
against it; round 1 with ``first_probes``, 2 unless given, so that the first fine-tune already
meets several exploiters), puts them frozen into the pool beside the newest earlier ones
(``max_frozen`` in all, sharing ``exploiter_share`` of the ``self`` weight) and fine-tunes the
agent ``timesteps`` steps with the recipe's defaults and the rounds' ``settings``
(``OUT/rounds/round<r>/``; its start is not evaluated again). ``late`` (optional) gives the
rounds from its ``from`` on a fine-tune of their own: its ``timesteps`` (the rounds' unless
given) and its ``settings`` over the rounds' (``best-2p-rounds``: a fine-tune that moves less,
so that the agent stays nearer the low points the rounds reach). After the last round two more
probes measure the last agent. Each probe uses seeds no other round of the run uses, so each
round's probes also measure the agent it starts from: every agent of the stage has its
exploitability on fresh seeds.
``keep``: ``least-exploitable`` keeps, of the agents at least as high on the strength ladder
as the stage's first, the one whose exploiters won least on average (ties: the later);
``last`` keeps the last. The exploiters start from the run's own agents, so no shipped agent's
weights enter a recipe run here either.

The first round always runs; a later one starts when the stage's ``minutes`` (scaled with the
run's ``--minutes`` when one is given) have room for it (as long as the round before took); the
two last probes always run. The rounds are the recipe's size whatever ``--timesteps`` says (it
budgets the phases). A finished run resumed with a larger ``--minutes`` goes on with the rounds
left; its next round reads the last probes (the same agent on the same seeds) instead of
running them again. ``OUT/recipe.json`` records
every finished probe and fine-tune, so ``--resume`` goes on from the first unfinished one.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from machu_env.agents import policy_file
from machu_env.core import files
from machu_env.core.processes import run_jobs
from machu_env.train.run.args import MAX_MINUTES
from machu_env.train.run.run_schemas import FINAL_EVAL, PROBE_SUMMARY

KEEP = ("least-exploitable", "last")
LATE = ("from", "timesteps", "settings")  # the keys of ``late``
LIMITS = {"count": (1, 64), "minutes": (1, MAX_MINUTES), "timesteps": (1, 10**10),
          "probe_steps": (1, 10**9), "probe_games": (10, 100_000), "max_frozen": (2, 16)}
PROBES = 2  # exploiters per round (round 1: first_probes)
FIRST_PROBES = (PROBES, 16)  # the range of first_probes


def check(spec: Any, where: str, config_of) -> dict[str, Any]:
    """The recipe's ``rounds`` object, checked (ValueError naming the field and what is
    allowed); ``config_of(settings, where)`` checks the fine-tune's settings as a phase's."""
    here = f"{where}, rounds"
    if not isinstance(spec, dict):
        raise ValueError(f"{here}: must be a JSON object ({', '.join(LIMITS)}, "
                         "first_probes, keep, settings, late)")
    unknown = sorted(set(spec) - {*LIMITS, "first_probes", "keep", "settings", "late"})
    if unknown:
        raise ValueError(f"{here}: unknown keys {unknown} (allowed: {', '.join(LIMITS)}, "
                         "first_probes, keep, settings, late)")
    for key, (lo, hi) in [*LIMITS.items(), ("first_probes", FIRST_PROBES)]:
        value = spec.get(key, PROBES) if key == "first_probes" else spec.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise ValueError(f"{here}: {key} must be an int in {lo}..{hi}, got {value!r}")
    if spec.get("keep", KEEP[0]) not in KEEP:
        raise ValueError(f"{here}: keep must be one of {', '.join(KEEP)}, got "
                         f"{spec.get('keep')!r}")
    if not isinstance(spec.get("settings", {}), dict):
        raise ValueError(f"{here}: settings must be a JSON object of machu train settings")
    config_of(spec.get("settings", {}), here)
    if "late" in spec:
        _check_late(spec, here, config_of)
    return spec


def _check_late(spec: dict[str, Any], here: str, config_of) -> None:
    late, here = spec["late"], f"{here}, late"
    if not isinstance(late, dict) or set(late) - set(LATE) or "from" not in late:
        raise ValueError(f"{here}: must be a JSON object with from and, if wanted, timesteps "
                         f"and settings, got {late!r}")
    for key, (lo, hi) in (("from", (2, spec["count"])), ("timesteps", LIMITS["timesteps"])):
        value = late.get(key, spec["timesteps"])
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise ValueError(f"{here}: {key} must be an int in {lo}..{hi}, got {value!r}")
    if not isinstance(late.get("settings", {}), dict):
        raise ValueError(f"{here}: settings must be a JSON object of machu train settings")
    config_of({**spec.get("settings", {}), **late.get("settings", {})}, here)


def fine_tune(spec: dict[str, Any], round_: int) -> tuple[int, dict[str, Any]]:
    """Round ``round_``'s fine-tune: its steps and settings (``late``'s from its round on)."""
    late = spec.get("late")
    if late is None or round_ < late["from"]:
        return spec["timesteps"], spec.get("settings", {})
    return late.get("timesteps", spec["timesteps"]), {**spec.get("settings", {}),
                                                     **late.get("settings", {})}


def seeds(run_seed: int, round_: int, probes: int = PROBES) -> tuple[int, list[int]]:
    """Round ``round_``'s fine-tune seed and its ``probes`` probe seeds (``count + 1``: the
    last probes), different for every round of a run and every run seed (a round's third
    probe on: 500 above the run's, where no round's two reach)."""
    base = run_seed * 1000 + 3 * round_
    more = [run_seed * 1000 + 500 + j for j in range(probes - PROBES)]
    return base % 2**32, [s % 2**32 for s in [base + 1, base + 2, *more]]


def probes_in(round_: int, spec: dict[str, Any]) -> int:
    """How many exploiters probe round ``round_``'s start (the last probes: ``PROBES``)."""
    return spec.get("first_probes", PROBES) if round_ == 1 else PROBES


def agent_file(round_: int) -> str:
    """The agent round ``round_`` ends with (0: the stage's start), relative to the run."""
    return f"rounds/round{round_}/tune/latest.safetensors" if round_ else "rounds/start.safetensors"


def probe_folder(round_: int | str, seed: int) -> str:
    """Where round ``round_``'s probe with ``seed`` writes (``last``: the last probes)."""
    return f"rounds/{'last' if round_ == 'last' else f'round{round_}'}/probe_{seed}"


def check_record(record: Any, spec: dict[str, Any]) -> str | None:
    """What is wrong with a resumed run's ``rounds`` record (None: nothing), ``spec``: the
    recipe's rounds: each finished round in order with its probes, seeds and files where this
    stage writes them."""
    count = spec.get("count", 0)
    if not isinstance(record, dict) or not isinstance(record.get("done"), list) \
            or len(record["done"]) > count or record.get("start") != agent_file(0):
        return f"rounds must hold start {agent_file(0)!r} and done: up to {count} rounds"
    if not isinstance(record.get("seconds"), (int, float)) or not 0 <= record["seconds"] < 1e9:
        return "rounds.seconds must be a number of seconds >= 0"
    for r, d in enumerate(record["done"], 1):
        ok = isinstance(d, dict) and d.get("round") == r and d.get("agent") == agent_file(r) \
            and isinstance(d.get("final_eval"), dict) and _valid(FINAL_EVAL, d["final_eval"]) \
            and _probes_ok(d.get("probes"), r, probes_in(r, spec)) \
            and isinstance(d.get("timesteps"), int) and not isinstance(d["timesteps"], bool) \
            and isinstance(d.get("seconds", 0), (int, float)) \
            and d.get("exploiters") == [p["exploiter"] for p in d["probes"]]
        if not ok:
            return (f"rounds.done[{r - 1}] must be round {r}'s record (agent, probes, "
                    "final_eval, timesteps, seconds)")
    last = record.get("last_probes")
    if last is not None and not (isinstance(last, dict) and _probes_ok(last.get(
            "probes"), "last", PROBES) and last.get("agent") == agent_file(len(record["done"]))):
        return "rounds.last_probes must be the last agent's probes"
    return None


def _probes_ok(probes: Any, round_: int | str, n: int) -> bool:
    return isinstance(probes, list) and len(probes) == n and all(
        isinstance(p, dict) and isinstance(p.get("seed"), int)
        and p.get("exploiter") == f"{probe_folder(round_, p['seed'])}/exploiter.safetensors"
        and isinstance(p.get("exploiter_win_share"), (int, float))
        and not isinstance(p["exploiter_win_share"], bool)
        and 0 <= p["exploiter_win_share"] <= 1 for p in probes)


def _valid(rule, value: Any) -> bool:
    try:
        rule(value, "")
    except ValueError:
        return False
    return True


def run(recipe: dict[str, Any], out: Path, state: dict[str, Any], train, scale: float,
        threads: int, verbose: bool, save_state) -> Path:
    """Run (or go on with) the rounds on ``OUT/agent.safetensors``; returns the agent kept.
    ``train(settings, init, frozen, seed, folder, steps, elapsed=)`` fine-tunes and returns its
    summary (``elapsed``: the run's seconds so far);
    ``scale``: the run's ``--minutes`` over the recipe's; ``save_state()`` writes recipe.json."""
    spec, players = recipe["rounds"], recipe["players"]
    start = out / agent_file(0)
    record = state.setdefault("rounds", {"start": agent_file(0), "done": [], "seconds": 0.0})
    if not start.is_file():
        files.make_folder(start.parent)
        files.copy(out / "agent.safetensors", start, policy_file.MAX_FILE_BYTES)
    budget = spec["minutes"] * 60 * scale
    agent = out / record["done"][-1]["agent"] if record["done"] else start
    t0, before = time.perf_counter(), record["seconds"]
    if record["done"] and len(record["done"]) < spec["count"]:
        _say(verbose, f"rounds: {len(record['done'])} of {spec['count']} done in "
                      f"{before / 60:.1f} min; the stage's budget: {budget / 60:.0f} min")
    for r in range(len(record["done"]) + 1, spec["count"] + 1):
        used = before + time.perf_counter() - t0
        if r > 1 and used + record["done"][-1].get("seconds", 0) > budget:
            _say(verbose, f"rounds: {r - 1} rounds in {used / 60:.0f} min; another would run "
                          f"past the stage's {budget / 60:.0f} minutes")
            break
        began = time.perf_counter()
        tune_seed, probe_seeds = seeds(state["seed"], r, probes_in(r, spec))
        _reuse_last_probes(out, record, r, probe_seeds, verbose)
        probes = _probes(agent, out, r, probe_seeds, spec, players, threads, verbose)
        frozen = ([f for d in record["done"] for f in d["exploiters"]]
                  + [p["exploiter"] for p in probes])[-spec["max_frozen"]:]
        steps, settings = fine_tune(spec, r)
        _say(verbose, f"rounds: round {r} of {spec['count']}: fine-tune {steps:,} steps against "
                      f"the pool and {len(frozen)} frozen exploiters"
                      + (" (a late round's settings)" if "late" in spec
                         and r >= spec["late"]["from"] else ""))
        summary = train(settings, str(agent), ",".join(str(out / f) for f in frozen),
                        tune_seed, (out / agent_file(r)).parent, steps,
                        elapsed=state.get("elapsed_seconds", 0.0) + before
                        + time.perf_counter() - t0)
        agent = out / agent_file(r)
        record["done"].append({
            "round": r, "agent": agent_file(r), "probes": probes,
            "exploiters": [p["exploiter"] for p in probes], "frozen": frozen,
            "timesteps": int(summary["timesteps"]), "final_eval": summary["final_eval"],
            "seconds": round(time.perf_counter() - began, 1)})
        record["seconds"] = round(before + time.perf_counter() - t0, 1)
        save_state()
    last = agent_file(len(record["done"]))
    if record.get("last_probes", {}).get("agent") != last:
        _, probe_seeds = seeds(state["seed"], len(record["done"]) + 1)
        record["last_probes"] = {"agent": last, "probes": _probes(
            agent, out, "last", probe_seeds, spec, players, threads, verbose)}
        record["seconds"] = round(before + time.perf_counter() - t0, 1)
    record["kept"] = keep(record, state.get("kept"), spec.get("keep", KEEP[0]), players)
    save_state()
    _say(verbose, f"rounds: kept {record['kept']['agent']} (its exploiters won "
                  f"{record['kept']['probe']:.1%})")
    return out / record["kept"]["agent"]


def candidates(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every agent of the stage with its probes: the start (probed by round 1), each round's
    fine-tune (probed by the next round, the last one by the last probes)."""
    probes = [d["probes"] for d in record["done"]] + [record["last_probes"]["probes"]]
    agents = [(record["start"], 0, None)] + [(d["agent"], d["round"], d["final_eval"])
                                             for d in record["done"]]
    return [{"agent": a, "round": r, "probes": p, "final_eval": e}
            for (a, r, e), p in zip(agents, probes, strict=True)]


def keep(record: dict[str, Any], kept: dict[str, Any] | None, rule: str,
         players: int) -> dict[str, Any]:
    """The agent the stage keeps (see the module); ``kept``: the phases' choice (its rung)."""
    from machu_env.train.probe import ladder

    rungs = [name for name, _ in ladder.ladder(players)]

    def top(row: dict[str, Any] | None) -> int:
        if row is None:  # the start: the rung its phases' evaluation reached
            return rungs.index(kept["reached"]) if kept and kept.get("reached") else -1
        reached = ladder.reached(row, players)
        return rungs.index(reached[-1]) if reached else -1

    found = candidates(record)
    for c in found:
        shares = [p["exploiter_win_share"] for p in c["probes"]]
        c["probe"] = round(sum(shares) / len(shares), 4)
        c["rung"] = top(c.pop("final_eval"))
    if rule == "last":
        return found[-1]
    floor = found[0]["rung"]
    able = [c for c in found if c["rung"] >= floor] or found
    return min(reversed(able), key=lambda c: c["probe"])


def _probes(agent: Path, out: Path, round_: int | str, probe_seeds: list[int],
            spec: dict[str, Any], players: int, threads: int, verbose: bool) -> list[dict]:
    """``machu exploit`` of ``agent`` with each seed (a finished probe is read, not run again):
    up to a core's worth at once, each in a process of its own with its share of the threads
    (a probe's small batches use few cores), else one by one."""
    from machu_env.train.ppo import sizing

    todo = [s for s in probe_seeds if not _finished(out / probe_folder(round_, s))]
    for s in todo:
        _say(verbose, f"rounds: round {round_}: probe seed {s} ({spec['probe_steps']:,} steps, "
                      f"then {spec['probe_games']:,} games)")
    jobs = [(str(agent), players, spec["probe_steps"], s, str(out / probe_folder(round_, s)),
             spec["probe_games"]) for s in todo]
    cores = threads or sizing.usable_cores()
    workers = min(len(jobs), cores)
    if workers > 1:  # (a stop signal ends the probes at once: core.processes)
        run_jobs(_probe_job, [(*job, cores // workers) for job in jobs], workers)
    else:
        for job in jobs:
            _probe_job((*job, threads))
    rows = []
    for seed in probe_seeds:
        summary = files.read_json(out / probe_folder(round_, seed) / "summary.json",
                                  PROBE_SUMMARY, links=False)
        rows.append({"seed": seed, "exploiter_win_share": summary["exploiter_win_share"],
                     "ci95": summary["ci95"], "exploiter_margin": summary["exploiter_margin"],
                     "exploiter": f"{probe_folder(round_, seed)}/exploiter.safetensors"})
        margin = rows[-1]["exploiter_margin"]
        _say(verbose, f"rounds: round {round_}: seed {seed}: the exploiter won "
                      f"{rows[-1]['exploiter_win_share']:.1%} (margin "
                      + (f"{margin:+.1f})" if margin is not None else "not measured)"))
    return rows


def _reuse_last_probes(out: Path, record: dict[str, Any], round_: int, probe_seeds: list[int],
                       verbose: bool) -> None:
    """A run resumed with room for more rounds: the last probes measured this round's start
    on this round's seeds, so their files are copied into the round's, not run again (each
    file whole or not at all, the summary last: a copy cut short reads as unfinished)."""
    last = record.get("last_probes") or {}
    if last.get("agent") != agent_file(round_ - 1) \
            or [p["seed"] for p in last.get("probes", [])] != probe_seeds:
        return
    for seed in probe_seeds:
        source, target = out / probe_folder("last", seed), out / probe_folder(round_, seed)
        if _finished(source) and not _finished(target):
            files.make_folder(target)
            names = [f.name for f in source.iterdir() if f.is_file() and not f.is_symlink()
                     and not f.name.startswith(".")]
            for name in sorted(names, key=lambda n: (n == "summary.json", n)):
                files.copy(source / name, target / name, policy_file.MAX_FILE_BYTES)
            _say(verbose, f"rounds: round {round_}: probe seed {seed} is the last probes' "
                          f"(the same agent and seed): {probe_folder('last', seed)}")


def _finished(folder: Path) -> bool:
    return (folder / "summary.json").is_file() and (folder / "exploiter.safetensors").is_file()


def _probe_job(job: tuple) -> None:
    """One probe (in this process or a spawned one): its threads, then ``exploit``."""
    from machu_env.train.ppo.ppo import set_threads
    from machu_env.train.probe import exploit

    agent, players, steps, seed, folder, games, threads = job
    if threads:
        set_threads(threads)
    exploit.exploit(f"policy:{agent}", players, steps=steps, seed=seed, out=folder,
                    eval_games=games, verbose=False)


def _say(verbose: bool, line: str) -> None:
    if verbose:
        print(line, flush=True)
