"""The ASGI app (Starlette): the JSON API's routes (``routes``) behind a trusted-host check,
with the state they share."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from machu_env._extras import install_hint
from machu_env.web.catalog import AgentCatalog
from machu_env.web.limits import Limits

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def allowed_hosts_for(host: str, extra: Sequence[str] = ()) -> list[str]:
    """The ``Host`` names a server on ``host`` answers: the local names, ``host`` itself (a
    wildcard address is no name) and the operator's ``extra`` names."""
    names = [*LOCAL_HOSTS, *extra]
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    return list(dict.fromkeys(names))


def create_app(allowed_hosts: Sequence[str] = LOCAL_HOSTS, agents_dir: str | Path | None = None,
               limits: Limits | None = None):
    """The ASGI app (Starlette): answers only requests whose ``Host`` is in ``allowed_hosts``;
    offers the agent files of ``agents_dir`` (if given) as ``policy:<file name>``. The
    endpoints are ``routes``'s; what they share is ``app.state.web``."""
    try:
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        from machu_env.web.routes import ROUTES, WebState
    except ImportError as e:
        raise ImportError(f"the web app needs the web extra ({e.name} is missing): "
                          + install_hint("web")) from None

    web = WebState(limits or Limits(), AgentCatalog(agents_dir))
    app = Starlette(routes=ROUTES, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))])
    app.state.web = web
    app.state.games = web.games  # for embedding and tests (no endpoint lists them)
    app.state.limits = web.limits
    return app
