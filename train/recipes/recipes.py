"""Recipes: one command that trains a shipped-class agent from scratch, every phase of it.

    machu train --recipe best-2p --out runs/best_2p            # 60 minutes, then stops
    machu train --recipe best-2p --out runs/best_2p --resume   # after an interrupt
    machu train --recipe best-2p --minutes 10 --seed 3 --out runs/short

A recipe is a data file (``recipe_files/<name>.json``; nothing in it runs)::

    {"format": "machu-env-recipe", "version": 1, "name": "best-2p", "players": 2,
     "summary": "...", "minutes": 60, "timesteps": 500000000,
     "defaults": {"observation": 2, "eval_agents": "ladder", ...},
     "phases": [{"name": "fast", "until": 0.1, "timesteps": 3000000,
                 "settings": {"stop_at": 0.95, ...}},
                {"name": "league", "until": 0.9, "settings": {"league": true, ...}}, ...]}

Each phase is a ``machu train`` run in ``OUT/<phase>/`` with the recipe's ``defaults`` and the
phase's own settings over them (any ``TrainConfig`` setting but the ones the runner owns:
``recipe_run.OWNED``); phase ``k > 0`` starts from phase ``k - 1``'s latest policy, and phase 0
from fresh weights (imitating a heuristic is allowed): no shipped agent's weights or games enter
a recipe run, and its settings may name the heuristics only (the strength ladder ``eval_agents``
is evaluation, never training). A phase ends at its own stop (``stop_at``, its ``timesteps``) or
when the run has used ``until`` of the time budget (``--minutes``, counted from the recipe's
start over every phase and resumed session) or of the step budget (``--timesteps``: a schedule
by steps, which a slower machine follows step for step), whichever comes first.
``OUT/recipe.json`` records the finished phases; ``--resume`` continues the first unfinished one
from its last whole checkpoint. The last phase's latest policy is written as
``OUT/agent.safetensors``, its metadata naming the recipe, the seed and the command; with
``"keep": "ladder"`` the checkpoint of any phase that did best on the strength ladder instead
(``ladder.best_on_ladder``: an evaluation, so the shipped agents still never enter training).
A recipe may name classes of machine and the batch settings each runs (``machines``:
``train.machines``), and end with rounds against its own exploiters (``rounds``:
``train.rounds``). ``"base": "<shipped recipe>"`` takes that recipe's keys under the file's own
(one level: the base has no base). A phase may train another number of ``players`` than the
recipe's (a curriculum: 3-player self-play, then the 4-player game); the last phase plays the
recipe's own count, and only its count's evaluations enter the ladder and ``keep``.
"""

from __future__ import annotations

import re
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from machu_env.agents import policy_file
from machu_env.core import files
from machu_env.train.probe import ladder
from machu_env.train.recipes import machines, recipe_folder, rounds
from machu_env.train.recipes.recipe_run import OWNED, RecipeRun
from machu_env.train.recipes.recipe_state import start_state
from machu_env.train.run import run_schemas
from machu_env.train.run.args import MAX_MINUTES

FOLDER = Path(__file__).resolve().parent / "recipe_files"
FORMAT = "machu-env-recipe"
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}", re.ASCII)
MAX_PHASES = 8
MAX_BYTES = 100_000  # a recipe file's largest size
HEURISTICS = ("random", "builder", "gold", "racer")
KEEP = ("last", "ladder")  # the recipe's agent: the last policy, or the best on the ladder


def names() -> list[str]:
    """The shipped recipes."""
    return sorted(p.stem for p in FOLDER.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    """The recipe ``name`` (a shipped recipe) or the recipe file at the path ``name``, checked:
    ValueError in words for anything that is not a well-formed recipe."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"recipe must name a shipped recipe ({', '.join(names())}) or a "
                         ".json recipe file")
    path = FOLDER / f"{name}.json" if NAME.fullmatch(name) else Path(name)
    if path.suffix != ".json" or not path.is_file():
        raise ValueError(f"recipe {name!r} is neither a shipped recipe ({', '.join(names())}) "
                         "nor an existing .json recipe file")
    data = files.read_json(path, limit=MAX_BYTES)
    return check(_with_base(data, str(path)), str(path))


def _with_base(data: Any, where: str) -> Any:
    """A recipe that names a ``base``: the shipped base recipe's keys under its own."""
    if not isinstance(data, dict) or "base" not in data:
        return data
    base = data["base"]
    if not isinstance(base, str) or base not in names() or base == data.get("name"):
        raise ValueError(f"{where}: base must name another shipped recipe ({', '.join(names())})"
                         f", got {base!r}")
    parent = files.read_json(FOLDER / f"{base}.json", limit=MAX_BYTES)
    if "base" in parent:
        raise ValueError(f"{where}: base {base!r} has a base itself; one level only")
    return {**parent, **{k: v for k, v in data.items() if k != "base"}}


def check(data: Any, where: str) -> dict[str, Any]:
    """A recipe's JSON, every field and phase setting checked (see the module)."""

    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != 1:
        raise ValueError(f"{where}: a recipe is a JSON object with format {FORMAT!r}, version 1")
    unknown = set(data) - {"format", "version", "name", "summary", "players", "minutes",
                           "timesteps", "phases", "keep", "defaults", "machines", "rounds"}
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    if data.get("keep", "last") not in KEEP:
        raise ValueError(f"{where}: keep must be one of {', '.join(KEEP)}, got "
                         f"{data.get('keep')!r}")
    if not isinstance(data.get("name"), str) or not NAME.fullmatch(data["name"]):
        raise ValueError(f"{where}: name must be 1-40 lowercase letters, digits and dashes")
    players = data.get("players")
    if players not in (2, 3, 4, 5) or isinstance(players, bool):
        raise ValueError(f"{where}: players must be 2, 3, 4 or 5, got {players!r}")
    for key, hi in (("minutes", MAX_MINUTES), ("timesteps", 10**10)):
        v = data.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v <= hi:
            raise ValueError(f"{where}: {key} must be a number in (0, {hi}], got {v!r}")
    phases = data.get("phases")
    if not isinstance(phases, list) or not 1 <= len(phases) <= MAX_PHASES:
        raise ValueError(f"{where}: phases must list 1..{MAX_PHASES} phases")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise ValueError(f"{where}: defaults must be a JSON object of settings every phase "
                         "starts from")
    seen, last = set(), 0.0
    for k, phase in enumerate(phases):
        here = f"{where}, phase {k}"
        if not isinstance(phase, dict) or not {"name", "until", "settings"} <= set(phase) \
                or not set(phase) <= {"name", "until", "settings", "timesteps", "players"}:
            raise ValueError(f"{here}: a phase is {{\"name\", \"until\", \"settings\"}} and "
                             "optionally \"timesteps\" (its own step cap) and \"players\"")
        count = phase.get("players", players)
        if count not in (2, 3, 4, 5) or isinstance(count, bool) or (
                k == len(phases) - 1 and count != players):
            raise ValueError(f"{here}: players must be 2, 3, 4 or 5 (the last phase's: the "
                             f"recipe's {players}), got {count!r}")
        cap = phase.get("timesteps", 1)
        if not isinstance(cap, int) or isinstance(cap, bool) or not 1 <= cap <= 10**10:
            raise ValueError(f"{here}: timesteps must be an int in 1..{10**10}, got {cap!r}")
        if not isinstance(phase["name"], str) or not NAME.fullmatch(phase["name"]) \
                or phase["name"] in seen:
            raise ValueError(f"{here}: name must be a new folder name of lowercase letters, "
                             "digits and dashes")
        seen.add(phase["name"])
        until = phase["until"]
        if not isinstance(until, (int, float)) or isinstance(until, bool) \
                or not last < until <= 1:
            raise ValueError(f"{here}: until must grow from phase to phase, in (0, 1], got "
                             f"{until!r}")
        last = until
        if not isinstance(phase["settings"], dict):
            raise ValueError(f"{here}: settings must be a JSON object")
        phase["settings"] = settings = {**defaults, **phase["settings"]}  # (its own win)
        _settings_ok(settings, here, count)
    if last != 1:
        raise ValueError(f"{where}: the last phase's until must be 1 (the whole budget)")
    if "rounds" in data:  # (its fine-tune's settings over the defaults, checked as a phase's)
        spec = rounds.check(data["rounds"], where, lambda s, here: _settings_ok(
            {**defaults, **s}, here, players))
        spec["settings"] = {**defaults, **spec.get("settings", {})}
    for machine in machines.check(data["machines"], where) if "machines" in data else []:
        for phase in phases:  # (each class's settings over each phase's: a valid run)
            _config({**phase["settings"], **machine["settings"]},
                    f"{where}, machine class {machine['name']}, phase {phase['name']}",
                    players=phase.get("players", players))
    return data


def _settings_ok(settings: dict[str, Any], here: str, players: int) -> None:
    """A phase's (or the rounds') settings: ``machu train`` settings the recipe may set, each
    of its type and value, training against heuristics and the run's own policies only."""
    from machu_env.train.run.config import TrainConfig

    settable = {f.name for f in fields(TrainConfig)}
    bad = sorted(k for k in settings if k not in settable or k in OWNED)
    if bad:
        raise ValueError(f"{here}: settings {bad} cannot be set by a recipe (not a setting "
                         f"of machu train, or one the runner owns: {', '.join(OWNED)})")
    _heuristics_only(_config(settings, here, players=players), here)


def _config(settings: dict[str, Any], where: str, **run: Any):
    """A ``TrainConfig`` of a phase's settings (each checked for its type) and the runner's."""
    from machu_env.train.run.config import TrainConfig
    from machu_env.train.run.settings import from_mapping

    values = from_mapping(TrainConfig, settings, where)
    config = TrainConfig(**{**values, **run})
    try:
        config.check()
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return config


def _heuristics_only(config, where: str) -> None:
    """The pool and the imitation teacher name heuristics (and ``self``) only."""
    from machu_env.core.opponent_pool import parse_pool

    pool = parse_pool(config.pool)
    others = sorted(set(pool) - {*HEURISTICS, "self"})
    if others or (config.imitate and config.imitate not in HEURISTICS):
        raise ValueError(f"{where}: a recipe trains against heuristics and itself only, got "
                         f"{others or config.imitate}")
    files_named = [n.strip() for n in config.eval_agents.split(",")
                   if n.strip().startswith("policy:")]
    if files_named:  # (a recipe is data: it names shipped agents, never a file)
        raise ValueError(f"{where}: eval_agents in a recipe names shipped agents or 'ladder' "
                         f"only, not a file: got {files_named[0]!r}")


def run(name: str, out: str | Path, resume: bool = False, verbose: bool = True,
        recipe: dict[str, Any] | None = None, **given: Any) -> dict[str, Any]:
    """Train the recipe ``name`` into ``out`` (see the module); returns the recipe's summary
    (also ``OUT/recipe.json``). ``given``: the fields of ``RecipeRun`` (the seed, the budgets,
    where the rollouts run, the machine class; each defaults to the recipe's or this
    machine's); ``recipe``: ``load(name)``, if the caller has it (the file is read once)."""
    from machu_env.ray_backend import joined

    options = RecipeRun.of(out, given)
    with joined(options.ray):
        return _run(name, options, resume, verbose, recipe or load(name))


def _machine(recipe: dict[str, Any], options: RecipeRun) -> tuple[str, str]:
    """The machine class the run uses and why (``machines.choose``) on this machine: the cores
    it may use (``--threads``, the Ray cluster's CPUs, the process's) and its device."""
    from machu_env.train.ppo import sizing

    if options.ray:
        from machu_env.ray_backend import cluster_cpus

        cores = cluster_cpus()
    else:
        cores = options.threads or sizing.usable_cores()
    device = options.device
    gpu = device.startswith("cuda") or (device == "auto" and sizing.gpu_name() is not None)
    return machines.choose(recipe, options.machine_class, cores, gpu)


def _run(name: str, options: RecipeRun, resume: bool, verbose: bool,
         recipe: dict[str, Any]) -> dict[str, Any]:
    from machu_env.core.checks import check_int

    check_int("seed", options.seed, 0, 2**32 - 1)
    minutes = float(options.minutes or recipe["minutes"])
    if not 0 < minutes <= MAX_MINUTES:
        raise ValueError(f"minutes must be in (0, {MAX_MINUTES}], got {options.minutes!r}")
    out = Path(options.out)
    klass, why = _machine(recipe, options)
    state = start_state(out / "recipe.json", recipe, options.seed, resume, name,
                        options.flags(), klass if "machines" in recipe else "")
    run_dir = recipe_folder.claim(out, recipe, resume)
    try:
        return _phases_and_rounds(recipe, name, options, state, klass, why, resume, verbose)
    except BaseException:
        run_dir.drop_if_unused()  # (a start that wrote nothing leaves no folder)
        raise


def _phases_and_rounds(recipe: dict[str, Any], name: str, options: RecipeRun,
                       state: dict[str, Any], klass: str, why: str, resume: bool,
                       verbose: bool) -> dict[str, Any]:
    """The phases not done yet, then the rounds (``_run``'s body, once the folder is the
    run's)."""
    from machu_env.train.run.selfplay import Trainer

    out, seed = Path(options.out), options.seed
    budget_minutes = float(options.minutes or recipe["minutes"])
    budget_steps = int(options.timesteps or recipe["timesteps"])
    state_path = out / "recipe.json"
    klass = _class_of_run(recipe, out, state, klass, why, resume, options.machine_class,
                          verbose)
    state.update(minutes=budget_minutes, timesteps=budget_steps, machine_class=klass)
    over = machines.settings_of(recipe, klass)
    t0 = time.perf_counter()
    for k, phase in enumerate(recipe["phases"]):
        if phase["name"] in state["done"]:
            continue
        folder = out / phase["name"]
        elapsed, steps = state["elapsed_seconds"], state["steps"]
        if (elapsed >= budget_minutes * 60 or steps >= budget_steps) and (
                k < len(recipe["phases"]) - 1 or _own_game_done(recipe, state)):
            continue  # the budget is spent: the phase is skipped (but the last phase trains a
            # rollout when no phase has played the recipe's own game: the run's agent)
        previous = next((p["name"] for p in reversed(recipe["phases"][:k])
                         if p["name"] in state["done"]), None)  # (a skipped phase left none)
        players = phase.get("players", recipe["players"])
        config = _config({**phase["settings"], **over}, f"{name}, phase {phase['name']}",
                         players=players, seed=seed, out=str(folder),
                         timesteps=phase_steps(budget_steps, steps, phase),
                         minutes=budget_minutes * phase["until"], recipe=name,
                         **options.machine(),
                         init=str(out / previous / "latest.safetensors") if previous else "")
        if verbose:
            by_steps = (f" or {int(budget_steps * phase['until']):,} steps of {budget_steps:,},"
                        " whichever comes first") if options.timesteps else ""
            print(f"recipe {recipe['name']}: phase {phase['name']}, {players} players (until "
                  f"{phase['until'] * budget_minutes:.0f} min of {budget_minutes:.0f}"
                  f"{by_steps})", flush=True)
        again = (folder / "latest.json").exists()
        trainer = Trainer(config, resume=again, verbose=verbose, elapsed=elapsed)
        trainer.rungs_before = frozenset(state.get("rungs", [])) if players == \
            recipe["players"] else frozenset(name for name, _ in ladder.ladder(players))
        if not state_path.exists():  # (the run's class, for a resume from its first phase)
            files.write_json(state_path, state)
        summary = trainer.run()
        if players == recipe["players"]:  # (another count's evaluations: another ladder)
            _add_rungs(state, trainer.history, players)
        state["done"].append(phase["name"])
        state["elapsed_seconds"] = round(trainer.elapsed_now(), 1)
        state["steps"] = steps + int(summary["timesteps"])
        state["phases"][phase["name"]] = {
            "timesteps": int(summary["timesteps"]), "ended_at_seconds": state["elapsed_seconds"],
            "final_eval": summary["final_eval"]}
        files.write_json(state_path, state)
    source = _phases_agent(recipe, out, state)
    state.get("rounds", {}).pop("kept", None)  # (chosen again below, after any new round)
    _write_agent(source, out / "agent.safetensors", state)
    if "rounds" in recipe:
        scale = budget_minutes / recipe["minutes"]
        tune = _tune(recipe["players"], name, over, state, options, verbose)
        source = rounds.run(recipe, out, state, tune, scale, options.threads, verbose,
                            lambda: files.write_json(state_path, state))
        _write_agent(source, out / "agent.safetensors", state)
    state["agent"] = str(out / "agent.safetensors")
    state["session_seconds"] = round(time.perf_counter() - t0, 1)
    files.write_json(state_path, state)
    return state


def _class_of_run(recipe: dict[str, Any], out: Path, state: dict[str, Any], klass: str,
                  why: str, resume: bool, machine_class: str, verbose: bool) -> str:
    """The machine class the run trains with (a resumed run: the one it started with), said
    in a line."""
    stored = state.get("machine_class", machines.BASE)
    if resume and stored != klass:
        if machine_class:
            raise ValueError(f"machine_class {machine_class!r}: {out} trains with the machine "
                             f"class {stored!r}; resume it with that class (or none)")
        klass, why = stored, "the run's own class (it started with it)"
    if verbose:
        over = machines.settings_of(recipe, klass)
        shown = ", ".join(f"{k} {v}" for k, v in over.items()) or "the phases' own settings"
        print(f"recipe {recipe['name']}: machine class {klass}, {why}: {shown}; "
              f"--machine-class picks another ({', '.join(machines.names(recipe))})",
              flush=True)
    return klass


def _own_game_done(recipe: dict[str, Any], state: dict[str, Any]) -> bool:
    """Whether a finished phase played the recipe's own player count."""
    return any(p["name"] in state["done"] and p.get("players", recipe["players"]) ==
               recipe["players"] for p in recipe["phases"])


def _phases_agent(recipe: dict[str, Any], out: Path, state: dict[str, Any]) -> Path:
    """The agent file the phases leave: the last phase's, or with ``"keep": "ladder"`` the
    evaluation that did best on the strength ladder (recorded as ``kept``)."""
    last = next((p["name"] for p in reversed(recipe["phases"]) if p["name"] in state["done"]),
                None)
    if last is None:
        raise ValueError(f"{out}: no phase of the recipe ran (the budget was spent)")
    if recipe.get("keep") != "ladder":
        return out / last / "latest.safetensors"
    done = {p["name"]: state["phases"][p["name"]]["timesteps"] for p in recipe["phases"]
            if p["name"] in state["done"]}
    own = [p["name"] for p in recipe["phases"]
           if p.get("players", recipe["players"]) == recipe["players"]]
    state["kept"] = ladder.best_on_ladder(out, done, recipe["players"], counted=own)
    return out / state["kept"]["file"]


def _add_rungs(state: dict[str, Any], history: list[dict[str, Any]], players: int) -> None:
    """The run's ``rungs``, with every rung an evaluation of ``history`` reached, in the
    ladder's order (weakest first)."""
    found = set(state.get("rungs", [])).union(*(ladder.reached(row, players) for row in history))
    order = [name for name, _ in ladder.ladder(players)]
    state["rungs"] = sorted(found, key=lambda n: (order.index(n) if n in order else len(order), n))


def _tune(players: int, name: str, over: dict[str, Any], state: dict[str, Any],
          options: RecipeRun, verbose: bool):
    """The rounds' fine-tune (``rounds.run``'s ``train``): a run of the rounds' settings (the
    machine class's over them) from ``init`` with ``frozen`` in the pool; a finished one is
    read, an interrupted one resumed. Its start is not evaluated again: it is the phases' or
    the previous round's last evaluated agent. ``elapsed``: the run's seconds before it, so
    that a rung it reaches first is said with the run's time (the rungs reached before: not
    again)."""
    from machu_env.train.run.selfplay import Trainer

    def train(settings: dict[str, Any], init: str, frozen: str, seed: int, folder: Path,
              steps: int, elapsed: float = 0.0) -> dict[str, Any]:
        if (folder / "summary.json").is_file():
            return files.read_json(folder / "summary.json", run_schemas.TUNE_SUMMARY,
                                   links=False)
        config = _config({**settings, **over}, f"{name}, rounds", players=players, seed=seed,
                         out=str(folder), timesteps=steps, init=init, frozen=frozen,
                         recipe=name, eval_start=False, **options.machine())
        trainer = Trainer(config, resume=(folder / "latest.json").exists(), verbose=verbose,
                          elapsed=elapsed)
        trainer.rungs_before = frozenset(state.get("rungs", []))
        summary = trainer.run()
        _add_rungs(state, trainer.history, players)
        return summary
    return train


def phase_steps(budget_steps: int, steps: int, phase: dict[str, Any]) -> int:
    """The steps ``phase`` may train after ``steps`` of the run: up to its ``until`` of the step
    budget (a schedule by steps, the same on any machine; the time budget's ``until`` ends it
    too, whichever comes first), its own ``timesteps``, the budget's end; at least one step
    (one rollout) when an earlier phase's last rollout ran past this one's share."""
    share = int(budget_steps * phase["until"]) - steps
    return max(1, min(budget_steps - steps, phase.get("timesteps", 10**10), share))


def _write_agent(source: Path, target: Path, state: dict[str, Any]) -> None:
    """The recipe's agent: the last phase's latest policy, its metadata naming the recipe."""
    tensors, config, info = policy_file.parse(policy_file.read_bytes(source), str(source))
    info = {**info, "recipe": state["recipe"], "seed": state["seed"],
            "command": state["command"], "recipe_phases": state["done"],
            **({"resumed_with": state["resumed_with"]} if state.get("resumed_with") else {}),
            "last_phase_timesteps": info.get("num_timesteps"), "num_timesteps": state["steps"],
            "machine_class": state.get("machine_class", machines.BASE)}
    if "kept" in state:  # the best evaluation on the ladder, not the last policy
        info.update(kept=state["kept"], num_timesteps=state["kept"]["timesteps"],
                    last_phase_timesteps=None)
    if "kept" in state.get("rounds", {}):  # a round's agent: its rounds' fine-tunes on top
        kept = state["rounds"]["kept"]
        info.update(rounds={"kept": kept, "rounds": len(state["rounds"]["done"])},
                    num_timesteps=info["num_timesteps"] + sum(
                        d["timesteps"] for d in state["rounds"]["done"][:kept["round"]]))
    policy_file.save(target, tensors, config, info, play={"temperature": 0})


def describe() -> str:
    """The shipped recipes, a line each (``machu train --help``)."""
    return "; ".join(f"{n}: {r['summary']} ({r['minutes']:g} min" + (
        f", then up to {r['rounds']['minutes']:g} min of rounds" if "rounds" in r else "") + ")"
        for n, r in ((n, load(n)) for n in names()))
