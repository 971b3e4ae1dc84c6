"""What one request, one client or all clients together can make the web app do."""

from __future__ import annotations

from dataclasses import dataclass

from machu_env.core.game import DEFAULT_MAX_DECISIONS


@dataclass(frozen=True)
class Limits:
    """What one request, one client or all clients together can make the server do."""

    body_bytes: int = 64 * 1024          # a request body (a move, new-game options)
    record_bytes: int = 2 * 2**20        # a record for the replay view (5,000 decisions: 0.3 MB)
    body_budget: int = 32 * 2**20        # request bodies being read at once, all clients
    body_seconds: float = 20.0           # a body not received in this time: 408
    games: int = 256                     # running games held in all (finished ones aside)
    games_per_client: int = 16           # running games of one client (address)
    keep_seconds: float = 600.0          # a client's game used this recently is never replaced
    idle_seconds: float = 3600.0         # a game untouched this long is dropped
    finished_games: int = 512            # finished games kept (records downloadable)
    finished_games_per_client: int = 32  # ... of them one client's (its oldest go first)
    finished_seconds: float = 1800.0     # ... for this long after their last use
    decisions: int = DEFAULT_MAX_DECISIONS  # a game reaching this ends truncated
    agent_seconds: float = 5.0           # agents' thinking per request; then "pending"
    requests_per_client: int = 8         # one client's requests in progress at once
    replays: int = 2                     # replays drawn at a time (others: 503, try again)
    replay_decisions: int = 1000         # a record drawn by /api/replay (a frame a decision,
    # 1.6 ms each; games of the heuristics last 100-300 decisions; machu replay draws any)
    saves: int = 256                     # saved positions held in all
    saves_per_client: int = 32           # a client's new save beyond this drops its oldest
