"""The catalogue of shipped agents (``machu agents``, ``machu_env.agents.catalogue``) and the
``best-<N>p`` aliases: every shipped file is described, the aliases name an agent of their player
count and work wherever an agent name goes, bad names are refused in words."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from machu_env import Game
from machu_env.agents import agent_names, catalogue, make_agent, shipped_policies
from machu_env.cli import app, main

ROWS = catalogue.catalogue()


def test_every_shipped_file_is_in_the_catalogue_with_its_facts_and_dated_figures():
    data = json.loads(catalogue.CATALOGUE.read_text())
    assert set(data["agents"]) == set(shipped_policies())  # no file undescribed, no ghost
    assert {r["name"] for r in ROWS} == set(shipped_policies())
    for r in ROWS:
        assert 2 <= r["players"] <= 5 and r["observation"] in (1, 2, 3)
        assert r["play"] == "argmax" and r["file_bytes"] == shipped_policies()[r["name"]] \
            .stat().st_size
        for key in catalogue.MEASURES:
            m = r[key]
            if m is not None:  # every figure says when and on what it was measured
                assert m["date"].startswith("2026-") and m["machine"] and "value" in m, (r, key)
        assert r["probe"] is not None and 0 < r["probe"]["value"] < 1


def test_one_recommended_agent_per_player_count_and_its_alias():
    aliases = catalogue.aliases()
    assert set(aliases) == {"best-2p", "best-3p", "best-4p", "best-5p"}
    for alias, name in aliases.items():
        row = next(r for r in ROWS if r["name"] == name)
        assert row["recommended"] and row["alias"] == alias
        assert row["players"] == int(alias[5])  # best-3p is a 3-player agent
    assert sum(r["recommended"] for r in ROWS) == 4
    assert set(aliases) <= set(agent_names())


def test_an_alias_plays_exactly_as_the_agent_it_names():
    alias, real = make_agent("best-2p", seed=3), make_agent(catalogue.resolve("best-2p"), seed=3)
    assert alias.name == "best-2p"
    game, decisions = Game(2, seed=5), 0
    while not game.is_over and decisions < 60:
        if game.current_player == 0:
            assert alias.act(game) == real.act(game)
            decisions += 1
        game.play(alias.act(game) if game.current_player == 0
                  else make_agent("gold", seed=1).act(game))
    assert decisions == 60


@pytest.mark.parametrize("name", ["best-6p", "best-1p", "best", "BEST-2P"])
def test_unknown_aliases_are_refused_naming_what_exists(name):
    with pytest.raises(ValueError, match="unknown agent") as e:
        make_agent(name)
    assert "best-2p" in str(e.value)


def test_the_alias_works_for_init_and_frozen():
    from machu_env.train.run.init_files import init_path

    assert init_path("best-3p") == shipped_policies()[catalogue.resolve("best-3p")]
    with pytest.raises(ValueError, match="neither a shipped agent"):
        init_path("best-9p")


def test_machu_agents_lists_every_agent_and_json_carries_every_figure():
    text = CliRunner().invoke(app, ["agents"], env={"COLUMNS": "100"})
    assert text.exit_code == 0, text.output
    for r in ROWS:
        assert r["name"] in text.output
    assert "best-2p = ppo-2p-race" in text.output.replace("\n", " ") or \
        f"best-2p = {catalogue.resolve('best-2p')}" in text.output
    out = CliRunner().invoke(app, ["agents", "--json", "--players", "3"])
    rows = json.loads(out.output)["agents"]
    assert rows and all(r["players"] == 3 for r in rows) and rows[0]["alias"] == "best-3p"
    assert rows[0]["probe"]["command"].startswith("machu exploit")


def test_machu_agents_is_a_line_per_agent_and_a_card_by_name(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line[:2] in ("* ", "  ") and "%" in line]
    assert len(out) <= 25 and len(rows) == len(ROWS), out
    assert "break-even 1/players" in out[-1]  # (the probe's, said once under the table)
    assert any(line.lstrip("* ").startswith(f"best-3p = {catalogue.resolve('best-3p')}")
               and line.split()[-1] == "best-3p" for line in out)  # the recipe
    assert main(["agents", "best-3p"]) == 0
    card = capsys.readouterr().out
    assert card.startswith(f"best-3p = {catalogue.resolve('best-3p')}")
    assert "rebuilt by: machu train --recipe best-3p" in card and "(1,000 games, 20" in card
    assert re.search(r"probe \d+\.\d % \(\d seeds?; break-even 33 %\), margin [+-]\d", card)
    assert main(["agents", "nobody"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no shipped agent 'nobody'" in err


def test_machu_agents_refuses_a_bad_player_count_in_one_line(capsys):
    assert main(["agents", "--players", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2-5" in err[0] and "Traceback" not in err[0]
    assert main(["agents", "--players", "7"]) == 2


def test_the_docs_table_is_the_catalogue():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "agents.md").read_text()
    shown = page.split("<!-- catalogue -->\n", 1)[1].split("\n<!-- /catalogue -->", 1)[0]
    assert shown == catalogue.markdown(), "run: python research/sweeps/catalogue_figures.py --table"
