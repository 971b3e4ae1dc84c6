"""One game open in two tabs: the state counts every change (``changes``), a page finds out
that the game moved on from ``GET /api/games/{id}/version``, and a move or take-back sent with
the count a stale page showed (``after``) is refused with 409 and changes nothing. The page's
side is in test_browser_two_tabs.py."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from machu_env.web import Limits, create_app  # noqa: E402

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def client():
    with TestClient(create_app(limits=Limits(agent_seconds=600)), base_url=BASE) as c:
        yield c


def _new(client):
    r = client.post("/api/games", json={"num_players": 2, "seat": 0, "opponents": ["random"],
                                        "seed": 4})
    assert r.status_code == 201, r.text
    return r.json()


def _version(client, game_id):
    r = client.get(f"/api/games/{game_id}/version")
    assert r.status_code == 200 and set(r.json()) == {"changes", "over"}
    return r.json()["changes"]


def test_every_decision_counts_and_the_version_says_so(client):
    state = _new(client)
    gid, seen = state["id"], state["changes"]
    assert _version(client, gid) == seen == len(state["history"])
    after = client.post(f"/api/games/{gid}/play", json={"action": state["legal"][0]["id"],
                                                        "after": seen}).json()
    assert after["changes"] == _version(client, gid) == len(after["history"]) > seen
    assert client.get(f"/api/games/{gid}/version").json()["over"] is False
    unknown = client.get("/api/games/nope/version")
    assert unknown.status_code == 404 and "no such game" in unknown.json()["error"]


def test_a_move_from_a_page_that_fell_behind_is_refused_and_changes_nothing(client):
    state = _new(client)
    gid, stale = state["id"], state["changes"]
    first = state["legal"][0]["id"]
    moved = client.post(f"/api/games/{gid}/play", json={"action": first, "after": stale}).json()
    assert moved["your_turn"]  # (the agents replied: the other page's buttons look legal)
    r = client.post(f"/api/games/{gid}/play",
                    json={"action": moved["legal"][0]["id"], "after": stale})
    assert r.status_code == 409 and "moved on since this page showed it" in r.json()["error"]
    now = client.get(f"/api/games/{gid}").json()
    assert now["history"] == moved["history"] and now["changes"] == moved["changes"]
    r = client.post(f"/api/games/{gid}/take-back", json={"after": stale})
    assert r.status_code == 409 and "moved on" in r.json()["error"]
    for bad in ("3", 2.0, True, None):  # (None: as if no count was sent: then accepted)
        r = client.post(f"/api/games/{gid}/play", json={"action": 10**6, "after": bad})
        assert r.status_code == 400
        assert ('"after" must be' in r.json()["error"]) == (bad is not None), r.text
    assert client.get(f"/api/games/{gid}").json()["changes"] == moved["changes"]


def test_a_take_back_counts_as_a_change_and_takes_only_its_own_keys(client):
    state = _new(client)
    gid = state["id"]
    for _ in range(60):  # play until a decision of the turn may be taken back
        state = client.post(f"/api/games/{gid}/play",
                            json={"action": state["legal"][0]["id"], "advance": False,
                                  "after": state["changes"]}).json()
        if state["can_take_back"]:
            break
        if state["pending"]:
            state = client.post(f"/api/games/{gid}/advance", json={}).json()
    assert state["can_take_back"]
    r = client.post(f"/api/games/{gid}/take-back", json={"after": state["changes"], "x": 1})
    assert r.status_code == 400 and '{"after"' in r.json()["error"]
    back = client.post(f"/api/games/{gid}/take-back", json={"after": state["changes"]}).json()
    assert back["changes"] == state["changes"] + 1 == _version(client, gid)
    assert len(back["history"]) == len(state["history"]) - 1
