"""A stand-in for GitHub's issue-comment REST endpoints, for the tests of ``check --comment github``.

GitHub cannot be reached from perflab's test machines. This is a real HTTP server (in a thread of
the test process) that checks the request shapes GitHub documents for issue comments
(docs.github.com/rest/issues/comments: list, create, update; a pull request is an issue) and
answers with the documented response shapes: comments as JSON objects with ``id``, ``body``,
``html_url``, ``user``; pages linked by the ``Link`` header; refusals as ``{"message": ...}``."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlparse

from perflab.github import API_VERSION

TOKEN = "ghs_test-token"
REPOSITORY = "octo/perf"


class FakeGitHub(http.server.ThreadingHTTPServer):
    """The three issue-comment endpoints of one repository, as documented, holding comments in memory."""

    def __init__(self, comments: dict[int, list[dict]], page_size: int = 100, refuse: int | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.comments, self.page_size, self.refuse = comments, page_size, refuse
        self.requests: list[tuple[str, str]] = []
        # Requests that broke the documented shapes (asserted empty by the tests: an assertion in
        # the server's thread would only close the connection).
        self.problems: list[str] = []
        self.next_id = 1000

    @property
    def api(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def comment(self, number: int, body: str) -> dict:
        self.next_id += 1
        return {
            "id": self.next_id,
            "node_id": f"IC_{self.next_id}",
            "url": f"{self.api}/repos/{REPOSITORY}/issues/comments/{self.next_id}",
            "html_url": f"https://github.com/{REPOSITORY}/pull/{number}#issuecomment-{self.next_id}",
            "issue_url": f"{self.api}/repos/{REPOSITORY}/issues/{number}",
            "body": body,
            "user": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "author_association": "NONE",
        }


class _Handler(http.server.BaseHTTPRequestHandler):
    server: FakeGitHub

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _answer(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _serve(self, answer: Callable[[], None]) -> None:
        try:
            answer()
        except AssertionError as problem:
            self.server.problems.append(f"{self.command} {self.path}: {problem}")
            self._answer(400, {"message": "Problems parsing JSON", "documentation_url": "https://docs.github.com/rest"})

    def _checked(self) -> bool:
        """The headers GitHub asks REST clients for; a refusal as GitHub words it."""
        self.server.requests.append((self.command, self.path))
        assert self.headers["Authorization"] == f"Bearer {TOKEN}", "Authorization: Bearer <token>"
        assert self.headers["Accept"] == "application/vnd.github+json", "Accept: application/vnd.github+json"
        assert self.headers["X-GitHub-Api-Version"] == API_VERSION, "X-GitHub-Api-Version"
        assert self.headers["User-Agent"], "a User-Agent"
        if self.server.refuse:
            self._answer(
                self.server.refuse,
                {
                    "message": "Resource not accessible by integration",
                    "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
                    "status": str(self.server.refuse),
                },
            )
            return False
        return True

    def _body(self) -> str:
        assert self.headers["Content-Type"] == "application/json"
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert set(payload) == {"body"} and isinstance(payload["body"], str), f"a JSON body of one string: {payload}"
        return payload["body"]

    def do_GET(self) -> None:
        self._serve(self._get)

    def _get(self) -> None:
        if not self._checked():
            return
        url = urlparse(self.path)
        found = re.fullmatch(rf"/repos/{REPOSITORY}/issues/(\d+)/comments", url.path)
        assert found, self.path
        query = parse_qs(url.query)
        per_page = int(query.get("per_page", ["30"])[0])
        assert per_page == 100, "per_page=100, the documented maximum"
        page = int(query.get("page", ["1"])[0])
        comments = self.server.comments.get(int(found.group(1)), [])
        size = min(per_page, self.server.page_size)
        headers = {}
        last = max(1, -(-len(comments) // size))
        if page < last:
            here = f"{self.server.api}{url.path}?per_page={per_page}"
            headers["Link"] = f'<{here}&page={page + 1}>; rel="next", <{here}&page={last}>; rel="last"'
        self._answer(200, comments[(page - 1) * size : page * size], headers)

    def do_POST(self) -> None:
        self._serve(self._post)

    def _post(self) -> None:
        if not self._checked():
            return
        found = re.fullmatch(rf"/repos/{REPOSITORY}/issues/(\d+)/comments", self.path)
        assert found, self.path
        number = int(found.group(1))
        made = self.server.comment(number, self._body())
        self.server.comments.setdefault(number, []).append(made)
        self._answer(201, made, {"Location": made["url"]})

    def do_PATCH(self) -> None:
        self._serve(self._patch)

    def _patch(self) -> None:
        if not self._checked():
            return
        found = re.fullmatch(rf"/repos/{REPOSITORY}/issues/comments/(\d+)", self.path)
        assert found, self.path
        body = self._body()
        for comments in self.server.comments.values():
            for comment in comments:
                if comment["id"] == int(found.group(1)):
                    comment["body"] = body
                    self._answer(200, comment)
                    return
        self._answer(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})


@contextmanager
def serving() -> Iterator[FakeGitHub]:
    """A FakeGitHub answering on a free local port until the block ends."""
    server = FakeGitHub({})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
