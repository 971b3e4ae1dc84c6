"""A new user's first hour: ``help`` at the play prompt, a word when an agent is
seated at a player count it was not trained for or the seatings cannot be played evenly, and
``machu exploit``'s one-line verdict before its JSON. (The ETA and the ``--stop-at`` cadence:
tests/train/test_train_progress.py.)"""

from __future__ import annotations

import pytest
from rich.table import Table

from machu_env import Game
from machu_env.agents.tournament import seating_warnings, trained_for
from machu_env.cli import main
from machu_env.cli.playing import human_turn


def test_help_at_the_play_prompt_explains_the_choices_then_asks_again():
    game = Game(2, seed=1)
    answers, shown = iter(["help", "?", "2"]), []
    chosen = human_turn(game, lambda prompt: next(answers), shown.append)
    assert chosen == game.legal_actions()[1]
    helps = [t for t in shown if isinstance(t, Table) and str(t.title).startswith("Help")]
    assert len(helps) == 2 and helps[0].row_count == len(game.legal_actions())
    assert not any("not a legal action" in str(x) for x in shown)


def test_an_agent_at_a_player_count_it_was_not_trained_for_is_named():
    pytest.importorskip("torch")
    assert trained_for("best-3p") == 3 and trained_for("search:best-2p") == 2
    assert trained_for("gold") is None
    words = seating_warnings(["best-3p", "gold"], 2, 2)
    assert words == ["best-3p was trained for 3 players; it plays this 2-player game as it is "
                     "(weaker than at its own count)"]
    assert seating_warnings(["best-2p", "gold"], 2, 4) == []


def test_uneven_seatings_are_named(tmp_path, capsys):
    assert seating_warnings(["random", "gold", "builder"], 3, 5) == [
        "5 games over 6 seatings: some seatings are not played (a multiple of 6 plays each one "
        "equally)"]
    assert "not every seating is played equally often" in seating_warnings(
        ["random", "gold"], 2, 3)[0]
    code = main(["tournament", "--agents", "random,gold", "--players", "2", "--games", "3",
                 "--workers", "1", "--no-progress", "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 0 and "machu tournament: warning: 3 games over 2 seatings" in err


def test_exploit_ends_with_its_verdict_placed_among_the_shipped_probes(tmp_path, capsys,
                                                                       monkeypatch):
    pytest.importorskip("torch")
    import json

    import machu_env.train.probe.exploit as exploit
    from machu_env.train.probe import probe_verdict

    summary = {"agent": "gold", "players": 2, "steps": 212_992, "exploiter_win_share": 0.81,
               "ci95": [0.792, 0.827], "break_even": 0.5, "eval_games": 2000,
               "exploiter_margin": 21.37}
    monkeypatch.setattr(exploit, "exploit", lambda *a, **k: summary)
    code = main(["exploit", "--agent", "gold", "--steps", "200000"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and out[0] == (
        "verdict: the exploiter won 81.0% (95 % CI 79.2%-82.7%) of 2,000 games against gold "
        "(break-even 50%), margin +21.4 points: a fresh exploiter beats it more often than "
        "break-even")
    shipped = probe_verdict.shipped_probes(2)
    assert len(shipped) >= 3 and [v for _, v in shipped] == sorted(v for _, v in shipped)
    assert any(name.startswith("best-2p (") for name, _ in shipped)  # named by its alias too
    # a short probe is placed among nothing: compared with its like only
    assert "a short probe: 212,992 steps where the protocol trains 1,500,000" in out[1]
    assert "compare it only with probes of the same length" in out[1]
    assert not any("shipped agent" in line and "this one is" in line for line in out)
    assert "trained 212,992 steps: whole rollouts" in out[2] and "{" not in "".join(out)
    code = main(["exploit", "--agent", "gold", "--steps", "200000", "--json"])
    captured = capsys.readouterr()
    assert json.loads(captured.out)["exploiter_win_share"] == 0.81
    assert captured.err.startswith("verdict:")
    even = {**summary, "steps": 1_507_328, "exploiter_win_share": 0.51, "ci95": [0.49, 0.53],
            "member_starts": [{}, {}]}
    lines = probe_verdict.verdict(even, 1_500_000)
    assert lines[0].endswith("no exploiter found that beats it more often than break-even")
    assert lines[1].startswith("the shipped 2-player agents' probes (1.5M steps")
    assert "harder to exploit than every shipped agent" in lines[1]
    assert lines[-1].startswith("the best of 2 exploiters")


def test_compiling_is_said_part_by_part_and_done_once(monkeypatch, tmp_path):
    from machu_env.cli import warmup

    ran: list[str] = []
    monkeypatch.setattr(warmup, "PARTS", {"a": ("part a", lambda: ran.append("a")),
                                          "b": ("part b", lambda: ran.append("b"))})
    monkeypatch.setattr(warmup, "_mark", lambda part: tmp_path / f"warm-{part}")
    lines: list[str] = []
    warmup.compile_parts(["a", "b"], lines.append, workers=1)
    assert ran == ["a", "b"] and lines[0].startswith("compiling the game engine for this "
                                                     "machine (about a minute")
    assert "part a, part b" in lines[0] and lines[1].startswith("  kept in ")
    assert lines[2].startswith("  compiled part a (")
    assert lines[-1].startswith("the engine is compiled (")
    lines.clear()
    assert warmup.compile_parts(["a", "b"], lines.append, workers=1) == 0.0 and not lines
    assert warmup.missing(["a", "c"]) == ["c"]
    import time  # a slow part: a line at least every HEARTBEAT seconds meanwhile

    monkeypatch.setattr(warmup, "HEARTBEAT", 0.05)
    monkeypatch.setattr(warmup, "PARTS", {"c": ("part c", lambda: time.sleep(0.3))})
    warmup.compile_parts(["c"], lines.append, workers=1)
    still = [line for line in lines if line.startswith("  still compiling part c (")]
    assert len(still) >= 3, lines


def test_a_first_command_on_an_empty_cache_says_so_within_seconds(tmp_path):
    """A real ``machu tournament`` with an empty cache folder: its first line, at once, says
    that it compiles and for how long (the process is stopped there)."""
    import os
    import subprocess
    import sys
    import time

    env = {**os.environ, "MACHU_ENV_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("MACHU_ENV_WARMUP", None)
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", "import machu_launch; machu_launch.main()",
                             "tournament", "--agents", "random,gold", "--players", "2",
                             "--games", "2", "--workers", "1", "--no-progress", "--out",
                             str(tmp_path / "t")], stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = proc.stderr.readline()
        seconds = time.monotonic() - t0
    finally:
        proc.kill()
        proc.communicate()
    assert first.startswith("machu tournament: compiling the game engine for this machine "
                            "(about a minute"), first
    assert "the rules" in first and "the heuristic agents" in first
    assert seconds < 30  # (5 s on an idle 2-core machine; imports under load take longer)


def test_a_command_compiles_only_the_parts_its_run_uses():
    """A training run compiles the recorded play (the imitation's) only when it imitates a
    heuristic from fresh weights; a probe and a population never (benchmarks/compile_profile.py
    measured that each command's parts hold what its work touches)."""
    from machu_env.cli import warmup

    assert "recorded" in warmup.training_parts(True)
    assert "recorded" not in warmup.training_parts(False)
    assert set(warmup.training_parts(False)) == {"rules", "heuristics", "batch"}
    assert "recorded" not in warmup.NEEDS["exploit"] + warmup.NEEDS["population"]
    assert "recorded" in warmup.NEEDS["dataset"] and "pictures" in warmup.NEEDS["serve"]


def test_a_mark_whose_cache_files_are_gone_is_compiled_again(monkeypatch, tmp_path):
    from machu_env.cli import warmup

    monkeypatch.setattr(warmup, "_mark", lambda part: tmp_path / f"warm-{part}")
    monkeypatch.setattr("machu_env._cache.cache_dir", lambda: tmp_path)
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "flow.f-10.py311.nbi").write_bytes(b"index")
    (tmp_path / "warm-a").write_text("engine/flow.f-10.py311.nbi")
    assert warmup.missing(["a"]) == []
    (tmp_path / "engine" / "flow.f-10.py311.nbi").unlink()  # (a cache cleared by hand)
    assert warmup.missing(["a"]) == ["a"]
