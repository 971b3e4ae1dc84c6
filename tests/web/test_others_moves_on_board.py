"""Every move the others made since yours is on the board until you move: the latest with its
thick outline and caption, the earlier ones outlined thin and dashed, each with its words as a
tooltip (``GET``/``POST`` states of ``machu serve``'s API); a watcher's board outlines the
latest move only."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from helpers import others_since  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from machu_env.views.svg import named_parts  # noqa: E402
from machu_env.web import Limits, create_app  # noqa: E402

BASE = "http://127.0.0.1:8000"


def test_the_others_moves_since_yours_are_outlined_until_you_move():
    with TestClient(create_app(limits=Limits(agent_seconds=600)), base_url=BASE) as client:
        state = client.post("/api/games", json={"num_players": 4, "seat": 0, "seed": 12,
                                                "opponents": ["random"] * 3}).json()
        checked = 0
        for _ in range(40):
            if state["over"]:
                break
            since = others_since(state["history"], 0)
            titles = re.findall(r'class="earlier"[^>]*><title>earlier: (P\d) ([^<]*)</title>',
                                state["svg"])
            last = since[-1] if since else None
            parts_of_last = set(named_parts(last["action"])) if last else set()
            want, drawn = [], set(parts_of_last)
            for e in since[:-1]:  # each earlier move with a part not outlined already
                fresh = [p for p in named_parts(e["action"]) if p not in drawn]
                drawn.update(fresh)
                want += [f"P{e['player']}"] * len(fresh)
            assert [p for p, _ in titles] == want, (titles, since)
            checked += bool(want)
            state = client.post(f"/api/games/{state['id']}/play",
                                json={"action": state["legal"][0]["id"]}).json()
        assert checked >= 3  # (several turns with earlier moves outlined)
        watched = client.post("/api/games", json={"num_players": 3, "seat": None, "seed": 3,
                                                  "opponents": ["random"] * 3}).json()
        assert 'class="earlier"' not in watched["svg"]
