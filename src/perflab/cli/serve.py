"""``perflab serve``: the web view of the results store (needs the ``perflab[web]`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support.options import EXIT_BAD_INPUT, EXIT_OK, add_verb, db_path, store_options
from perflab.credentials import mask_credentials

if TYPE_CHECKING:
    from rich.console import Console

TOKEN_VAR = "PERFLAB_TOKEN"


def register(verbs: argparse._SubParsersAction) -> None:
    serve = add_verb(
        verbs,
        "serve",
        "a web view of every stored run: series, change points, runs, comparisons, profiles (needs perflab[web])",
        "perflab serve                                   # http://127.0.0.1:8000, reads only",
        'perflab serve --token "$(openssl rand -hex 16)"  # marks on change points need the token',
        "PERFLAB_TOKEN=... perflab serve --host 0.0.0.0 --port 8080 --db team.db",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other address needs --token or --insecure-no-auth)",
    )
    serve.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000)")
    serve.add_argument(
        "--token",
        metavar="TOKEN",
        help=f"every request must carry it (default ${TOKEN_VAR}); needed to mark change points",
    )
    serve.add_argument(
        "--insecure-no-auth",
        action="store_true",
        help="listen on a non-loopback address without a token: anyone who can reach it reads the store",
    )
    store_options(serve, saves=False, of_benchmark=False)
    serve.set_defaults(handler=run)


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (1 to 65535)")
    return int(text)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def token_from(args: argparse.Namespace) -> str | None:
    token = args.token if args.token is not None else os.environ.get(TOKEN_VAR)
    return token or None


def web_store(args: argparse.Namespace, err: Console, verb: str) -> Path | str | None:
    """The store to show (``--db``, else the default), upgraded to the current schema once so that
    pages can then read it read-only; None (said on ``err``) when the extra or the store is missing."""
    from perflab.results.store import Store, StoreError

    missing = next((name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None), None)
    if missing:  # the perflab[web] extra
        err.print(
            f"perflab {verb}: error: {missing} is not installed: pip install 'perflab[web]'",
            markup=False,
            highlight=False,
        )
        return None
    path = db_path(args, None)
    try:
        Store.open(path, create=False).close()
    except StoreError as error:
        err.print(f"perflab {verb}: error: {error}", markup=False, highlight=False, soft_wrap=True)
        return None
    return path


def run(args: argparse.Namespace, err: Console) -> int:
    token = token_from(args)
    if token is not None and len(token) < 16:
        err.print(
            "perflab serve: error: --token must be at least 16 characters (e.g. `openssl rand -hex 16`)",
            markup=False,
            highlight=False,
        )
        return EXIT_BAD_INPUT
    loopback = is_loopback(args.host)
    if not loopback and token is None and not args.insecure_no_auth:
        err.print(
            f"perflab serve: error: --host {args.host} is reachable from other machines: pass --token (or set "
            f"{TOKEN_VAR}), or --insecure-no-auth to let anyone who can reach it read the store",
            markup=False,
            highlight=False,
        )
        return EXIT_BAD_INPUT
    path = web_store(args, err, "serve")
    if path is None:
        return EXIT_BAD_INPUT
    import uvicorn
    from rich.markup import escape

    from perflab.web.app import LOOPBACK_HOSTS, ServeSettings, create_app

    try:
        listening = _listen(args.host, args.port)
    except OSError as error:
        err.print(
            f"perflab serve: error: cannot listen on {_address(args.host, args.port)}: {os.strerror(error.errno) if error.errno else error} "
            "(another server there? pass another --port)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return EXIT_BAD_INPUT
    if not loopback and token is None:
        err.print(
            f"[bold red]WARNING: --insecure-no-auth: {escape(_address(args.host, args.port))} serves {escape(mask_credentials(str(path)))} "
            "to anyone who can reach it, without a token. Change points cannot be marked.[/]"
        )
    settings = ServeSettings(path, token, tuple(LOOPBACK_HOSTS) if loopback else ())
    err.print(
        f"perflab serve: {mask_credentials(str(path))} at {_address(args.host, args.port)}/"
        + (" (open it once with ?token=TOKEN)" if token else " (read only; --token allows marking change points)"),
        markup=False,
        highlight=False,
    )
    config = uvicorn.Config(create_app(settings), host=args.host, port=args.port, log_level="warning")
    uvicorn.Server(config).run(sockets=[listening])  # the socket bound above: no second bind to fail
    return EXIT_OK


def _address(host: str, port: int) -> str:
    """The URL of ``host:port``, an IPv6 address in brackets (``http://[::1]:8000``)."""
    bare = host.strip("[]")
    return f"http://[{bare}]:{port}" if ":" in bare else f"http://{host}:{port}"


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port``, bound before anything is said, so that a taken port is
    one line and exit 2 (uvicorn would print its serving line, then errno 98 and exit 3)."""
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    return socket.create_server((bare, port), family=family, reuse_port=False)
