"""``machu serve``: the web app on this computer."""

from __future__ import annotations

from pathlib import Path

import typer

from machu_env.cli.commands import compile_first, console


# --- serve ---------------------------------------------------------------------------------------
def serve(
    host: str = typer.Option("127.0.0.1", help="the address to listen on (127.0.0.1: this "
                             "computer only)"),
    port: int = typer.Option(8000, min=1, max=65535, help="the port"),
    allowed_host: list[str] = typer.Option([], help="a host name the page may be opened by "
                                           "besides localhost and --host (repeatable; "
                                           "other Host headers are refused)"),
    agents_dir: Path | None = typer.Option(None, help="also offer the agent files "
                                           "(*.safetensors) of this folder, as "
                                           "policy:<file name>"),
    proxy_headers: bool = typer.Option(False, help="trust X-Forwarded-For from a reverse "
                                       "proxy on this computer (off: a local client could "
                                       "claim another client's address)"),
) -> None:
    """Play in the browser: a local web app (needs the web extra)."""
    import ipaddress
    import socket

    try:
        from machu_env.web import serve as run_server
    except ImportError as e:
        raise typer.BadParameter(str(e)) from None
    try:
        ipaddress.ip_address(host)
    except ValueError:
        try:
            socket.getaddrinfo(host, port)
        except OSError:
            raise typer.BadParameter(f"{host!r} is neither an IP address nor a name this "
                                     "computer resolves (e.g. 127.0.0.1, ::1, 0.0.0.0)",
                                     param_hint="--host") from None
    if agents_dir is not None and not agents_dir.is_dir():
        raise typer.BadParameter(f"{agents_dir} is not a folder", param_hint="--agents-dir")
    try:  # can we listen there? (uvicorn would print its own error and exit)
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as e:
        raise typer.BadParameter(f"cannot listen on {host}:{port}: {e.strerror}",
                                 param_hint="--host/--port") from None
    from machu_env.web import warm_up

    compile_first("serve")

    with console.status("warming the engine (the first start after an install compiles it; "
                        "later starts read numba's cache)"):
        seconds = warm_up()
    console.print(f"engine ready in {seconds:.1f} s")
    console.print(f"machu-env web app on http://{host}:{port} (Ctrl+C stops it)")
    try:
        run_server(host, port, allowed_host, agents_dir, proxy_headers=proxy_headers)
    except ImportError as e:
        raise typer.BadParameter(str(e)) from None
