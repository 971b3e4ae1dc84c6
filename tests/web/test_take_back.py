"""Take-back in the web app (``POST /api/games/{id}/take-back``): the human's own decisions of
the turn, while no other player has acted and no card came off the deck; refused in words
otherwise. The server enforces it, whatever the page shows."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

from machu_env.web import create_app  # noqa: E402
from machu_env.web.limits import Limits  # noqa: E402
from machu_env.web.sessions import new_session  # noqa: E402
from machu_env.web.store import BadRequest  # noqa: E402

BASE = "http://127.0.0.1:8000"


def _public(session):
    game = session.game
    return (game.view(session.seat), tuple(game.history), tuple(session.days),
            tuple(game.legal_action_ids()) if game.current_player == session.seat else ())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_take_back_restores_the_position_and_none_passes_a_draw_or_a_reply(seed):
    session = new_session({"num_players": 2, "seat": 0, "opponents": "random", "seed": seed})
    rng, taken, refused = random.Random(seed), 0, 0
    session.advance()
    while not session.finished:
        before = _public(session)
        deck = session.game.view("public")["deck_size"]
        replier = session.game.current_player
        session.play(rng.choice(session.game.legal_action_ids()))
        drew = session.game.view("public")["deck_size"] != deck
        assert bool(session.undo) == (replier == session.seat and not drew
                                      and not session.finished)
        if session.undo and rng.random() < 0.5:  # take it back: exactly the position before
            session.take_back()
            assert _public(session) == before
            taken += 1
            session.play(rng.choice(session.game.legal_action_ids()))
        session.advance()
        if session.game.current_player == session.seat and not session.undo \
                and not session.finished:
            with pytest.raises(BadRequest, match="until another player acts or a card"):
                session.take_back()
            refused += 1
    assert taken > 10 and refused > 10


def test_the_api_takes_back_within_the_turn_and_refuses_after_the_reply():
    with TestClient(create_app(limits=Limits(agent_seconds=600)), base_url=BASE) as client:
        state = client.post("/api/games", json={"num_players": 2, "seat": 0,
                                                "opponents": ["random"], "seed": 1}).json()
        assert state["can_take_back"] is False
        first = state
        r = client.post(f"/api/games/{state['id']}/play",
                        json={"action": state["legal"][0]["id"], "advance": False})
        state = r.json()
        assert state["can_take_back"] is True and len(state["history"]) == \
            len(first["history"]) + 1
        back = client.post(f"/api/games/{state['id']}/take-back", json={}).json()
        assert back["history"] == first["history"] and back["legal"] == first["legal"]
        assert back["svg"] == first["svg"]
        state = back
        again = client.post(f"/api/games/{state['id']}/take-back", json={})
        assert again.status_code == 409 and "nothing to take back" in again.json()["error"]
        bad = client.post(f"/api/games/{state['id']}/take-back", json={"n": 2})
        assert bad.status_code == 400 and "{}" in bad.json()["error"]
        # play on until the opponent has replied: nothing of the turn before can be undone
        while True:
            state = client.post(f"/api/games/{state['id']}/play",
                                json={"action": state["legal"][0]["id"]}).json()
            if any(h["player"] == 1 for h in state["history"]):
                break
        r = client.post(f"/api/games/{state['id']}/take-back", json={})
        assert r.status_code == 409 and "another player acts" in r.json()["error"]


def test_a_watched_game_has_nothing_to_take_back():
    with TestClient(create_app(), base_url=BASE) as client:
        state = client.post("/api/games", json={"num_players": 2, "seat": None,
                                                "opponents": ["random", "random"],
                                                "seed": 1}).json()
        r = client.post(f"/api/games/{state['id']}/take-back", json={})
        assert r.status_code == 409 and "watched game" in r.json()["error"]
