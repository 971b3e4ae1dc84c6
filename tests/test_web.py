"""The web app (machu_env.web) through Starlette's TestClient: whole games, records, replays,
bad input. The real-browser test is in test_browser.py."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.data import CARDS  # noqa: E402
from machu_env.records import replay  # noqa: E402
from machu_env.web import create_app  # noqa: E402


@pytest.fixture
def client():
    with TestClient(create_app()) as c:
        yield c


def _new(client, **body):
    r = client.post("/api/games", json={"num_players": 2, "seat": 0, "opponents": ["random"],
                                        "seed": 1, **body})
    assert r.status_code == 201, r.text
    return r.json()


def test_the_page_and_the_agent_list_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script>" in page.text and "/api/games" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # no CDN, no network
    names = client.get("/api/agents").json()["agents"]
    assert {"random", "builder", "gold", "mcts"} <= set(names)


def test_a_whole_game_against_random_agents(client):
    state = _new(client, num_players=3, seat=1, opponents=["random", "gold"])
    assert state["agents"] == ["random", "you", "gold"]
    moves = 0
    while not state["over"]:
        assert state["your_turn"] and state["legal"] and state["current_player"] == 1
        assert state["svg"].startswith("<svg")
        pick = state["legal"][moves % len(state["legal"])]
        action = pick["id"] if moves % 2 else pick["action"]  # ids and notation both work
        r = client.post(f"/api/games/{state['id']}/play", json={"action": action})
        assert r.status_code == 200, r.text
        state = r.json()
        moves += 1
    assert moves > 10 and state["scores"] and state["legal"] == []
    assert state == client.get(f"/api/games/{state['id']}").json()
    record = client.get(f"/api/games/{state['id']}/record")
    assert "attachment" in record.headers["content-disposition"]
    game = replay(record.json())  # the download replays to the same end
    assert game.is_over and game.scores() == state["scores"]
    frames = client.post("/api/replay", json=record.json()).json()
    assert len(frames["frames"]) == len(game.history) + 1
    assert frames["result"]["scores"] == state["scores"]


def test_the_human_never_sees_another_players_cards(client):
    state = _new(client, num_players=4, seat=2, opponents="random", seed=5)
    r = client.get(f"/api/games/{state['id']}/record")
    assert r.status_code == 409 and "after the game" in r.json()["error"]  # no peeking
    seen = [state]
    while not state["over"]:
        state = client.post(f"/api/games/{state['id']}/play",
                            json={"action": state["legal"][0]["id"]}).json()
        seen.append(state)
    record = client.get(f"/api/games/{state['id']}/record").json()
    game = Game(4, seed=5)
    returned_by_me: set[str] = set()
    for state in seen:  # each state against the true game at that point
        while len(game.history) < len(state["history"]):
            p, action = record["actions"][len(game.history)]["player"], \
                record["actions"][len(game.history)]["action"]
            if p == 2 and action.startswith("return "):
                returned_by_me.add(action[7:])
            game.play(action)
        mine = set(game.view(2)["players"][2]["cards"]) | returned_by_me
        text = json.dumps({k: state[k] for k in ("svg", "history")})
        assert {c for c in CARDS if c in text} <= mine
        assert all(h["action"] == "return a card" for h in state["history"]
                   if h["player"] != 2 and h["action"].startswith("return"))


def test_bad_requests_get_4xx_naming_what_is_allowed_and_change_nothing(client):
    state = _new(client)
    gid = state["id"]
    before = client.get(f"/api/games/{gid}").json()
    cases = [
        ("post", f"/api/games/{gid}/play", {"action": "move nowhere"}, 400, "Legal actions"),
        ("post", f"/api/games/{gid}/play", {"action": 9999}, 400, "out of range"),
        ("post", f"/api/games/{gid}/play", {"action": 1.5}, 400, "action id (int)"),
        ("post", f"/api/games/{gid}/play", {"move": 1}, 400, '{"action"'),
        ("post", f"/api/games/{gid}/play", "text", 400, '{"action"'),
        ("post", "/api/games/999/play", {"action": 0}, 404, "no game '999'"),
        ("get", "/api/games/nope", None, 404, "POST /api/games"),
        ("post", "/api/games", {"num_players": 7}, 400, "num_players"),
        ("post", "/api/games", {"num_players": 2, "seat": 2}, 400, "seat"),
        ("post", "/api/games", {"players": 2}, 400, "allowed: num_players, seat"),
        ("post", "/api/games", {"opponents": ["random", "gold"]}, 400, "list of 1 agent"),
        ("post", "/api/games", {"opponents": ["wizard"]}, 400, "unknown agent 'wizard'"),
        ("post", "/api/games", {"opponents": ["policy:/x/evil.zip"]}, 400, "opponent"),
        ("post", "/api/games", {"seed": -1}, 400, "seed"),
        ("post", "/api/replay", {"format": "other"}, 400, "not a machu-env game record"),
    ]
    for method, path, body, status, message in cases:
        r = getattr(client, method)(path, json=body) if method == "post" else client.get(path)
        assert r.status_code == status, (path, body, r.text)
        assert message in r.json()["error"], (body, r.json())
    r = client.post(f"/api/games/{gid}/play", content=b"{not json")
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == before  # nothing changed


def test_playing_after_the_end_or_out_of_turn_is_refused():
    from machu_env.web import Session

    app = create_app()
    with TestClient(app) as client:
        state = _new(client)
        while not state["over"]:
            state = client.post(f"/api/games/{state['id']}/play",
                                json={"action": state["legal"][0]["id"]}).json()
        r = client.post(f"/api/games/{state['id']}/play", json={"action": 0})
        assert r.status_code == 409 and "over" in r.json()["error"]
    assert Session  # the session type is public for embedding
