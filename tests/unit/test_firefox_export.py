"""The Firefox Profiler export (perflab.render.firefox): the processed profile format's tables as its
type definitions declare them (firefox-devtools/profiler src/types/profile.ts, version 70 at
df31314), their invariants (lengths, indices in range, prefixes before their stacks), and the
profile read back from them: the same call stacks with the same weights, for time, memory and
line profiles; and `--firefox` on the command line."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from perflab.cli import main
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.processors import with_operation_frame
from perflab.render.firefox import PROCESSED_PROFILE_VERSION, document

# Every column of each table, as src/types/profile.ts declares them (optional ones this export
# leaves out are not listed): a missing one is read as undefined by the profiler.
COLUMNS = {
    "stackTable": {"frame", "prefixOffset", "length"},
    "frameTable": {
        "address",
        "lib",
        "inlineDepth",
        "category",
        "subcategory",
        "func",
        "nativeSymbol",
        "innerWindowID",
        "line",
        "column",
        "originalLocation",
        "length",
    },
    "funcTable": {
        "name",
        "isJS",
        "relevantForJS",
        "resource",
        "source",
        "lineNumber",
        "columnNumber",
        "originalLocation",
        "length",
    },
    "resourceTable": {"name", "host", "type", "length"},
    "nativeSymbols": {"libIndex", "address", "name", "functionSize", "length"},
    "sources": {"id", "filename", "startLine", "startColumn", "sourceMapURL", "content", "length"},
    "sourceLocationTable": {"source", "line", "column", "length"},
}
THREAD = {"processType", "processStartupTime", "processShutdownTime", "registerTime", "unregisterTime"} | {
    "pausedRanges",
    "name",
    "isMainThread",
    "pid",
    "tid",
    "samples",
    "markers",
}
META = {"interval", "startTime", "processType", "product", "stackwalk", "version", "preprocessedProfileVersion"} | {
    "markerSchema",
    "categories",
}

OP = "op (<project>/bench.py:10)"
HOT = "hot (<project>/bench.py:20)"
NATIVE = "encoder_call (_json.c)"
UNKNOWN = "[unknown]"


def check_processed_profile(doc: dict) -> None:
    """The invariants the profiler's readers rely on, from the type definitions' comments."""
    assert doc["meta"]["preprocessedProfileVersion"] == PROCESSED_PROFILE_VERSION
    assert set(doc["meta"]) >= META and {"meta", "libs", "shared", "threads"} <= set(doc)
    shared = doc["shared"]
    for table, columns in COLUMNS.items():
        assert set(shared[table]) == columns, table
        assert all(len(shared[table][c]) == shared[table]["length"] for c in columns - {"length"}), table
    strings, stacks, frames, funcs = (
        shared["stringArray"],
        shared["stackTable"],
        shared["frameTable"],
        shared["funcTable"],
    )
    assert all(isinstance(s, str) for s in strings)
    categories = doc["meta"]["categories"]
    assert any(c["color"] == "grey" for c in categories) and all(c["subcategories"][0] == "Other" for c in categories)
    for i, offset in enumerate(stacks["prefixOffset"]):
        assert 0 <= offset <= i  # 0: a root; else the parent, which comes before its children
        assert 0 <= stacks["frame"][i] < frames["length"]
    for i in range(frames["length"]):
        assert 0 <= frames["func"][i] < funcs["length"]
        assert 0 <= frames["category"][i] < len(categories)
        assert frames["subcategory"][i] < len(categories[frames["category"][i]]["subcategories"])
        assert frames["address"][i] == frames["lib"][i] == -1  # no native library: nothing to symbolicate
    for i in range(funcs["length"]):
        assert 0 <= funcs["name"][i] < len(strings)
        assert funcs["source"][i] is None or 0 <= funcs["source"][i] < shared["sources"]["length"]
    assert all(0 <= f < len(strings) for f in shared["sources"]["filename"])
    assert doc["threads"] and all(0 <= t < len(doc["threads"]) for t in doc["meta"]["initialSelectedThreads"])
    for thread in doc["threads"]:
        assert set(thread) >= THREAD
        samples = thread["samples"]
        assert samples["weightType"] in ("samples", "tracing-ms", "bytes")
        for column in ("stack", "time", "weight"):
            assert len(samples[column]) == samples["length"]
        assert all(0 <= s < stacks["length"] for s in samples["stack"])
        assert samples["time"] == sorted(samples["time"])


def read_back(doc: dict, thread: int = 0) -> Counter:
    """(name, file:line) call stacks, root first, with their summed weights, as the profiler reads them."""
    shared = doc["shared"]
    strings, stacks, frames, funcs = (
        shared["stringArray"],
        shared["stackTable"],
        shared["frameTable"],
        shared["funcTable"],
    )
    sources = shared["sources"]["filename"]

    def frame(index: int) -> tuple[str, str, int | None]:
        func = frames["func"][index]
        source = funcs["source"][func]
        return strings[funcs["name"][func]], "" if source is None else strings[sources[source]], frames["line"][index]

    read: Counter = Counter()
    samples = doc["threads"][thread]["samples"]
    for stack, weight in zip(samples["stack"], samples["weight"]):
        path = []
        while True:
            path.append(frame(stacks["frame"][stack]))
            offset = stacks["prefixOffset"][stack]
            if offset == 0:
                break
            stack -= offset
        read[tuple(reversed(path))] += weight
    return read


def expected(profile: Profile) -> Counter:
    return Counter(
        {
            tuple((f.name, f.file, f.line) for f in map(parse_frame, stack)): n
            for stack, n in with_operation_frame(profile.merged()).items()
        }
    )


def time_profile() -> Profile:
    run = Counter({(OP, HOT, NATIVE): 50, (OP, HOT): 10, (OP, UNKNOWN, HOT): 20, (OP,): 15, (): 5})
    return Profile(
        [run, run], {"sampler": "py-spy", "mode": "cpu", "rate": 250, "native": True, "python": {"version": "3.12.1"}}
    )


def test_a_time_profile_keeps_its_call_tree_weights_files_and_lines():
    profile = time_profile()
    doc = document(profile, "b / C / x")
    check_processed_profile(doc)
    assert read_back(doc) == expected(profile)
    samples = doc["threads"][0]["samples"]
    assert samples["weightType"] == "samples" and sum(samples["weight"]) == profile.samples == 200
    assert doc["meta"]["interval"] == 4.0 and doc["meta"]["stackwalk"] == 1 and doc["meta"]["product"] == "b / C / x"
    shared = doc["shared"]
    names = [shared["stringArray"][n] for n in shared["funcTable"]["name"]]
    categories = {names[f]: c for f, c in zip(shared["frameTable"]["func"], shared["frameTable"]["category"])}
    assert (categories["op"], categories["encoder_call"], categories[UNKNOWN]) == (1, 2, 0)  # Python, native, other
    assert names.count("hot") == 1  # one function under two callers: one func, one frame, two stacks
    hot = shared["frameTable"]["func"].index(names.index("hot"))
    assert sum(1 for f in shared["stackTable"]["frame"] if f == hot) == 2


def test_a_memory_profile_is_weighted_in_bytes():
    run = Counter({(OP, HOT): 4096, (OP,): 1024})
    profile = Profile([run], {"sampler": "memray", "mode": "allocated"})
    doc = document(profile)
    check_processed_profile(doc)
    assert read_back(doc) == expected(profile)
    assert doc["threads"][0]["samples"]["weightType"] == "bytes" and doc["meta"]["interval"] == 1.0
    counts = document(Profile([run], {"sampler": "memray", "mode": "allocations"}))
    assert counts["threads"][0]["samples"]["weightType"] == "samples"  # a count of allocations


def test_a_profile_by_line_has_one_function_with_a_frame_per_line():
    run = Counter({(OP, "hot (<project>/bench.py:21)"): 3, (OP, "hot (<project>/bench.py:22)"): 5})
    profile = Profile([run], {"sampler": "py-spy", "rate": 100, "lines": True})
    doc = document(profile)
    check_processed_profile(doc)
    assert read_back(doc) == expected(profile)
    funcs = doc["shared"]["funcTable"]
    hot = [i for i, n in enumerate(funcs["name"]) if doc["shared"]["stringArray"][n] == "hot"]
    assert len(hot) == 1 and funcs["lineNumber"][hot[0]] is None
    assert sorted(
        line for f, line in zip(doc["shared"]["frameTable"]["func"], doc["shared"]["frameTable"]["line"]) if f == hot[0]
    ) == [21, 22]


def test_merge_writes_it_and_checks_the_path_before_reading(tmp_path, capsys):
    path, out = tmp_path / "p.json", tmp_path / "p.firefox.json"
    time_profile().save(path)
    assert main(["merge", str(path), "--firefox", str(out)]) == 0
    assert f"Firefox Profiler profile written to {out}" in " ".join(capsys.readouterr().err.split())
    doc = json.loads(out.read_text())
    check_processed_profile(doc)
    assert read_back(doc) == expected(time_profile())
    assert main(["merge", str(path), "--firefox", str(path)]) == 2  # never over an input


@pytest.mark.parametrize("broken", ["prefix after child", "index out of range"])
def test_the_checks_catch_a_broken_file(broken):
    doc = document(time_profile())
    if broken == "prefix after child":
        doc["shared"]["stackTable"]["prefixOffset"][0] = 1
    else:
        doc["shared"]["frameTable"]["func"][0] = 10**6
    with pytest.raises(AssertionError):
        check_processed_profile(doc)


def test_diff_writes_both_sides_and_their_difference_in_time_per_call(tmp_path, capsys):
    """A thread per side and the comparison thread, as the profiler's compare view builds them:
    the before side's weights negative, every weight milliseconds per call (what perflab diff
    compares), so that the comparison's total is the change of the operation's time per call."""
    run_a = Counter({(OP, HOT): 60, (OP,): 40})
    run_b = Counter({(OP, HOT): 30, (OP, NATIVE): 30, (OP,): 40})
    meta = {"sampler": "py-spy", "mode": "cpu", "rate": 250, "python": {"version": "3.12.1"}}
    a = Profile([run_a, run_a], {**meta, "contender": "old", "run_info": [{"time_per_call": 10e-6}] * 2})
    b = Profile([run_b, run_b], {**meta, "contender": "new", "run_info": [{"time_per_call": 12e-6}] * 2})
    a_path, b_path, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "diff.firefox.json"
    a.save(a_path)
    b.save(b_path)
    assert main(["diff", str(a_path), str(b_path), "--firefox", str(out)]) == 0
    doc = json.loads(out.read_text())
    check_processed_profile(doc)
    before, after, comparison = doc["threads"]
    assert (before["name"], after["name"], comparison["name"]) == ("old", "new", "new - old")
    assert comparison["processType"] == "comparison" and doc["meta"]["initialSelectedThreads"] == [2]
    assert {t["samples"]["weightType"] for t in doc["threads"]} == {"tracing-ms"}
    assert sum(before["samples"]["weight"]) == pytest.approx(10e-3)  # ms per call
    assert sum(after["samples"]["weight"]) == pytest.approx(12e-3)
    assert sum(comparison["samples"]["weight"]) == pytest.approx(2e-3)
    hot = ("op", "<project>/bench.py", None), ("hot", "<project>/bench.py", None)  # functions, no lines
    changes = read_back(doc, 2)
    assert changes[hot] == pytest.approx(0.3 * 12e-3 - 0.6 * 10e-3)
    assert read_back(doc, 1)[(hot[0], ("encoder_call", "_json.c", None))] == pytest.approx(0.3 * 12e-3)
    assert main(["diff", str(a_path), str(b_path), "--firefox", str(a_path)]) == 2  # never over an input
