"""The web app (machu_env.web) through Starlette's TestClient: whole games, records, replays,
bad input. The real-browser test is in test_browser.py."""

from __future__ import annotations

import base64
import gzip
import json
import threading
import time
from html import escape

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient  # noqa: E402

from machu_env import Game  # noqa: E402
from machu_env.core.records import replay  # noqa: E402
from machu_env.rules import layout as L  # noqa: E402
from machu_env.rules.data import CARDS  # noqa: E402
from machu_env.views.phrases import card_words  # noqa: E402
from machu_env.web import Limits, create_app  # noqa: E402

BASE = "http://127.0.0.1:8000"  # a Host the app answers by default
# agents think without the per-request cap (a cold numba cache compiles inside the first
# request); the cap itself is tested with its own limits
PATIENT = Limits(agent_seconds=600)


@pytest.fixture
def client():
    with TestClient(create_app(limits=PATIENT), base_url=BASE) as c:
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


def test_the_agent_list_carries_the_catalogue_and_the_aliases_play(client):
    """The opponent list reads the catalogue of ``machu agents``: names, aliases, ratings."""
    from machu_env.agents.catalogue import catalogue

    data = client.get("/api/agents").json()
    shipped = {r["name"]: r for r in data["catalogue"]}
    assert set(shipped) == {r["name"] for r in catalogue()}
    assert {"best-2p", "best-3p", "best-4p", "best-5p"} <= set(data["agents"]) \
        & set(data["policies"])
    assert shipped[catalogue(2)[0]["name"]]["alias"] == "best-2p"
    assert all(set(r) == {"name", "alias", "players", "recommended", "rating", "vs_gold",
                          "summary"} for r in data["catalogue"])  # no paths, no commands
    state = _new(client, num_players=2, seat=0, opponents=["best-2p"])
    assert state["agents"] == ["you", "best-2p"]
    hint = client.get(f"/api/games/{state['id']}/hint", params={"agent": "best-2p"})
    assert hint.status_code == 200 and hint.json()["agent"] == "best-2p"


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
    assert frames["num_frames"] == len(game.history) + 1 == len(frames["log"]) + 1
    boards = gzip.decompress(base64.b64decode(frames["frames_gz"])).decode().split("\0")
    assert len(boards) == frames["num_frames"] and all(b.startswith("<svg") for b in boards)
    assert frames["result"]["scores"] == state["scores"]


def _named(card: str, text: str) -> bool:
    """Whether ``text`` names ``card``: its notation ("llama+puma"), or its words as the page
    shows them ("llama & puma"; "llama &amp; puma" in the board's SVG)."""
    return any(form in text for form in (card, card_words(card), escape(card_words(card))))


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
    final = seen.pop()  # the end shows every hand, as at the table (R9): below
    assert final["scores"] is not None
    for state in seen:  # each state against the true game at that point
        while len(game.history) < len(state["history"]):
            p, action = record["actions"][len(game.history)]["player"], \
                record["actions"][len(game.history)]["action"]
            if p == 2 and action.startswith("return "):
                returned_by_me.add(action[7:])
            game.play(action)
        mine = set(game.view(2)["players"][2]["cards"]) | returned_by_me
        text = json.dumps(state)  # (the board, the history, the strip: everything sent)
        assert {c for c in CARDS if _named(c, text)} <= mine
        assert all(h["action"] == "return a card" for h in state["history"]
                   if h["player"] != 2 and h["action"].startswith("return"))
    for entry in record["actions"][len(game.history):]:
        game.play(entry["action"])
    hands = game.view(None)["players"]
    for p, row in enumerate(final["final"]):
        assert sum(row["vp_by"].values()) == row["vp"] == final["scores"][p]["vp"]
        assert row["cards"] == [card_words(c) for c in hands[p]["cards"]]
        assert all(_named(c, final["svg"]) for c in hands[p]["cards"])


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
        ("post", "/api/games/999/play", {"action": 0}, 404, "no such game"),
        ("get", "/api/games/nope", None, 404, "POST /api/games"),
        ("post", "/api/games", {"num_players": 7}, 400, "num_players"),
        ("post", "/api/games", {"num_players": 2, "seat": 2}, 400, "seat"),
        ("post", "/api/games", {"players": 2}, 400, "allowed: num_players, seat"),
        ("post", "/api/games", {"opponents": ["random", "gold"]}, 400, "list of 1 agent"),
        ("post", "/api/games", {"opponents": ["wizard"]}, 400,
         "'wizard': unknown agent; allowed: random"),
        ("post", "/api/games", {"opponents": ["policy:/x/evil.zip"]}, 400, "unknown agent"),
        ("post", "/api/games", {"seed": -1}, 400, "seed"),
        ("post", "/api/replay", {"format": "other"}, 400, "not a machu-env game record"),
    ]
    for method, path, body, status, message in cases:
        r = getattr(client, method)(path, json=body) if method == "post" else client.get(path)
        assert r.status_code == status, (path, body, r.text)
        assert message in r.json()["error"], (body, r.json())
    r = client.post(f"/api/games/{gid}/play", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == before  # nothing changed


def test_a_phone_asks_for_the_board_drawn_for_its_width(client):
    """The page's ``X-Board-Layout`` header picks the board picture: "phone" (as wide as the
    map, no players' panels) or "wide" (the default); another value is refused, naming the
    allowed ones, before the move it came with is played."""
    from machu_env.views.svg import PHONE_WIDTH, WIDTH

    state = _new(client)
    gid = state["id"]
    assert f'width="{WIDTH}"' in state["svg"] and 'id="player0"' in state["svg"]
    phone = client.get(f"/api/games/{gid}", headers={"X-Board-Layout": "phone"}).json()
    assert f'width="{PHONE_WIDTH}"' in phone["svg"] and 'id="player0"' not in phone["svg"]
    assert {k: v for k, v in phone.items() if k != "svg"} == {
        k: v for k, v in state.items() if k != "svg"}
    before = client.get(f"/api/games/{gid}").json()
    r = client.post(f"/api/games/{gid}/play", json={"action": state["legal"][0]["id"]},
                    headers={"X-Board-Layout": "tall"})
    assert r.status_code == 400
    assert r.json()["error"] == "X-Board-Layout must be one of wide, phone, not 'tall'"
    assert client.get(f"/api/games/{gid}").json() == before  # nothing played


def test_playing_after_the_end_or_out_of_turn_is_refused():
    from machu_env.web import Session

    app = create_app(limits=PATIENT)
    with TestClient(app, base_url=BASE) as client:
        state = _new(client)
        while not state["over"]:
            state = client.post(f"/api/games/{state['id']}/play",
                                json={"action": state["legal"][0]["id"]}).json()
        r = client.post(f"/api/games/{state['id']}/play", json={"action": 0})
        assert r.status_code == 409 and "over" in r.json()["error"]
    assert Session  # the session type is public for embedding


# --- what a hostile client cannot do ------------------------------------------------
def _finish(client, state):
    while not state["over"]:
        state = client.post(f"/api/games/{state['id']}/play",
                            json={"action": state["legal"][0]["id"]}).json()
    return state


def test_no_state_carries_the_seed_while_the_game_runs(client):
    r = client.post("/api/games", json={"num_players": 2, "opponents": "random"})
    states = [r.json()]
    assert "seed" not in states[0]
    states.append(_finish(client, states[0]))
    seed = client.get(f"/api/games/{states[0]['id']}/record").json()["options"]["seed"]
    assert isinstance(seed, int)  # the finished game's record may carry it ...
    for state in states:  # ... no state does, nor its decimal digits anywhere
        assert "seed" not in state and str(seed) not in json.dumps(state)


def test_game_ids_are_unguessable_and_never_listed(client):
    ids = [_new(client)["id"] for _ in range(3)]
    assert len(set(ids)) == 3 and all(len(i) >= 20 and not i.isdigit() for i in ids)
    r = client.get("/api/games/1")
    assert r.status_code == 404 and not any(i in r.text for i in ids)


def test_a_client_evicts_only_its_own_games():
    app = create_app(limits=Limits(agent_seconds=600, games=3, games_per_client=2,
                                   keep_seconds=0))
    alice = TestClient(app, base_url=BASE, client=("10.0.0.1", 1))
    bob = TestClient(app, base_url=BASE, client=("10.0.0.2", 1))
    mallory = TestClient(app, base_url=BASE, client=("10.0.0.3", 1))
    a1, a2 = _new(alice)["id"], _new(alice)["id"]
    b1 = _new(bob)["id"]
    for _ in range(5):  # mallory can neither evict them nor take the server over
        r = mallory.post("/api/games", json={"opponents": "random"})
        assert r.status_code == 503 and "maximum of 3 running games" in r.json()["error"]
    assert bob.get(f"/api/games/{b1}").status_code == 200
    a3 = _new(alice)["id"]  # alice's third game replaces her own least recently used
    r = alice.get(f"/api/games/{a1}")
    assert r.status_code == 410 and "replaced by a newer game of yours" in r.json()["error"]
    assert {alice.get(f"/api/games/{g}").status_code for g in (a2, a3)} == {200}
    assert bob.get(f"/api/games/{b1}").status_code == 200
    assert alice.get("/api/games/never-issued").status_code == 404


def test_a_game_in_use_is_never_replaced(client):
    """A client's new game past its share is refused (429, saying how to
    free one) while its games were used in the last minutes; none of them is dropped."""
    app = create_app(limits=Limits(agent_seconds=600, games_per_client=2))
    tab = TestClient(app, base_url=BASE, client=("10.0.0.9", 1))
    ids = [_new(tab)["id"], _new(tab)["id"]]
    r = tab.post("/api/games", json={"opponents": "random", "seed": 3})
    assert r.status_code == 429
    assert "you have 2 games running" in r.json()["error"] and "untouched for 10" in \
        r.json()["error"]
    assert {tab.get(f"/api/games/{g}").status_code for g in ids} == {200}


def test_finished_games_make_room_for_new_ones():
    """Finished games do not count against the running games' limit; their
    records stay downloadable, the oldest finished going first past their own bound."""
    app = create_app(limits=Limits(agent_seconds=600, games=2, games_per_client=2,
                                   finished_games=2))
    me = TestClient(app, base_url=BASE, client=("10.0.0.7", 1))
    done = []
    for k in range(4):  # four whole games although two running games fill the server
        state = _new(me, seed=10 + k)
        while not state["over"]:
            state = me.post(f"/api/games/{state['id']}/play",
                            json={"action": state["legal"][0]["id"]}).json()
        done.append(state["id"])
    assert me.get(f"/api/games/{done[-1]}/record").status_code == 200
    assert me.get(f"/api/games/{done[-2]}/record").status_code == 200
    r = me.get(f"/api/games/{done[0]}")  # past finished_games: the oldest went first
    assert r.status_code == 410 and "made room for newer finished games" in r.json()["error"]
    assert app.state.games.running() == 0


def test_cross_site_requests_and_foreign_hosts_are_refused(client):
    state = _new(client)
    gid, before = state["id"], client.get(f"/api/games/{state['id']}").json()
    action = json.dumps({"action": state["legal"][0]["id"]})
    cases = [  # (headers, status, message)
        ({"content-type": "text/plain", "origin": "http://evil.example"}, 415, "JSON"),
        ({"content-type": "application/x-www-form-urlencoded"}, 415, "JSON"),
        ({"content-type": "application/json", "origin": "http://evil.example"}, 403,
         "cross-origin"),
        ({"content-type": "application/json", "origin": "null"}, 403, "cross-origin"),
    ]
    for headers, status, message in cases:
        r = client.post(f"/api/games/{gid}/play", content=action, headers=headers)
        assert r.status_code == status and message in r.json()["error"], (headers, r.text)
    r = client.post("/api/games", content=b"{}", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    rebinding = client.get(f"/api/games/{gid}", headers={"host": "attacker.example"})
    assert rebinding.status_code == 400
    assert client.get(f"/api/games/{gid}").json() == before  # nothing changed
    same = client.post(f"/api/games/{gid}/play", content=action,
                       headers={"content-type": "application/json", "origin": BASE})
    assert same.status_code == 200  # the page's own requests work


def test_bodies_are_refused_past_the_limit_without_reading_them_whole(client):
    # a new game's body may hold a record to branch from: the record limit (2 MiB)
    big = b'{"num_players": 2, "pad": "' + b"x" * (2100 * 1024) + b'"}'
    r = client.post("/api/games", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "2097152 bytes" in r.json()["error"]
    game = _new(client)  # a move: 64 KiB
    big = b'{"action": "' + b"x" * (70 * 1024) + b'"}'
    r = client.post(f"/api/games/{game['id']}/play", content=big,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "65536 bytes" in r.json()["error"]

    # no Content-Length: the app reads the body in pieces and stops once past the limit
    # (driven through ASGI itself: the test client would read the whole body first)
    import asyncio

    received, sent = [], []

    async def receive():
        received.append(1)
        return {"type": "http.request", "body": b" " * 4096, "more_body": len(received) < 10**5}

    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": "POST", "path": "/api/games", "raw_path": b"/api/games",
             "query_string": b"", "root_path": "", "scheme": "http", "http_version": "1.1",
             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5),
             "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")]}
    asyncio.run(create_app(limits=PATIENT)(scope, receive, send))
    assert sent[0]["status"] == 413 and len(received) <= 513  # 2 MiB in 4 KiB pieces, + 1


def test_huge_json_integers_get_400_not_500(client):
    gid = _new(client)["id"]
    huge = b"1" * 5000
    for path, body in (("/api/games", b'{"seed": ' + huge + b"}"),
                       (f"/api/games/{gid}/play", b'{"action": ' + huge + b"}"),
                       ("/api/replay", b'{"format": "machu-env-record", "version": ' + huge
                        + b"}")):
        r = client.post(path, content=body, headers={"content-type": "application/json"})
        assert r.status_code == 400 and "not JSON" in r.json()["error"], (path, r.text)


def test_clients_name_agents_never_files(client, tmp_path):
    for name in ("policy:/etc/shadow", "policy:/proc/self/environ", "policy:/no/such.safetensors",
                 "search:policy:/etc/passwd", "rllib:/tmp", "policy:ppo_2p.safetensors"):
        r = client.post("/api/games", json={"opponents": name})
        assert r.status_code == 400
        message = r.json()["error"]  # the same answer whether the file exists or not
        assert message == (f"opponent {name!r}: unknown agent; allowed: "
                           + message.split("; allowed: ", 1)[1])
    import shutil

    from machu_env.agents import shipped_policies

    shutil.copy(shipped_policies()["ppo-2p"], tmp_path / "mine.safetensors")
    (tmp_path / "broken.safetensors").write_bytes(b"not a policy")
    with TestClient(create_app(agents_dir=tmp_path, limits=PATIENT), base_url=BASE) as c:
        assert "policy:mine.safetensors" in c.get("/api/agents").json()["agents"]
        for name in ("policy:mine.safetensors", "search:policy:mine.safetensors"):
            state = c.post("/api/games", json={"opponents": name}).json()
            assert state["agents"] == ["you", name] and str(tmp_path) not in json.dumps(state)
        r = c.post("/api/games", json={"opponents": "policy:broken.safetensors"})
        assert r.status_code == 400 and str(tmp_path) not in r.text


def test_replays_are_capped_and_packed(client):
    state = _finish(client, _new(client, seed=0))
    record = client.get(f"/api/games/{state['id']}/record").json()
    long = dict(record, actions=[{"player": 0, "action": "stay"}] * 5001, result=None)
    r = client.post("/api/replay", json=long)  # refused before any replay
    assert r.status_code == 413 and "at most 1000" in r.json()["error"]
    r = client.post("/api/replay", json=record)
    per_frame = len(r.content) / r.json()["num_frames"]
    assert per_frame < 8000, per_frame  # a drawn board is about 40 kB; packed about 4 kB
    with TestClient(create_app(limits=Limits(agent_seconds=600, replays=0)), base_url=BASE) as busy:
        r = busy.post("/api/replay", json=record)
        assert r.status_code == 503 and "try again" in r.json()["error"]


def test_a_record_download_waiting_for_a_game_does_not_freeze_the_server():
    app = create_app(limits=PATIENT)
    with TestClient(app, base_url=BASE) as client:
        state = _finish(client, _new(client))
        session = app.state.games.get(state["id"])
        session.lock.acquire()  # as while agents think
        threading.Timer(4.0, session.lock.release).start()
        waiting = threading.Thread(target=client.get, args=(f"/api/games/{state['id']}/record",))
        waiting.start()
        time.sleep(0.3)
        t = time.perf_counter()
        assert client.get("/api/agents").status_code == 200
        assert time.perf_counter() - t < 2.0  # not the 4 s the lock is held
        waiting.join()


def test_machu_serve_warms_the_engine_before_it_listens(monkeypatch):
    """The first client does not wait for numba: ``machu serve`` plays a game, draws a board and
    writes a record before it serves."""
    from typer.testing import CliRunner

    import machu_env.web as web
    from machu_env.cli import app

    order = []
    monkeypatch.setattr(web, "warm_up", lambda: order.append("warm") or 0.25)
    monkeypatch.setattr(web, "serve", lambda *a, **k: order.append("serve"))
    r = CliRunner().invoke(app, ["serve", "--port", "8765"])
    assert r.exit_code == 0, r.output
    assert order == ["warm", "serve"] and "engine ready in 0.2 s" in r.output


def test_warm_up_runs_what_a_game_in_the_app_needs():
    from machu_env.web import warm_up

    assert 0 < warm_up() < 600


def test_watch_mode_plays_agents_at_every_seat_one_decision_at_a_time(client):
    state = _new(client, num_players=3, seat=None, opponents=["gold", "random", "builder"])
    assert state["watch"] and state["seat"] is None and not state["your_turn"]
    assert state["history"] == [] and state["pending"]  # nothing moves until asked
    state = client.post(f"/api/games/{state['id']}/advance", json={"decisions": 1}).json()
    assert len(state["history"]) == 1 and state["agents"] == ["gold", "random", "builder"]
    assert "(hidden)" in state["svg"]  # the public view: no hand shown
    for _ in range(100):
        state = client.post(f"/api/games/{state['id']}/advance", json={"decisions": 50}).json()
        if state["over"]:
            break
    assert state["over"] and state["final"] is not None
    r = client.post("/api/games", json={"num_players": 3, "seat": None, "opponents": ["gold"]})
    assert r.status_code == 400 and "3 agent names" in r.json()["error"]


def test_your_move_first_then_the_agents_and_the_days_in_the_history(client):
    state = _new(client, num_players=3, opponents="random", seed=3)
    while not state["your_turn"]:
        state = client.post(f"/api/games/{state['id']}/advance", json={}).json()
    before = len(state["history"])
    mine = client.post(f"/api/games/{state['id']}/play",
                       json={"action": state["legal"][0]["id"], "advance": False}).json()
    assert len(mine["history"]) == before + 1 and mine["history"][-1]["agent"] == "you"
    assert mine["pending"] or mine["your_turn"]
    after = client.post(f"/api/games/{state['id']}/advance", json={}).json()
    assert after["your_turn"] or after["over"]
    assert all(h["day"] >= 1 for h in after["history"]) and after["phase"] in ("day", "night")
    days = [h["day"] for h in after["history"]]
    assert days == sorted(days)
    theirs = [h for h in after["history"] if h["agent"] != "you"][-1]
    assert escape(f"last: P{theirs['player']} {theirs['says']}") in after["svg"]
    for body, message in (({"action": 0, "advance": "no"}, "true or false"),
                          ({"action": 0, "x": 1}, "optionally")):
        r = client.post(f"/api/games/{state['id']}/play", json=body)
        assert r.status_code == 400 and message in r.json()["error"]
    r = client.post(f"/api/games/{state['id']}/advance", json={"decisions": 0})
    assert r.status_code == 400 and "decisions" in r.json()["error"]


def test_a_hint_gives_the_policys_probabilities_over_the_legal_actions(client):
    state = _new(client, opponents="random", seed=4)
    hint = client.get(f"/api/games/{state['id']}/hint", params={"agent": "ppo-2p"}).json()
    legal = {a["id"] for a in state["legal"]}
    assert hint["legal_probability"] == pytest.approx(1.0, abs=1e-4)
    assert {a["id"] for a in hint["actions"]} <= legal
    ps = [a["p"] for a in hint["actions"]]
    assert ps == sorted(ps, reverse=True) and isinstance(hint["value"], float)
    assert len(hint["actions"]) + hint["others"] == len(legal)
    for name in ("gold", "policy:/etc/passwd", "search:ppo-2p"):
        r = client.get(f"/api/games/{state['id']}/hint", params={"agent": name})
        assert r.status_code == 400 and "trained policy" in r.json()["error"]
    watched = _new(client, seat=None, opponents=["random", "random"])
    r = client.get(f"/api/games/{watched['id']}/hint", params={"agent": "ppo-2p"})
    assert r.status_code == 409 and "hidden cards" in r.json()["error"]


def test_the_words_on_the_buttons_tell_the_truth():
    """Every cost a button names is what playing it costs: market prices, a far move's
    llama, production, new Incas, priests (checked by playing each on a copy)."""
    import random
    import re

    from machu_env.rules.data import GOODS
    from machu_env.web.words import describe

    checked = set()
    for seed in range(12):
        game, rng = Game(3, seed=seed), random.Random(seed)
        while not game.is_over:
            p = game.current_player
            for a in game.legal_actions():
                verb, _, rest = a.partition(" ")
                says = describe(game, a)
                assert says and says != a
                if verb not in ("buy", "sell", "move", "produce", "place", "acquire") or (
                        verb == "move" and rest in ("llama_meadow", "condor_temple",
                                                    "puma_temple", "sun_temple",
                                                    "main_temple", "corn_terraces")):
                    continue
                twin = game.clone()
                was = twin.view(p)["players"][p]["goods"]
                twin.play(a)
                now = twin.view(p)["players"][p]["goods"]
                delta = {g: now[g] - was[g] for g in GOODS}
                # only while the turn goes on: its end pays trail rewards and the day's corn
                going_on = twin.decision == game.decision or (
                    verb in ("move", "acquire") and twin.decision not in (None, "move"))
                if not going_on and verb != "acquire":  # (a priest costs no corn or llama)
                    continue
                if verb in ("buy", "sell"):
                    price = int(re.search(r"for (\d+) corn", says).group(1))
                    assert delta["corn"] == (-price if verb == "buy" else price), (a, says)
                elif verb == "move":
                    assert delta["llama"] == (-1 if "pays 1 llama" in says else 0), (a, says)
                elif verb in ("place", "acquire"):
                    paid = re.search(r"pay (.*)\)", says).group(1)
                    for part in paid.split(" + "):
                        k, g = part.split(" ")
                        assert delta[g] == -int(k), (a, says)
                elif verb == "produce" and rest != "0":
                    n = int(rest)
                    if "corn (free)" in says:
                        assert delta["corn"] == 3 * n
                    else:
                        assert delta["corn"] == -n, (a, says)
                checked.add(verb)
            game.play(rng.choice(game.legal_action_ids()))
    assert checked == {"buy", "sell", "move", "produce", "place", "acquire"}


def test_save_an_unfinished_game_and_load_it_as_often_as_you_like(client):
    state = _new(client, num_players=3, opponents="random", seed=8)
    for _ in range(5):
        state = client.post(f"/api/games/{state['id']}/play",
                            json={"action": state["legal"][0]["id"]}).json()
    r = client.post(f"/api/games/{state['id']}/save", json={})
    assert r.status_code == 201 and "seed" not in r.text
    save = r.json()["save"]
    assert len(save) >= 20 and r.json()["decisions"] == len(state["history"])
    branches = [client.post("/api/games", json={"save": save}).json() for _ in range(2)]
    for b in branches:  # each a new game at the saved position
        assert b["id"] != state["id"] and b["history"] == state["history"]
        assert b["svg"] == state["svg"] and b["agents"] == state["agents"]
    one = client.post(f"/api/games/{branches[0]['id']}/play",
                      json={"action": branches[0]["legal"][0]["id"]}).json()
    assert len(one["history"]) > len(state["history"])
    again = client.get(f"/api/games/{branches[1]['id']}").json()
    assert again["history"] == state["history"]  # the other branch did not move
    for body, status, message in (({"save": "nope"}, 404, "no such saved position"),
                                  ({"save": save, "seat": 0}, 400, "alone")):
        r = client.post("/api/games", json=body)
        assert r.status_code == status and message in r.json()["error"]


def test_branch_from_any_position_of_a_record(client):
    game = Game(2, seed=12)
    rnd = __import__("random").Random(1)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    from machu_env.core.records import game_record

    record = game_record(game)
    k = len(game.history) // 2
    state = client.post("/api/games", json={"record": record, "at": k, "seat": 1,
                                            "opponents": "gold"}).json()
    assert [h["action"] for h in state["history"][:k]] == \
        [visible(a, p, 1) for p, a in game.history[:k]]
    assert len(state["history"]) >= k and not state["over"]
    for body, message in (({"record": record, "at": 10**6}, "at"),
                          ({"record": record}, '"at"'),
                          ({"record": {"format": "x"}, "at": 0}, "record"),
                          ({"record": record, "at": 1, "num_players": 2}, "record's players")):
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and message in r.json()["error"], r.json()


def visible(action, player, viewer):
    from machu_env.rules.actions import visible_notation

    return visible_notation(action, player, viewer)


def test_a_clients_saved_positions_are_bounded():
    from machu_env.web import Limits

    with TestClient(create_app(limits=Limits(agent_seconds=600, saves=3, saves_per_client=2)),
                    base_url=BASE) as c:
        game = _new(c)
        saves = [c.post(f"/api/games/{game['id']}/save", json={}).json()["save"]
                 for _ in range(3)]
        # the client's third save dropped its first
        assert c.post("/api/games", json={"save": saves[0]}).status_code == 410
        assert c.post("/api/games", json={"save": saves[2]}).status_code == 201


def _to_the_end(client, state):
    while not state["over"]:
        state = client.post(f"/api/games/{state['id']}/play",
                            json={"action": state["legal"][0]["id"]}).json()
    return state


def _deck_of(session) -> list[int]:
    from machu_env.rules import layout as L

    s = session.game.state
    return [int(s[L.DECK + (int(s[L.DECK_TOP]) + i) % len(CARDS)])
            for i in range(int(s[L.DECK_COUNT]))]


def test_a_loaded_save_deals_the_hidden_cards_anew_and_hides_the_seed():
    """A loaded save's record never holds the running original's seed, and
    every load deals what its player cannot see anew (the original's deck order stays secret)."""
    app = create_app(limits=PATIENT)
    with TestClient(app, base_url=BASE) as c:
        state = c.post("/api/games", json={"num_players": 3, "opponents": "random"}).json()
        for _ in range(12):  # the server drew the seed: the client does not know it
            state = c.post(f"/api/games/{state['id']}/play",
                           json={"action": state["legal"][0]["id"]}).json()
        original = app.state.games.get(state["id"])
        save = c.post(f"/api/games/{state['id']}/save", json={}).json()["save"]
        loads = [c.post("/api/games", json={"save": save}).json() for _ in range(3)]
        decks = [_deck_of(app.state.games.get(s["id"])) for s in loads]
        assert len({tuple(d) for d in decks}) == 3 and _deck_of(original) not in decks
        for s in loads:
            assert s["svg"] == state["svg"] and s["history"] == state["history"]
        end = _to_the_end(c, loads[0])
        text = c.get(f"/api/games/{end['id']}/record").text
        assert str(original.game.seed) not in text
        record = json.loads(text)
        assert record["options"]["seed"] is None and replay(record).scores() == end["scores"]
        assert not original.finished  # the original is still running, its deal unknown


def test_a_branch_deals_the_cards_its_seat_never_held_anew(client):
    game = Game(3, seed=14)
    rnd = __import__("random").Random(2)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    from machu_env.core.records import game_record

    record, k = game_record(game), 60
    at_k = game.initial()
    at_k.play_all(a for _, a in game.history[:k])
    app = client.app
    decks = []
    for _ in range(2):
        state = client.post("/api/games", json={"record": record, "at": k, "seat": 1,
                                                "opponents": "random"}).json()
        session = app.state.games.get(state["id"])
        decks.append(_deck_of(session))
        assert session.game.view(1)["players"][1] == at_k.view(1)["players"][1]
    assert decks[0] != decks[1]


def test_replays_send_each_agent_name_once(client):
    """Names are bounded (MAX_AGENT_NAME) and not repeated per decision."""
    from machu_env.core.records import MAX_AGENT_NAME, game_record

    game = Game(5, seed=3)
    rnd = __import__("random").Random(3)
    while not game.is_over:
        game.play(rnd.choice(game.legal_action_ids()))
    long_names = ["x" * MAX_AGENT_NAME] * 5
    r = client.post("/api/replay", json=game_record(game, long_names))
    assert r.status_code == 200
    data = r.json()
    assert data["agents"] == long_names and all("agent" not in e for e in data["log"])
    short = client.post("/api/replay", json=game_record(game, ["x"] * 5))
    assert len(r.content) - len(short.content) < 5 * MAX_AGENT_NAME  # not names x decisions
    record = game_record(game)
    record["agents"] = ["y" * (MAX_AGENT_NAME + 1)] * 5
    r = client.post("/api/replay", json=record)
    assert r.status_code == 400 and f"at most {MAX_AGENT_NAME}" in r.json()["error"]
    assert game_record(game, ["z" * 10_000] * 5)["agents"][0].__len__() == MAX_AGENT_NAME


def test_an_agents_failure_shows_no_legal_action(client):
    """An agent's failure is reported without its exception's text (at a
    summit return, the legal actions are the agent's hidden cards)."""
    state = _new(client, num_players=2, opponents="random", seed=4)
    session = client.app.state.games.get(state["id"])

    class Broken:
        name = "broken"

        def act(self, game):
            raise ValueError(f"no; legal: {', '.join(game.legal_actions())}")
    session.agents[1] = Broken()
    while state["your_turn"]:
        state = client.post(f"/api/games/{state['id']}/play",
                            json={"action": state["legal"][0]["id"]}).json()
    assert state["error"] and "failed (ValueError)" in state["error"]
    assert "legal" not in state["error"] and "return" not in state["error"]


def test_every_integer_the_page_reads_survives_javascript(client):
    """A server-drawn seed stays below 2**53, so a record downloaded from the
    app replays after a browser's JSON.parse (every number a double); a client's seed above it
    is refused, and a replayed record's larger seed is answered as a string."""
    state = _to_the_end(client, client.post("/api/games", json={"opponents": "random"}).json())
    text = client.get(f"/api/games/{state['id']}/record").text
    record = json.loads(text)
    record["options"]["seed"] = int(float(record["options"]["seed"]))  # a double, as JS reads
    assert replay(record).scores() == state["scores"]
    seeds = [client.app.state.games.get(client.post("/api/games", json={"opponents": "random"})
                                        .json()["id"]).game.seed for _ in range(15)]
    assert max(seeds) < 2**53 and len(set(seeds)) == 15  # (a client runs 16 at most)
    r = client.post("/api/games", json={"opponents": "random", "seed": 2**53})
    assert r.status_code == 400 and "seed must be an int in 0..9007199254740991" in r.text
    big = Game(2, seed=3661995451541600665)
    big.play(big.legal_action_ids()[0])
    from machu_env.core.records import game_record

    r = client.post("/api/replay", content=json.dumps(game_record(big)),
                    headers={"content-type": "application/json"})
    assert r.json()["seed"] == "3661995451541600665"


def test_the_page_draws_its_icons_without_an_emoji_font(client):
    """The winner's mark is an SVG cup, not an emoji (an empty box where no
    emoji font is installed): the page holds no character beyond the Basic Multilingual
    Plane's symbols."""
    page = client.get("/").text
    assert 'class="trophy"' in page
    assert not [c for c in page if ord(c) >= 0x1F000]


def test_the_clock_says_day_during_the_last_days_payouts():
    """On day 9 the moon tiles' and the Sun Clock's payouts come right after
    the stay or the placement (R7.5): it is no night; before day 9 they are the night's (R7)."""
    import random

    from machu_env.web import Session

    found = {}
    rng = random.Random(0)
    for seed in range(200):
        game = Game(2, seed=seed)
        while not game.is_over and len(found) < 2:
            if game.decision in ("take", "redeem"):
                key = "last" if game.day == 9 else "night"
                if key not in found:
                    session = Session(game.clone(), game.current_player, ["a", "b"], {})
                    session.days = [1] * len(game.history)
                    session.idle = [False] * len(game.history)
                    found[key] = session.state("x")["phase"]
            game.play(rng.choice(game.legal_action_ids()))
        if len(found) == 2:
            break
    assert found == {"last": "day", "night": "night"}


def test_the_running_standing_reveals_nothing_hidden(client):
    """The standing shows the human's own VP and gold and, for the others,
    only public counts and ranges over the cards the human cannot place: permuting every
    hidden card changes nothing in it, and the ranges hold the truth."""
    import random

    from helpers import hidden_permuted

    from machu_env.engine.scoring import gold, victory_points
    from machu_env.web.sessions import standing

    rng, checked = random.Random(3), 0
    for seed in range(3):
        game = Game(3, seed=seed)
        while not game.is_over:
            p = game.current_player
            if rng.random() < 0.1 and game.state[L.DECK_COUNT] > 1:
                rows = standing(game, p)
                assert rows == standing(hidden_permuted(game, rng), p)
                for r in rows:
                    if r["you"]:
                        assert (r["vp"], r["gold"]) == (victory_points(game._s, p),
                                                        gold(game._s, p))
                    else:
                        lo, hi = r["gold_range"]
                        assert lo <= gold(game._s, r["player"]) <= hi
                        assert victory_points(game._s, r["player"]) <= r["vp_max"]
                checked += 1
            game.play(rng.choice(game.legal_action_ids()))
    assert checked > 20
    state = _new(client)
    assert state["standing"] and sum(r["you"] for r in state["standing"]) == 1
    watched = client.post("/api/games", json={"seat": None, "opponents": "random"}).json()
    assert watched["standing"] is None


def test_a_move_that_gains_nothing_says_so_on_its_button_and_in_the_history():
    """A Prince move that ends the turn with nothing gained (the district worked today,
    nothing there the player can afford or use) says so before (its button, checked against
    the move played on a copy) and after (the history, for every player's such move)."""
    import random

    from machu_env.web.sessions import new_session
    from machu_env.web.words import IDLE_WORDS, NOTHING_GAINED, ONCE_A_DAY_IDLE, gained_nothing

    labelled = unlabelled = 0
    for seed in range(4):
        session = new_session({"num_players": 2, "seat": 0, "opponents": ["random"],
                               "seed": seed})
        rng = random.Random(seed)
        while not session.finished:
            session.advance()
            if session.finished:
                break
            state, game = session.state("x"), session.game
            for a in state["legal"]:
                if not a["action"].startswith("move "):
                    continue
                twin = game.clone()
                twin.play(a["action"])
                empty = gained_nothing(game.view(None), twin.view(None), 0, a["action"][5:])
                said = a["says"].endswith(NOTHING_GAINED) or a["says"].endswith(ONCE_A_DAY_IDLE)
                assert said == empty, a
                labelled += said
                unlabelled += not said
            session.play(rng.choice(state["legal"])["id"])
        history = session.state("x")["history"]
        for entry, idle in zip(history, session.idle, strict=True):
            assert entry["says"].endswith(IDLE_WORDS) == idle
            assert not idle or entry["action"].startswith("move ")
    assert labelled >= 10 and unlabelled >= 10


def test_the_page_gives_each_id_to_one_element():
    import re
    from pathlib import Path

    import machu_env.web

    page = (Path(machu_env.web.__file__).parent / "static" / "index.html").read_text()
    ids = [i for i in re.findall(r'\bid="([^"]+)"', page) if "${" not in i]  # (not templates)
    assert len(ids) > 50
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
