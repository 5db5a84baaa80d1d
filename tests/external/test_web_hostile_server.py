"""The web view's hostile walk over real HTTP against a real `perflab serve` process (uvicorn): every
GET route with hostile ids and names, hostile mark bodies, a forged Host header and a cross-origin
write, on a store that also holds runs with impossible times. Every answer is a 4xx or better,
never a 5xx, and the server is still up and serving afterwards (issue 42)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

from support.served_web import serving
from support.web_hostile import HOSTILE_BODIES, HOSTILE_IDS, HOSTILE_NAMES, hostile_paths, hostile_store

from perflab.web.app import ServeSettings, create_app

TOKEN = "hostile-server-token-0123456789"


def status(request: urllib.request.Request) -> int:
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile-served") / "perflab.db"
    bad_ids = hostile_store(path)
    with serving(path, TOKEN) as url:
        yield path, bad_ids, url


def test_every_route_of_the_real_server_answers_hostile_input_without_a_server_error(served):
    path, bad_ids, url = served
    app = create_app(ServeSettings(path, token=TOKEN))  # for its routes only: requests go to the server
    stored = [*map(str, bad_ids), "1"]
    paths = hostile_paths(app, [*HOSTILE_IDS, *stored], HOSTILE_NAMES, stored)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    answers = {p: status(urllib.request.Request(url + p, headers=auth)) for p in paths}
    assert len(answers) > 150
    assert {p: code for p, code in answers.items() if code >= 500} == {}
    for body, kind in HOSTILE_BODIES:
        posted = urllib.request.Request(
            url + "/api/marks", data=body.encode("latin-1"), headers={**auth, "content-type": kind}, method="POST"
        )
        assert 400 <= status(posted) < 500, body[:40]
    # A DNS-rebinding page (another Host) and a cross-origin write are refused, not served.
    assert status(urllib.request.Request(url + "/", headers={**auth, "Host": "attacker.example"})) == 400
    cross = urllib.request.Request(
        url + "/api/marks",
        data=b'{"series": "x", "after": 1}',
        headers={**auth, "content-type": "application/json", "Origin": "http://attacker.example"},
        method="POST",
    )
    assert status(cross) == 403
    assert status(urllib.request.Request(url + "/", headers=auth)) == 200  # still up
