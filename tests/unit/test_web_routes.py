"""The web view's routes through Starlette's TestClient, on a real SQLite store: pages, JSON
endpoints, marks, the token, security headers, escaping of hostile names, static files."""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

pytest.importorskip("starlette", reason="the web view needs perflab[web]")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Starlette asks for httpx2 over httpx; both drive the app the same way
    from starlette.testclient import TestClient

from support.store_results import synthetic_result
from support.web_routes_shared import client, store_path  # noqa: F401 - fixtures are found by name
from support.web_store import (
    EVIL_CASE,
    EVIL_CONTENDER,
    EVIL_SUBJECT,
    IMG,
    OTHER_MACHINE,
    RUNS,
    SCRIPT,
    STEP_AT,
    build_store,
)

from perflab.results.store import Store
from perflab.web import pages
from perflab.web.app import ServeSettings, create_app
from perflab.web.site import Links

TOKEN = "t" * 32


def series_ids(html: str) -> list[str]:
    return list(dict.fromkeys(re.findall(r'href="/series/([0-9a-f]{16})"', html)))


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def no_markup_from_users(html: str) -> None:
    """Hostile names appear only escaped, as a browser parses the page: no element or attribute came
    from them; every script is a file or inert JSON; no inline style or event handler anywhere."""
    assert SCRIPT not in html and IMG not in html
    parser = _Tags()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag != "img", attrs
        if tag == "script":
            assert (attrs.get("src") or "").startswith("/static/") or attrs.get("type") == "application/json", attrs
        assert not any(name == "style" or name.startswith("on") for name in attrs), (tag, attrs)


def store_path_run_of_other_benchmark(path) -> int:
    with Store.open(path) as store:
        return store.save(synthetic_result(benchmark="another", commit="d" * 40))


@pytest.fixture
def marked_store(tmp_path):
    path = tmp_path / "perflab.db"
    build_store(path)
    return path


def test_the_overview_lists_every_series_with_latest_value_and_change_point(client):
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    no_markup_from_users(html)
    assert len(series_ids(html)) == 5  # 2 cases x 2 contenders on one machine, 1 on the other
    assert "E&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;" in html
    assert html.count('data-regressed="true"') == 4 and re.search(r"\d\.\d\dx slower \[\d[\d.]*x, \d[\d.]*x\]", html)
    assert "Other CPU &lt;img" in html


@pytest.mark.parametrize(
    "query, expected",
    [
        ({"q": "small"}, 3),
        ({"q": "small base"}, 2),
        ({"q": "pwned"}, 3),
        ({"regressions": "1"}, 4),
        ({"q": "nothing-matches"}, 0),
    ],
)
def test_overview_filters_come_from_the_url(client, query, expected):
    html = client.get("/", params=query).text
    assert len(series_ids(html)) == expected
    assert f"{expected} of 5 shown" in html


def test_machine_and_interpreter_selectors_filter(client):
    rows = client.get("/api/series").json()["series"]
    other = next(r for r in rows if r["machine"].startswith("Other CPU"))
    assert len(series_ids(client.get("/", params={"machine": other["machine_id"]}).text)) == 1
    assert len(series_ids(client.get("/", params={"python": other["python_id"]}).text)) == 5
    assert [r["id"] for r in client.get("/api/series", params={"machine": other["machine_id"]}).json()["series"]] == [
        other["id"]
    ]


def test_the_series_page_and_its_json_hold_every_run_and_the_step(client, store_path):
    ids = store_path[1]
    rows = client.get("/api/series", params={"q": "SMALL base"}).json()["series"]
    row = next(r for r in rows if r["machine"] != OTHER_MACHINE["cpu_model"] and r["contender"] == "base")
    data = client.get(f"/api/series/{row['id']}").json()
    assert data["points"]["run"] == list(range(ids["first"], ids["last"] + 1)) and len(data["points"]["median"]) == RUNS
    assert all(
        lo <= m <= hi for lo, m, hi in zip(data["points"]["low"], data["points"]["median"], data["points"]["high"])
    )
    [change] = data["changes"]
    assert (change["before_run"], change["after_run"]) == (ids["before"], ids["after"])
    assert change["before_index"] == STEP_AT - 1 and change["after_index"] == STEP_AT
    assert 1.25 < change["low"] < change["ratio"] < change["high"] < 1.35 and change["slower"]
    assert data["points"]["subject"][STEP_AT] == EVIL_SUBJECT
    assert data["metrics"]["instructions"]["median"] == [1000.0] * STEP_AT + [1300.0] * (RUNS - STEP_AT)
    html = client.get(f"/series/{row['id']}").text
    for name in ("allocated", "peak"):  # memray's figures per call, with the step that doubled them
        [memory_step] = data["metrics"][name]["changes"]
        assert (memory_step["before_index"], memory_step["after_index"], memory_step["slower"]) == (
            STEP_AT - 1,
            STEP_AT,
            True,
        )
        assert (
            re.fullmatch(r"▲ (1\.99|2\.00)x more memory \[\1x, \1x\]", memory_step["text"])
            and data["metrics"][name]["unit"] == "bytes"
        )
    assert data["metrics"]["allocated"]["low"][0] == 4096 and data["metrics"]["allocated"]["high"][0] == 4096 + 16
    assert "Bytes allocated per call (memray" in html and "Bytes live at the calls&#39; peak (memray" in html
    assert (
        f"{data['points']['label'][STEP_AT - 1]} … {data['points']['label'][STEP_AT]}: ▲ 1.99x more memory [1.99x, 1.99x]"
        in html
    )  # as compare writes it
    no_markup_from_users(html)
    embedded = re.search(r'<script type="application/json" id="series-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in embedded and "\\u003c/script\\u003e" in embedded
    assert f'href="/profiles/diff/{ids["before"]}/{ids["after"]}/' in html


def test_unknown_ids_are_404_pages_not_errors(client):
    for path in (
        "/series/0123456789abcdef",
        "/runs/9999",
        "/compare/1/9999",
        "/profiles/1/abcdef012345",
        "/profiles/diff/1/2/abcdef012345",
    ):
        response = client.get(path)
        assert response.status_code == 404 and "Not here" in response.text, path
    assert client.get("/api/runs/9999").status_code == 404
    assert client.get("/runs/abc").status_code == 404


def test_the_run_page_shows_the_report_of_the_stored_run(client, store_path):
    run_id = store_path[1]["after"]
    html = client.get(f"/runs/{run_id}").text
    no_markup_from_users(html)
    assert "Verdicts" in html and "Equivalence" in html and "Run metadata" in html
    assert html.count('href="/series/') >= 4 and f'href="/profiles/{run_id}/' in html
    data = client.get(f"/api/runs/{run_id}").json()
    assert data["result"]["benchmark"] == "parse" and data["profiles"] == [{"case": "SMALL", "contender": "base"}]
    assert len(data["series"]) == 4


def test_comparing_two_runs_of_different_times_is_unpaired_and_says_what_differs(client, store_path):
    ids = store_path[1]
    data = client.get(f"/api/compare/{ids['before']}/{ids['after']}").json()
    assert data["paired"] is False and data["pairing"].startswith("unpaired")
    assert {(c["case"], c["contender"]) for c in data["cells"]} == {
        ("SMALL", "base"),
        (EVIL_CASE, "base"),
        ("SMALL", EVIL_CONTENDER),
        (EVIL_CASE, EVIL_CONTENDER),
    }
    for cell in data["cells"]:
        ratio = cell["ratio_b_over_a"]
        assert ratio["low"] < 1.3 * 1.02 and ratio["high"] > 1.3 * 0.98 and cell["verdict"] == "slower"
    [commit] = [d for d in data["differences"] if d["what"] == "commit"]
    assert EVIL_SUBJECT in commit["b"]
    html = client.get(f"/compare/{ids['before']}/{ids['after']}").text
    no_markup_from_users(html)
    assert "Unpaired" in html and re.search(r"1\.[23]\dx slower \[", html)  # B takes 1.3 times A's time


def test_two_sides_of_one_compare_are_compared_paired(tmp_path):
    result = synthetic_result(benchmark="sides", commit="a" * 40, processes=6)
    result.metadata.update(started_at="2026-01-01T00:00:00+00:00", command="perflab compare b.py --rev x --rev y")
    first = synthetic_result(benchmark="sides", commit="a" * 40, processes=6, seed=1)
    second = synthetic_result(benchmark="sides", commit="b" * 40, processes=6, seed=2, time=2e-5)
    for run, name in ((first, "x"), (second, "y")):
        run.metadata.update(
            started_at=result.metadata["started_at"], command=result.metadata["command"], compared_as=name
        )
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        a, b = store.save(first), store.save(second)
        c = store.save(synthetic_result(benchmark="sides", commit="c" * 40, seed=3))
    client = TestClient(create_app(ServeSettings(path)))
    paired = client.get(f"/api/compare/{a}/{b}").json()
    assert paired["paired"] is True and paired["pairing"].startswith("paired")
    [cell] = paired["cells"]
    assert cell["ratio_b_over_a"]["low"] < 2 < cell["ratio_b_over_a"]["high"] * 1.1
    assert client.get(f"/api/compare/{a}/{c}").json()["paired"] is False
    other = client.get(f"/api/compare/{a}/{store_path_run_of_other_benchmark(path)}")
    assert other.status_code == 404 and "only runs of one benchmark compare" in other.json()["error"]


def test_profiles_and_the_differential_profile_of_the_step(client, store_path):
    ids = store_path[1]
    run_html = client.get(f"/runs/{ids['after']}").text
    profile_href = re.search(rf'href="(/profiles/{ids["after"]}/[0-9a-f]+)"', run_html).group(1)
    html = client.get(profile_href).text
    no_markup_from_users(html)
    assert 'id="profile-data"' in html and 'src="/static/flamegraph.js"' in html
    cell = profile_href.rsplit("/", 1)[1]
    diff = client.get(f"/profiles/diff/{ids['before']}/{ids['after']}/{cell}").text
    no_markup_from_users(diff)
    assert "Differential flame graph" in diff and "window.pwned" in diff  # escaped, in the explanation
    assert client.get(f"/profiles/diff/{ids['first']}/{ids['after']}/{cell}").status_code == 404


def test_change_points_as_json_and_as_an_atom_feed(client):
    changes = client.get("/api/regressions").json()["changes"]
    assert len(changes) == 4 and all(c["open_regression"] and c["slower"] for c in changes)
    feed = client.get("/regressions.atom")
    assert feed.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(feed.text)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = root.findall("a:entry", ns)
    assert len(entries) == 4
    titles = [e.find("a:title", ns).text for e in entries]
    assert any(SCRIPT in title for title in titles)  # the hostile name survives as text, escaped in the XML
    assert all(e.find("a:link", ns).get("href").startswith("http://testserver/series/") for e in entries)
    no_markup_from_users(client.get("/regressions").text)


def test_security_headers_on_pages_json_static_and_errors(client):
    for path in ("/", "/api/series", "/static/web.css", "/runs/9999", "/static/nope.js"):
        headers = client.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "default-src 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e/%2e%2e/store.py",
        "/static//etc/passwd",
        "/static/vendor/../../app.py",
    ],
)
def test_no_path_traversal_through_static_files(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "import" not in response.text and "root:" not in response.text


def test_vendored_libraries_are_served_with_their_licences(client):
    for path in (
        "/static/vendor/htmx/htmx.min.js",
        "/static/vendor/htmx/LICENSE",
        "/static/vendor/uplot/uPlot.iife.min.js",
        "/static/vendor/uplot/LICENSE",
        "/static/vendor/uplot/uPlot.min.css",
    ):
        assert client.get(path).status_code == 200, path


def test_without_a_token_pages_read_and_marks_are_refused(client, store_path):
    [change] = [
        c for c in client.get("/api/regressions").json()["changes"] if c["case"] == "SMALL" and c["contender"] == "base"
    ]
    response = client.post(
        "/api/marks", data={"series": change["series"], "after": change["after"], "status": "ignored"}
    )
    assert response.status_code == 403 and "--token" in response.text
    assert not any(c["mark"] for c in client.get("/api/regressions").json()["changes"])


def test_with_a_token_every_request_needs_it_and_a_mark_is_stored(marked_store):
    client = TestClient(create_app(ServeSettings(marked_store, token=TOKEN)))
    assert client.get("/").status_code == 401
    assert client.get("/api/series", headers={"Authorization": "Bearer wrong"}).status_code == 401
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    change = client.get("/api/regressions", headers=bearer).json()["changes"][0]
    mark = {"series": change["series"], "after": change["after"], "status": "acknowledged", "note": f"ok {IMG}"}
    assert client.post("/api/marks", data=mark).status_code == 401
    assert client.post("/api/marks", data=mark, headers={**bearer, "Origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/marks", data={**mark, "status": "fixed"}, headers=bearer).status_code == 400
    assert client.post("/api/marks", data={**mark, "after": "nope"}, headers=bearer).status_code == 404
    assert (
        client.post(
            "/api/marks", content=b"x" * 5000, headers={**bearer, "Content-Type": "application/json"}
        ).status_code
        == 400
    )
    assert (
        client.post("/api/marks", content=b"[1, 2]", headers={**bearer, "Content-Type": "application/json"}).status_code
        == 400
    )
    stored = client.post("/api/marks", json=mark, headers=bearer)
    assert stored.status_code == 200 and stored.json()["status"] == "acknowledged"
    # the cookie route: ?token= once, then the cookie carries it
    login = client.get(f"/?token={TOKEN}&q=small", follow_redirects=False)
    assert login.status_code == 303 and login.headers["location"] == "/?q=small"
    assert (
        "httponly" in login.headers["set-cookie"].lower() and "samesite=strict" in login.headers["set-cookie"].lower()
    )
    after = client.get("/api/regressions").json()["changes"]
    [marked] = [c for c in after if c["series"] == change["series"]]
    assert marked["mark"]["status"] == "acknowledged" and marked["mark"]["note"] == f"ok {IMG}"
    assert not marked["open_regression"]
    assert client.get("/api/regressions", params={"open": "1"}).json()["changes"].__len__() == 3
    fragment = client.post("/api/marks", data={**mark, "status": "ignored"}, headers={"HX-Request": "true"}).text
    assert "ignored" in fragment and IMG not in fragment
    with Store.open(marked_store) as store:
        assert [m.status for m in store.change_marks()] == ["ignored"]


@pytest.mark.parametrize(
    ("headers", "allowed"),
    [
        ({}, True),  # no browser sent it: curl, a script with the bearer token
        ({"Origin": "http://testserver"}, True),
        ({"Origin": "http://evil.example"}, False),
        ({"Origin": "null"}, False),  # an opaque origin (a sandboxed frame, a data: page) is never this site
        (
            {"Sec-Fetch-Site": "same-origin", "Origin": "null"},
            True,
        ),  # a same-origin form under a strict referrer policy
        ({"Sec-Fetch-Site": "none"}, True),
        ({"Sec-Fetch-Site": "same-site", "Origin": "http://testserver"}, False),  # fetch metadata decides first
        ({"Sec-Fetch-Site": "cross-site"}, False),
    ],
)
def test_a_write_is_refused_unless_this_site_sent_it(marked_store, headers, allowed):
    client = TestClient(create_app(ServeSettings(marked_store, token=TOKEN)))
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    change = client.get("/api/regressions", headers=bearer).json()["changes"][0]
    mark = {"series": change["series"], "after": change["after"], "status": "acknowledged", "note": "n"}
    response = client.post("/api/marks", data=mark, headers={**bearer, **headers}, follow_redirects=False)
    assert (response.status_code == 303) is allowed and (response.status_code == 403) is not allowed


def test_a_loopback_server_refuses_other_host_names(store_path):
    client = TestClient(
        create_app(ServeSettings(store_path[0], allowed_hosts=("127.0.0.1", "localhost"))),
        base_url="http://127.0.0.1:8000",
    )
    assert client.get("/").status_code == 200
    assert client.get("/", headers={"Host": "attacker.example"}).status_code == 400


def test_the_server_never_writes_to_the_store_while_reading(store_path, tmp_path):
    import hashlib

    digest = lambda: hashlib.sha256(store_path[0].read_bytes()).hexdigest()
    first = digest()
    client = TestClient(create_app(ServeSettings(store_path[0])))
    for path in ("/", "/api/series", "/regressions", "/regressions.atom", "/api/regressions"):
        client.get(path)
    assert digest() == first


def test_a_stored_profile_answers_the_offload_what_if_its_query_asks(client, store_path):
    ids = store_path[1]
    run_html = client.get(f"/runs/{ids['after']}").text
    profile_href = re.search(rf'href="(/profiles/{ids["after"]}/[0-9a-f]+)"', run_html).group(1)
    plain = client.get(profile_href).text
    assert 'class="offload-form"' in plain and "<svg class='offload-chart'" not in plain
    # the hostile frame's own name as the pattern: matched, and escaped in the chart's title
    asked = client.get(profile_href, params={"offload": SCRIPT, "device": "pcie3x16", "transfer": "1KiB"})
    no_markup_from_users(asked.text)
    assert asked.status_code == 200 and "<svg class='offload-chart'" in asked.text
    assert "class='break-even'" in asked.text and "break-even 308 B" in asked.text
    assert 'name="transfer" value="1KiB"' in asked.text  # the form keeps the question asked
    wrong = client.get(profile_href, params={"offload": "tokenize", "device": "pcie3x1,speed=2"}).text
    assert "unknown setting &#39;speed&#39;" in wrong and "<svg class='offload-chart'" not in wrong
    missing = client.get(profile_href, params={"offload": "tokenize"}).text
    assert "needs --transfer BYTES" in missing
    # a published site is static files: no form that nothing would answer
    with Store.open(store_path[0]) as store:
        static = pages.profile(Links(static_site=True, depth=1), store, ids["after"], profile_href.rsplit("/", 1)[1])
    assert static is not None and 'id="profile-data"' in static and "offload-form" not in static


def test_a_series_of_two_runs_says_no_step_was_looked_for(tmp_path):
    path = tmp_path / "perflab.db"
    with Store.open(path) as store:
        for seed, (time, letter) in enumerate(((1e-5, "a"), (5e-5, "b"))):
            store.save(synthetic_result(benchmark="short", time=time, seed=seed, commit=letter * 40))
    client = TestClient(create_app(ServeSettings(path)))
    [series] = series_ids(client.get("/").text)
    html = client.get(f"/series/{series}").text
    assert "No change point looked for: 2 run(s), and a step needs 4 (2 on each side)." in html
    assert "one level" not in html
