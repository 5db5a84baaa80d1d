"""``perflab serve``: the web view as a Starlette (ASGI) application.

Reads go through a read-only SQLite connection, one snapshot per request, so a run being written at
the same moment never shows half-stored on a page. The one write is a mark on a change point
(acknowledged / ignored), and only with the token.

Access: with a token, every request needs it (``Authorization: Bearer TOKEN``, or ``?token=TOKEN``
once, which sets an HttpOnly, SameSite=Strict cookie). Without one (only allowed on a loopback
address, or with ``--insecure-no-auth``), pages are readable and marks refused. On a loopback
address the Host header must name it (a DNS-rebinding page cannot read the store).
"""

from __future__ import annotations

import hmac
import json
import math
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.convertors import IntegerConvertor, register_url_convertor
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from perflab.results.store import ChangeMark, ImpossibleRun, Store, StoreError
from perflab.web import pages
from perflab.web.catalog import Catalog, Filters, all_changes
from perflab.web.run_pair import ComparisonError, compare_runs
from perflab.web.site import Links, change_entries, comparison_payload, run_payload, series_payload

COOKIE = "perflab_token"
MAX_NOTE = 500
MAX_BODY = 4096
# No inline script or style anywhere: data reaches scripts as <script type="application/json">.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    # not "no-referrer": under it a browser sends "Origin: null" with its own same-origin form posts,
    # and the cross-origin check below could not tell them from a foreign page's
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


@dataclass(frozen=True)
class ServeSettings:
    db: Path | str  # a SQLite file or a postgresql:// URL
    token: str | None = None  # None: reads open, marks refused
    allowed_hosts: tuple[str, ...] = ()  # Host header values accepted; empty: any


class _RunId(IntegerConvertor):
    """A run's id in a path: at most 18 digits (a store's ids are SQLite's and PostgreSQL's 64-bit
    integers), so that a longer number is a page that does not exist, not an overflow."""

    regex = "[0-9]{1,18}"


register_url_convertor("id", _RunId())


def create_app(settings: ServeSettings) -> Starlette:
    """The application for the store at ``settings.db`` (which must exist at the current schema)."""
    web = _Web(settings)
    routes = [
        Route("/", web.overview),
        Route("/series/{series_id}", web.series),
        Route("/runs/{run_id:id}", web.run),
        Route("/compare/{a:id}/{b:id}", web.compare),
        Route("/profiles/{run_id:id}/{cell}", web.profile),
        Route("/profiles/diff/{a:id}/{b:id}/{cell}", web.profile_diff),
        Route("/regressions", web.regressions),
        Route("/regressions.atom", web.feed),
        Route("/api/series", web.api_series),
        Route("/api/series/{series_id}", web.api_one_series),
        Route("/api/runs/{run_id:id}", web.api_run),
        Route("/api/compare/{a:id}/{b:id}", web.api_compare),
        Route("/api/regressions", web.api_regressions),
        Route("/api/marks", web.mark, methods=["POST"]),
        Mount(
            "/static",
            StaticFiles(packages=[("perflab.web", "static"), ("perflab.render.html", "assets")]),
            name="static",
        ),
    ]
    middleware = [Middleware(_SecurityHeaders), Middleware(_TokenAuth, token=settings.token)]
    if settings.allowed_hosts:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts)))
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={StoreError: _store_error, ImpossibleRun: _impossible_run},
        lifespan=web.lifespan,
    )


class _Web:
    """The endpoints; each reads one snapshot of the store."""

    def __init__(self, settings: ServeSettings) -> None:
        self.settings = settings
        self.catalog = Catalog()
        self.links = Links()

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """Find every series' change points before the first request (seconds for 100 series of a
        thousand runs), so that no visitor waits for them; later runs update only their series."""

        def warm() -> None:
            with self.reading() as store:
                self.catalog.series(store)

        await run_in_threadpool(warm)
        yield

    @contextmanager
    def reading(self) -> Iterator[Store]:
        with Store.open(self.settings.db, read_only=True) as store, store.snapshot():
            yield store

    # ---- pages ----------------------------------------------------------------------------------

    def overview(self, request: Request) -> Response:
        filters = _filters(request)
        with self.reading() as store:
            html = pages.overview(self.links, self.catalog.series(store), filters, self.can_mark)
        return HTMLResponse(html)

    def series(self, request: Request) -> Response:
        with self.reading() as store:
            series = self.catalog.get(store, request.path_params["series_id"])
            if series is None:
                return _not_found(self.links, "no such series (the store may have been replaced)")
            return HTMLResponse(pages.series(self.links, store, series, self.can_mark))

    def run(self, request: Request) -> Response:
        with self.reading() as store:
            run_id = request.path_params["run_id"]
            if store.run(run_id) is None:
                return _not_found(self.links, f"no stored run with id {run_id}")
            return HTMLResponse(pages.run(self.links, store, self.catalog.series(store), run_id))

    def compare(self, request: Request) -> Response:
        a, b = request.path_params["a"], request.path_params["b"]
        with self.reading() as store:
            try:
                return HTMLResponse(pages.comparison(self.links, store, compare_runs(store, a, b)))
            except ComparisonError as error:
                return _not_found(self.links, str(error))

    def profile(self, request: Request) -> Response:
        with self.reading() as store:
            params = request.path_params
            html = pages.profile(self.links, store, params["run_id"], params["cell"], request.query_params)
        return HTMLResponse(html) if html else _not_found(self.links, "no such stored profile")

    def profile_diff(self, request: Request) -> Response:
        params = request.path_params
        with self.reading() as store:
            html = pages.profile_diff(self.links, store, params["a"], params["b"], params["cell"])
        return HTMLResponse(html) if html else _not_found(self.links, "no stored profiles of this cell in both runs")

    def regressions(self, request: Request) -> Response:
        with self.reading() as store:
            return HTMLResponse(pages.regressions(self.links, self.catalog.series(store)))

    def feed(self, request: Request) -> Response:
        with self.reading() as store:
            xml = pages.feed(self.links, self.catalog.series(store), str(request.base_url).rstrip("/"))
        return Response(xml, media_type="application/atom+xml")

    # ---- JSON -----------------------------------------------------------------------------------

    def api_series(self, request: Request) -> Response:
        filters = _filters(request)
        with self.reading() as store:
            rows = [pages.summary(self.links, s) for s in self.catalog.series(store) if filters.keep(s)]
        return JSONResponse({"series": rows})

    def api_one_series(self, request: Request) -> Response:
        with self.reading() as store:
            series = self.catalog.get(store, request.path_params["series_id"])
            if series is None:
                return JSONResponse({"error": "no such series"}, status_code=404)
            return JSONResponse(
                _json_safe(series_payload(series, self.links, pages.metrics(store, series, self.links)))
            )

    def api_run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        with self.reading() as store:
            run = store.run(run_id)
            if run is None:
                return JSONResponse({"error": f"no stored run with id {run_id}"}, status_code=404)
            series = [s.key.id for s in self.catalog.series(store) if any(p.run_id == run_id for p in s.points)]
            payload = run_payload(run, store.result(run_id), series, store.profiles_of_run(run_id))
        return JSONResponse(_json_safe(payload))

    def api_compare(self, request: Request) -> Response:
        with self.reading() as store:
            try:
                comparison = compare_runs(store, request.path_params["a"], request.path_params["b"])
            except ComparisonError as error:
                return JSONResponse({"error": str(error)}, status_code=404)
        return JSONResponse(_json_safe(comparison_payload(comparison)))

    def api_regressions(self, request: Request) -> Response:
        with self.reading() as store:
            entries = change_entries(all_changes(self.catalog.series(store)), self.links)
        if request.query_params.get("open") == "1":
            entries = [e for e in entries if e["open_regression"]]
        return JSONResponse(_json_safe({"changes": entries}))

    # ---- the one write ----------------------------------------------------------------------------

    @property
    def can_mark(self) -> bool:
        return self.settings.token is not None

    async def mark(self, request: Request) -> Response:
        """Acknowledge or ignore a change point: form fields (or JSON) series, after, status, note."""
        if not self.can_mark:
            return PlainTextResponse(
                "marking change points needs a token: start perflab serve with --token (or PERFLAB_TOKEN)",
                status_code=403,
            )
        fields = await _mark_fields(request)
        if fields is None:
            return PlainTextResponse(
                f"expected series, after, status and note as a form or a JSON object (at most {MAX_BODY} bytes)",
                status_code=400,
            )
        series_id, after = str(fields.get("series", "")), str(fields.get("after", ""))
        status, note = str(fields.get("status", "")), str(fields.get("note", ""))[:MAX_NOTE]
        with self.reading() as store:
            series = self.catalog.get(store, series_id)
        change = next((c for c in series.changes if c.after.label == after), None) if series else None
        if series is None or change is None:
            return PlainTextResponse(f"no change point of series {series_id!r} at {after!r}", status_code=404)
        key = series.key
        try:
            with Store.open(self.settings.db, create=False) as writable:
                writable.mark_change(
                    ChangeMark(
                        key.benchmark, key.case, key.contender, key.machine_id, key.python_id, after, status, note
                    )
                )
        except StoreError as error:
            return PlainTextResponse(str(error), status_code=400)
        with self.reading() as store:
            series = self.catalog.get(store, series_id)
        if series is None:  # gone between the mark and this read: nothing to show but the mark
            return PlainTextResponse("marked", status_code=200)
        change = next(c for c in series.changes if c.after.label == after)
        if request.headers.get("hx-request"):
            return HTMLResponse(pages.mark_fragment(self.links, series, change, self.can_mark))
        if request.headers.get("content-type", "").startswith("application/json"):
            return JSONResponse({"series": series_id, "after": after, "status": status, "note": note})
        return RedirectResponse(self.links.series(series_id), status_code=303)


async def _mark_fields(request: Request) -> dict | None:
    """A small urlencoded form (what htmx posts) or JSON object; parsed here, so that no multipart
    parser is needed for four short fields."""
    body = await request.body()
    if len(body) > MAX_BODY:
        return None
    kind = request.headers.get("content-type", "")
    try:
        if kind.startswith("application/json"):
            fields = json.loads(body)
        elif kind.startswith("application/x-www-form-urlencoded"):
            fields = dict(parse_qsl(body.decode(), keep_blank_values=True))
        else:
            return None
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: a body of nested arrays
        return None
    return fields if isinstance(fields, dict) else None


def _filters(request: Request) -> Filters:
    q = request.query_params
    return Filters(q.get("q", "")[:200], q.get("regressions") == "1", q.get("machine", ""), q.get("python", ""))


def _not_found(links: Links, message: str) -> Response:
    return HTMLResponse(pages.error(links, message), status_code=404)


def _store_error(request: Request, error: Exception) -> Response:
    return HTMLResponse(pages.error(Links(), str(error)), status_code=503)


def _impossible_run(request: Request, error: Exception) -> Response:
    """A run the store holds but no page can show: the request named it, so 422, not a server error."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": str(error)}, status_code=422)
    return HTMLResponse(pages.error(Links(), str(error)), status_code=422)


def _json_safe(data):
    """JSON has no infinities or NaN: they become null."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _json_safe(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_json_safe(v) for v in data]
    return data


class _SecurityHeaders:
    """CSP and friends on every response (pages, JSON, static files, errors)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.decode().lower() not in SECURITY_HEADERS]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class _TokenAuth:
    """With a token: every request must carry it. Writes also need a same-origin request."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        if request.method not in ("GET", "HEAD") and not _same_origin(request):
            return await PlainTextResponse("cross-origin write refused", status_code=403)(scope, receive, send)
        if self.token is None:
            return await self.app(scope, receive, send)
        offered = request.query_params.get("token")
        if offered is not None and request.method == "GET" and self._valid(offered):
            rest = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
            response = RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(
                COOKIE, self.token, httponly=True, samesite="strict", secure=request.url.scheme == "https"
            )
            return await response(scope, receive, send)
        header = request.headers.get("authorization", "")
        bearer = header[7:] if header.lower().startswith("bearer ") else None
        if self._valid(bearer) or self._valid(request.cookies.get(COOKIE)):
            return await self.app(scope, receive, send)
        await PlainTextResponse(
            "this perflab serve needs its token: open any page once with ?token=TOKEN, or send "
            "'Authorization: Bearer TOKEN'",
            status_code=401,
        )(scope, receive, send)

    def _valid(self, offered: str | None) -> bool:
        return (
            offered is not None
            and self.token is not None
            and hmac.compare_digest(offered.encode(), self.token.encode())
        )


def _same_origin(request: Request) -> bool:
    """Fetch metadata first (every current browser sends Sec-Fetch-Site to https and loopback
    origins), then Origin; a request with neither came from no browser, so no page forged it."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")  # "none": typed by the user, not sent by a page
    origin = request.headers.get("origin")
    return origin is None or origin == f"{request.url.scheme}://{request.headers.get('host', '')}"
