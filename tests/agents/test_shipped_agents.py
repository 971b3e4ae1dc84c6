"""The trained agents shipped in ``agents/checkpoints``: present, small, loadable by
name, and playing legal, strong games."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from typer.testing import CliRunner  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.agents import agent_names, make_agent, shipped_policies  # noqa: E402
from machu_env.agents.tournament import run_tournament  # noqa: E402
from machu_env.cli import app  # noqa: E402

SHIPPED = shipped_policies()


def test_the_two_player_agent_is_shipped_and_small():
    assert "ppo-2p" in SHIPPED
    for name, path in SHIPPED.items():
        assert path.stat().st_size <= 5 * 1024 * 1024, name
        assert name in agent_names()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agents_play_legal_games_by_name(name):
    players = int(name.split("-")[1][0])
    agent = make_agent(name, seed=1)
    assert agent.name == name
    others = [make_agent("gold", seed=p) for p in range(1, players)]
    game = Game(players, seed=3)
    while not game.is_over:
        p = game.current_player
        action = agent.act(game) if p == 0 else others[p - 1].act(game)
        assert action in game.legal_action_ids()
        game.play(action)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agents_beat_random_players(name):
    players = int(name.split("-")[1][0])
    s = run_tournament([name, *["random"] * (players - 1)], players, 12, seed=2,
                       progress=False)
    row = next(a for a in s["agents"] if a["agent"] == name)
    assert row["win_share"] >= 11 / 12, s


def test_machu_tournament_accepts_a_shipped_agent_by_name(tmp_path):
    r = CliRunner().invoke(app, ["tournament", "--agents", "ppo-2p,gold", "--players", "2",
                                 "--games", "4", "--workers", "1", "--no-progress",
                                 "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output[-2000:]
    assert "ppo-2p" in r.output
