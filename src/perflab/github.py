"""Every GitHub REST call perflab makes: the sticky pull-request comment of ``perflab check
--comment github``.

One comment per pull request and benchmark, found again by a hidden marker in its body, so that
every push updates it instead of adding another. Three documented endpoints
(docs.github.com/rest/issues/comments; a pull request is an issue for comments):

- list the comments: ``GET /repos/{owner}/{repo}/issues/{number}/comments?per_page=100`` (200, a
  JSON array; further pages named by the ``Link`` header's ``rel="next"``);
- create one: ``POST /repos/{owner}/{repo}/issues/{number}/comments`` with ``{"body": ...}`` (201);
- update one: ``PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}`` with ``{"body": ...}`` (200).

The standard library's urllib is enough for three calls (no client library to install in CI).
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

API_VERSION = "2022-11-28"
DEFAULT_API = "https://api.github.com"
_NEXT_PAGE = re.compile(r'<([^>]+)>;\s*rel="next"')


class GitHubError(Exception):
    """A call that failed or a pull request that cannot be found; one line saying what to do."""


@dataclass(frozen=True)
class PullRequest:
    """Where the comment goes, and with what token (from the Actions environment)."""

    repository: str  # owner/name
    number: int
    token: str
    api: str = DEFAULT_API

    @classmethod
    def from_environment(cls, number: int | None, environ: dict[str, str] | None = None) -> PullRequest:
        """GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL and the number: ``number``, else the
        event's (GITHUB_EVENT_PATH, as a pull_request event writes it)."""
        environ = dict(os.environ if environ is None else environ)
        token = environ.get("GITHUB_TOKEN")
        repository = environ.get("GITHUB_REPOSITORY")
        if not token:
            raise GitHubError(
                "--comment github: GITHUB_TOKEN is not set; pass it to the step "
                "(env: GITHUB_TOKEN: ${{ github.token }}, with permissions: pull-requests: write)"
            )
        if not repository:
            raise GitHubError("--comment github: GITHUB_REPOSITORY (owner/name) is not set; GitHub Actions sets it")
        if repository.count("/") != 1 or not all(repository.split("/")):
            raise GitHubError(f"--comment github: GITHUB_REPOSITORY is {repository!r}, not owner/name")
        if number is None:
            number = _event_number(environ.get("GITHUB_EVENT_PATH"))
        return cls(repository, number, token, environ.get("GITHUB_API_URL") or DEFAULT_API)

    def upsert_comment(self, marker: str, body: str) -> str:
        """Update the comment holding ``marker`` (the first one), else create it; its web address."""
        found = next((c for c in self._comments() if marker in (c.get("body") or "")), None)
        if found is None:
            made = self._call("POST", f"/repos/{self.repository}/issues/{self.number}/comments", {"body": body})[0]
        else:
            made = self._call("PATCH", f"/repos/{self.repository}/issues/comments/{found['id']}", {"body": body})[0]
        return str(made.get("html_url", ""))

    def _comments(self) -> list[dict[str, Any]]:
        comments: list[dict[str, Any]] = []
        url: str | None = f"{self.api}/repos/{self.repository}/issues/{self.number}/comments?per_page=100"
        while url is not None:
            page, links = self._call("GET", url)
            comments += page
            found = _NEXT_PAGE.search(links)
            url = found.group(1) if found else None
        return comments

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> tuple[Any, str]:
        """The JSON answer and the ``Link`` header of one call (``path`` relative to the API, or whole)."""
        url = path if path.startswith(("http://", "https://")) else self.api + path
        request = urllib.request.Request(
            url,
            data=None if payload is None else json.dumps(payload).encode(),
            method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": "perflab",  # GitHub refuses requests without one
                **({"Content-Type": "application/json"} if payload is not None else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read() or b"null"), answer.headers.get("Link", "")
        except urllib.error.HTTPError as error:
            raise GitHubError(
                f"--comment github: {method} {url}: {error.code} {_message(error)}{_hint(error.code)}"
            ) from None
        except (urllib.error.URLError, OSError) as error:
            raise GitHubError(f"--comment github: {method} {url}: {getattr(error, 'reason', error)}") from None


def _event_number(event_path: str | None) -> int:
    """The pull request's number in the event that started the workflow."""
    try:
        event = json.loads(Path(event_path).read_text()) if event_path else {}
    except (OSError, ValueError) as error:
        raise GitHubError(f"--comment github: cannot read GITHUB_EVENT_PATH {event_path}: {error}") from None
    number = (event.get("pull_request") or {}).get("number") if isinstance(event, dict) else None
    if not isinstance(number, int):
        raise GitHubError(
            "--comment github: this workflow run is not for a pull request (no pull_request.number in "
            "GITHUB_EVENT_PATH); pass --pr NUMBER, or run the step on pull_request events only"
        )
    return number


def _message(error: urllib.error.HTTPError) -> str:
    """GitHub's own reason (its JSON's ``message``), else the status line's."""
    try:
        return str(json.loads(error.read()).get("message") or error.reason)
    except (ValueError, AttributeError, OSError):
        return str(error.reason)


def _hint(status: int) -> str:
    if status in (401, 403, 404):
        return " (the token needs permissions: pull-requests: write; a pull request from a fork gets a read-only token)"
    return ""
