"""The line heat map's source view (perflab profile --lines): the source kept when the profile is
taken (perflab.profile.sources), the per-line tables (perflab.profile.line_heat) and what the HTML
viewer gets of them (render/html/flamegraph.py)."""

import json
import re
import textwrap
from collections import Counter

import pytest

from perflab.profile import sources
from perflab.profile.line_heat import line_tables
from perflab.profile.model import Profile, merge_profiles
from perflab.profile.shares import frame_shares
from perflab.render.html import flamegraph

SOURCE = textwrap.dedent(
    '''
    import functools

    @functools.cache
    def work(n):
        """A hot line, a cold one and markup in a string literal."""
        total = sum(i * i for i in range(n))
        label = "</script><script>window.pwned=1</script>"
        return helper(total), label

    def helper(x):
        return x + 1
    '''
).lstrip("\n")
LINES = SOURCE.splitlines()
DEF, HOT, MARKUP, CALL = (
    next(number for number, text in enumerate(LINES, 1) if start in text)
    for start in ("def work", "total = sum", "label =", "return helper")
)


def frame(name: str, line: int) -> str:
    return f"{name} (<project>/bench.py:{line})"


def line_profile(tmp_path) -> Profile:
    """Two runs of ``work``: the hot line (and the genexpr under it), the call to ``helper``."""
    (tmp_path / "bench.py").write_text(SOURCE)
    hot, call = (frame("work", HOT), frame("<genexpr>", HOT)), (frame("work", CALL), frame("helper", CALL + 3))
    runs = [Counter({hot: 70, hot[:1]: 10, call: 20}), Counter({hot: 60, hot[:1]: 12, call: 25})]
    profile = Profile(runs, {"lines": True, "sampler": "py-spy"})
    profile.metadata["sources"] = sources.read_sources(profile, [(str(tmp_path), "<project>")])
    return profile


def test_the_source_of_each_sampled_function_is_kept_from_its_decorator_to_its_end(tmp_path):
    kept = {source["name"]: source for source in line_profile(tmp_path).metadata["sources"]}
    work = kept["work"]
    assert (work["file"], work["first"]) == ("<project>/bench.py", DEF - 1)  # the decorator's line
    assert work["lines"] == LINES[DEF - 2 : CALL]
    assert kept["helper"]["lines"] == LINES[CALL + 1 : CALL + 3]
    assert kept["<genexpr>"]["lines"][0] == LINES[HOT - 1 - sources.CONTEXT]  # no def: the sampled line with context


def test_a_later_edit_or_removal_of_the_file_does_not_change_the_view(tmp_path):
    profile = line_profile(tmp_path)
    before = line_tables(profile, frame_shares(profile.runs))
    (tmp_path / "bench.py").unlink()
    assert line_tables(profile, frame_shares(profile.runs)) == before


def test_line_shares_add_up_to_the_function_share_and_unsampled_lines_are_unmarked(tmp_path):
    profile = line_profile(tmp_path)
    tables = {table.name: table for table in line_tables(profile, frame_shares(profile.runs))}
    work = tables["work"]
    assert [row.number for row in work.rows] == list(range(DEF - 1, CALL + 1))
    sampled = [row for row in work.rows if row.share is not None]
    assert [row.number for row in sampled] == [HOT, CALL]
    assert sum(row.share.self.value for row in sampled) == pytest.approx(work.function.self.value, abs=1e-12)
    assert sum(row.share.total.value for row in sampled) == pytest.approx(work.function.total.value, abs=1e-12)
    assert work.function.total.value == pytest.approx(1.0)  # work is on every stack
    unmarked = [row for row in work.rows if row.share is None]
    assert unmarked and all(row.heat == 0 for row in unmarked)
    assert {row.number for row in unmarked} >= {DEF, MARKUP}
    assert [row.heat for row in sampled] == [row.share.total.value for row in sampled]  # the line and its callees
    assert sampled[0].heat == pytest.approx(152 / 197)


def test_a_long_function_keeps_a_window_from_above_its_first_sampled_line(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(400))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n    return x0\n")
    hot = 200
    profile = Profile(
        [Counter({(f"long (<project>/long.py:{hot})",): 5, (f"long (<project>/long.py:{hot + 150})",): 1})]
    )
    [kept] = sources.read_sources(profile, [(str(tmp_path), "<project>")])
    assert kept["first"] == hot - sources.CONTEXT and len(kept["lines"]) == sources.MAX_LINES
    profile.metadata.update(lines=True, sources=[kept])
    [table] = line_tables(profile, frame_shares(profile.runs))
    beyond = table.rows[-1]
    assert (beyond.number, beyond.text) == (hot + 150, None) and beyond.share is not None  # sampled, not kept


def test_functions_whose_files_cannot_be_read_are_left_out(tmp_path):
    profile = Profile([Counter({("<module> (<frozen runpy>:88)", "run (<project>/gone.py:3)"): 4})])
    assert sources.read_sources(profile, [(str(tmp_path), "<project>")]) == []


def test_a_profile_by_function_or_saved_without_sources_has_no_source_view(tmp_path):
    profile = line_profile(tmp_path)
    for metadata in ({"lines": False, "sources": profile.metadata["sources"]}, {"lines": True}):
        assert line_tables(Profile(profile.runs, metadata), frame_shares(profile.runs)) == []


def test_the_page_maps_each_python_frame_to_its_function_view_and_escapes_the_source(tmp_path):
    profile = line_profile(tmp_path)
    data = flamegraph.page_data(profile, "t", frame_shares(profile.runs))
    views = [view["name"] for view in data["sources"]]
    by_frame = dict(zip(data["frames"]["name"], data["frames"]["source"], strict=True))
    assert by_frame["work"] == views.index("work") and by_frame["helper"] == views.index("helper")
    row = next(row for row in data["sources"][views.index("work")]["rows"] if row["line"] == MARKUP)
    assert row["text"] == LINES[MARKUP - 1] and row["stats"] is None
    page = flamegraph.render(profile)
    assert "window.pwned" in page and "<script>window.pwned" not in page and "</script><script>" not in page
    assert 'id="source-lines"' in page
    assert 'id="source-lines"' not in flamegraph.render(Profile(profile.runs, {"lines": False}))


def test_the_web_shows_the_source_view_of_a_stored_line_profile(tmp_path):
    """One renderer, two surfaces: the web's page of a stored --lines profile has the same view."""
    pytest.importorskip("starlette", reason="the web view needs perflab[web]")
    from starlette.testclient import TestClient
    from support.store_results import synthetic_result

    from perflab.results.store import Store
    from perflab.web.app import ServeSettings, create_app

    with Store.open(tmp_path / "perflab.db") as store:
        run_id = store.save(synthetic_result(cases=("SMALL",)))
        store.save_profile(run_id, "SMALL", "base", line_profile(tmp_path))
    client = TestClient(create_app(ServeSettings(tmp_path / "perflab.db")))
    href = re.search(rf'href="(/profiles/{run_id}/[0-9a-f]+)"', client.get(f"/runs/{run_id}").text).group(1)
    page = client.get(href).text
    assert 'id="source-lines"' in page and 'src="/static/flamegraph.js"' in page
    data = json.loads(re.search(r'id="profile-data">(.*?)</script>', page, re.S).group(1))
    assert [view["name"] for view in data["sources"]][:2] == ["work", "<genexpr>"]
    assert "<script>window.pwned" not in page


def test_merged_line_profiles_keep_every_functions_source(tmp_path):
    profile = line_profile(tmp_path)
    first, second = profile.metadata["sources"][:1], profile.metadata["sources"][1:]
    merged = merge_profiles(
        [
            ("a", Profile(profile.runs, {"lines": True, "sources": first})),
            ("b", Profile(profile.runs, {"lines": True, "sources": second})),
        ]
    )
    assert sorted(source["name"] for source in merged.metadata["sources"]) == sorted(s["name"] for s in first + second)
