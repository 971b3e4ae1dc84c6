"""Every shell command of the README and the docs (their ```bash blocks): in the default run, each
``machu`` command's options parse as written; with ``-m docs_commands`` (.ci/run: the
README's; ``MACHU_CI_FULL=1 .ci/run``: all), every block runs page by page, in order, in a
scratch folder, as written but smaller (the sizes in
``SMALLER``: a 10M-step training run takes 2,000 steps), so that a command that fails — or one
that needs an output an earlier command does not write — cannot land. What is never
run is listed in ``NOT_RUN`` with the reason."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# option -> divisor: the value run is max(1, value // divisor) (the order of sizes is kept: a
# resumed run still goes further than the run it resumes)
SMALLER = {"--timesteps": 5000, "--games": 100, "--mcts-iterations": 1000, "--iterations": 50,
           "--eval-every": 5000, "--snapshot-every": 5000, "--checkpoint-every": 10,
           "--eval-games": 50, "--steps": 5000, "--imitate-games": 40}
NEEDS = {"integrations.md": "minari"}  # a page whose commands need an extra's module
LEAST = {"--games": 6, "--eval-every": 1, "--eval-games": 4}  # (6: every seating of 3 agents)
NOT_RUN = {  # a command containing this is only parsed, never run: why
    "pip install": "installs packages: .ci/run runs the Quickstart's install commands themselves",
    "tensorboard": "a server that runs until it is stopped",
    "machu serve": "a server that runs until it is stopped: the browser tests start it (tests/web/"
                   "conftest.py) and play it",
    "--ray": "needs a Ray instance or cluster: tests/project/test_ray.py runs the same calls",
    "rllib_ppo": "RLlib training: tests/envs/test_rllib.py runs it",
    "rllib:": "needs the RLlib run above",
    "best-2p-rounds": "fourteen rounds of the recipe's size after the phases: "
                      "tests/train/test_recipe_rounds.py runs a small recipe with rounds",
}


def _commands(code: str) -> list[str]:
    """A bash block's commands: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            out.append(shlex.join(words))
    return out


BLOCKS = [(page.name, k, _commands(code)) for page in PAGES
          for k, code in enumerate(re.findall(r"```(?:bash|sh|shell)\n(.*?)```",
                                              page.read_text(), flags=re.S))]
COMMANDS = [c for _, _, commands in BLOCKS for c in commands]


def _smaller(command: str) -> str:
    """The command with every size of ``SMALLER`` divided (and a fresh ``machu train`` run's
    imitation of gold, 2,000 games by default, down to 50 games; a run that would go on until
    ``--stop-at`` is met, 2,000 steps: on a loaded machine it could take minutes)."""
    words = shlex.split(command)
    for i, word in enumerate(words[:-1]):
        if word in SMALLER and words[i + 1].isdigit():
            words[i + 1] = str(max(LEAST.get(word, 1), int(words[i + 1]) // SMALLER[word]))
    for i, word in enumerate(words[:-1]):
        if word == "machu" and words[i + 1] == "train" and "--imitate-games" not in words \
                and "--recipe" not in words:  # (a recipe sets its own; --timesteps budgets it)
            words[i + 2:i + 2] = ["--imitate-games", "50"]
        if word == "machu" and words[i + 1] == "train" and "--timesteps" not in words \
                and "--resume" not in words:  # a run until --stop-at: as long as a 10M run
            words[i + 2:i + 2] = ["--timesteps", str(10_000_000 // SMALLER["--timesteps"])]
    return shlex.join(words)


def _machu_parts(command: str) -> list[list[str]]:
    """The argument lists of the ``machu`` commands in a command line (``a && machu b``)."""
    parts, current = [], None
    for word in shlex.split(command):
        if word in ("&&", "||", ";", "|"):
            current = None
        elif current is None and word == "machu":
            current = []
            parts.append(current)
        elif current is not None:
            current.append(word)
    return parts


def test_the_docs_have_commands_and_every_size_option_is_a_machu_option():
    assert len(COMMANDS) >= 15
    from typer.main import get_command

    from machu_env.cli import app

    options = {o for c in get_command(app).commands.values() for p in c.params for o in p.opts}
    assert set(SMALLER) - {"--iterations", "--checkpoint-every"} <= options


@pytest.mark.parametrize("command", COMMANDS)
def test_every_documented_machu_command_parses(command, tmp_path, monkeypatch):
    """Unknown options, values out of range and missing arguments fail here, in the default
    run (files named by the command may not exist yet: that is the run's business)."""
    from typer.main import get_command

    from machu_env.cli import app, expand_args

    group = get_command(app)
    for args in _machu_parts(command):
        assert args[0] in group.commands, f"no command machu {args[0]}"
        args = expand_args(args)
        try:
            group.commands[args[0]].make_context(args[0], args[1:])
        except Exception as e:  # (click's exceptions, as typer vendors them)
            if type(e).__name__ != "BadParameter" or "does not exist" not in str(e):
                raise


@pytest.mark.docs_commands
@pytest.mark.parametrize("page", sorted({p for p, _, _ in BLOCKS}))
def test_every_documented_command_runs(page, tmp_path):
    """Every block of a page, in order, in one scratch folder: as written, sizes smaller."""
    if page in NEEDS:
        pytest.importorskip(NEEDS[page])
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # (commands that run an example)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    ran = 0
    for name, _, commands in BLOCKS:
        if name != page:
            continue
        for command in commands:
            if any(key in command for key in NOT_RUN):
                continue
            run = _smaller(command).replace("python ", f"{sys.executable} ", 1) \
                if command.startswith("python ") else _smaller(command)
            result = subprocess.run(run, shell=True, cwd=tmp_path, env=env, input="quit\n",
                                    capture_output=True, text=True, timeout=600)
            assert result.returncode == 0, (
                f"{page}: `{command}` (run as `{run}`) failed:\n{result.stdout[-2000:]}\n"
                f"{result.stderr[-2000:]}")
            ran += 1
    if not ran:
        pytest.skip(f"{page}: every command is in NOT_RUN")
