"""Play in the browser: a local web app (Starlette on uvicorn; the ``web`` extra).

    machu serve                                  # http://127.0.0.1:8000
    machu serve --agents-dir my_agents/          # also offer my_agents/*.safetensors
    machu serve --host 0.0.0.0 --allowed-host mybox.lan --port 8080

One static page (plain JavaScript, no build step, no CDN) over a small JSON API; ``create_app()``
returns the ASGI app (for tests and for embedding):

* ``GET /api/agents`` — the agent names that can be opponents (clients name agents, never
  files: ``policy:<file>`` only for the files of the folder the operator gave);
* ``POST /api/games`` ``{"num_players", "seat", "opponents": [names] or one name, "seed"}`` —
  a new game under a new unguessable id; the opponents move until it is the human's turn;
  answers the game's state;
* ``GET /api/games/{id}`` — the state: the board SVG as the human's seat sees it, the legal
  actions (ids and notation) when it is the human's turn, the history (another player's summit
  returns read ``return a card``: R10.2), and the scores once the game is over. No state holds
  the seed: it would re-create every hidden card;
* ``POST /api/games/{id}/play`` ``{"action": id or notation}`` — the human's decision, then the
  opponents' until the human's turn again; the new state;
* ``GET /api/games/{id}/record`` — the game record (JSON, ``machu replay`` reads it), once
  the game is over (it holds every player's summit returns and the seed);
* ``POST /api/replay`` (a game record, at most ``DEFAULT_MAX_DECISIONS`` decisions) — its
  log and every board, packed (``frames_gz``: ``replay_html.packed_replay``), for the replay
  view.

What a client may do is bounded (``Limits``): request bodies (size, total, time), running games
per client and in all (a game in use is never dropped; finished games make room), decisions per
game, agents' thinking per request, requests in progress per client, replays at a time.
Requests must be same-origin: a ``Host`` the server was started for (DNS rebinding), and POSTs
with ``Content-Type: application/json`` and an ``Origin`` that is absent or the served one
(cross-site forms).
Bad input (unknown game, illegal action, bad options, not your turn) gets HTTP 4xx with
``{"error": message}`` naming what is allowed, and changes nothing. Agents run in worker
threads (``mcts`` takes seconds), one decision at a time per game. The server never sends a
board or a history that shows another player's cards.

The modules: ``app`` (the app factory), ``routes`` (the endpoints, one handler each),
``sessions`` (a game in the app, new games, saves and branches), ``catalog`` (the agents a
client may name, hints), ``store`` (the games held), ``guards`` (what every request passes),
``limits``, ``server`` (uvicorn with connection limits, ``serve``), ``words`` (what a move does,
in words).
"""

from __future__ import annotations

from machu_env.web.app import LOCAL_HOSTS, allowed_hosts_for, create_app
from machu_env.web.catalog import AgentCatalog, policy_hint
from machu_env.web.limits import Limits
from machu_env.web.server import serve, warm_up
from machu_env.web.sessions import Saved, Session, load_saved, new_session, parse_new_game
from machu_env.web.store import BadRequest, GameStore

__all__ = ["LOCAL_HOSTS", "AgentCatalog", "BadRequest", "GameStore", "Limits", "Saved", "Session",
           "allowed_hosts_for", "create_app", "load_saved", "new_session", "parse_new_game",
           "policy_hint", "serve", "warm_up"]
