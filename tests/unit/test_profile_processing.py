"""Stack processing: folded stacks, trimming to the operation, path normalization, saved profiles, merging."""

import inspect
from collections import Counter

import pytest
from support.profile_processing_shared import WORKER

from perflab.bench import asv_suite, pyperf_script
from perflab.bench.worker import region
from perflab.profile.calltree import build_tree, flame_columns, hottest_path
from perflab.profile.folded import FoldedFormatError, format_folded, parse_folded
from perflab.profile.frames import parse_frame
from perflab.profile.model import ProfileFileError, load_profile
from perflab.profile.processors import trim_to_operation


def test_folded_round_trip_keeps_frames_with_spaces_and_counts():
    stacks = Counter({("a (x.py:1)", "b (y.py:2)"): 3, ("a (x.py:1)",): 5})
    assert parse_folded(format_folded(stacks)) == stacks
    assert format_folded(stacks).splitlines()[0] == "a (x.py:1) 5"  # heaviest first


@pytest.mark.parametrize(
    "text, problem",
    [
        ("a;b 3\nnot a stack\n", "x.folded:2: not a folded stack line"),
        ("a;b 3\na;b", "x.folded:2: truncated last line"),
        ("a;b 3\n 4\n", "x.folded:2: not a folded stack line"),
        ("a;b -1\n", "x.folded:1: not a folded stack line"),
    ],
)
def test_malformed_folded_lines_are_reported_with_file_and_line(text, problem):
    with pytest.raises(FoldedFormatError, match=problem):
        parse_folded(text, "x.folded")


def test_trim_keeps_only_what_runs_below_measured_region():
    raw = Counter(
        {
            ("<module> (/w.py:1)", "main (/src/perflab/worker.py:200)", WORKER, "op (/b.py:3)", "f (/b.py:9)"): 7,
            ("<module> (/w.py:1)", "main (/src/perflab/worker.py:200)", WORKER): 2,  # the loop itself
            ("<module> (/w.py:1)", "calibrate (/src/perflab/worker.py:50)"): 4,  # harness only
            ("<module> (/w.py:1)", "readline (/usr/lib/python3.11/codecs.py:1)"): 1,
        }
    )
    trimmed = trim_to_operation(raw)
    assert trimmed.stacks == Counter({("op (/b.py:3)", "f (/b.py:9)"): 7, (): 2})
    assert trimmed.outside == 5


@pytest.mark.parametrize("saved_by", ["worker", "worker-package"])
def test_profiles_saved_by_earlier_versions_still_trim(saved_by):
    old = {"worker": "/src/perflab/worker.py", "worker-package": "/src/perflab/bench/worker/jobs.py"}[saved_by]
    raw = Counter({("main (/w.py:1)", f"measured_region ({old}:38)", "op (/b.py:3)"): 3})
    assert trim_to_operation(raw).stacks == Counter({("op (/b.py:3)",): 3})


def test_the_harness_is_recognised_where_measured_region_is_defined():
    """Moving measured_region to another file must move the profiles' trimming with it."""
    where = f"{region.measured_region.__name__} ({inspect.getsourcefile(region.measured_region)}:1)"
    raw = Counter({("main (/w.py:1)", where, "op (/b.py:3)"): 3})
    assert trim_to_operation(raw).stacks == Counter({("op (/b.py:3)",): 3})


@pytest.mark.parametrize(("module", "function"), [(pyperf_script, "bench_func"), (asv_suite, "times_itself")])
def test_the_pyperf_and_asv_recorders_are_harness_where_they_are_defined(module, function):
    """A pyperf script's function, or an asv suite's, runs below perflab's recorder: its frames are trimmed too."""
    recorder = f"{function} ({inspect.getsourcefile(module)}:1)"
    where = f"measured_region ({inspect.getsourcefile(region.measured_region)}:1)"
    raw = Counter({("main (/w.py:1)", where, recorder, "encode (/b.py:3)"): 3})
    assert trim_to_operation(raw).stacks == Counter({("encode (/b.py:3)",): 3})


def test_an_asv_setup_between_timed_calls_is_not_the_operation():
    """asv_suite runs the benchmark's setup again before each timed call, inside measured_region."""
    recorder = inspect.getsourcefile(asv_suite)
    where = f"measured_region ({inspect.getsourcefile(region.measured_region)}:1)"
    timed = ("main (/w.py:1)", where, f"times_itself ({recorder}:1)")
    raw = Counter({(*timed, f"Prepared.redo_setup ({recorder}:2)", "setup (/b.py:3)"): 5, (*timed, "pop (/b.py:9)"): 2})
    trimmed = trim_to_operation(raw)
    assert (trimmed.stacks, trimmed.outside) == (Counter({("pop (/b.py:9)",): 2}), 5)


def test_a_user_function_named_measured_region_is_not_the_harness():
    raw = Counter({(WORKER, "measured_region (/home/me/bench.py:4)", "g (/home/me/bench.py:8)"): 1})
    assert trim_to_operation(raw).stacks == Counter(
        {("measured_region (/home/me/bench.py:4)", "g (/home/me/bench.py:8)"): 1}
    )


def test_frame_labels_parse_into_name_file_and_line():
    frame = parse_frame("JSONEncoder.encode (<stdlib>/json/encoder.py:183)")
    assert (frame.name, frame.file, frame.line, frame.is_python) == (
        "JSONEncoder.encode",
        "<stdlib>/json/encoder.py",
        183,
        True,
    )
    native = parse_frame("encoder_call (_json.c)")
    assert (native.name, native.line, native.is_python) == ("encoder_call", None, False)


def test_call_tree_keeps_one_function_apart_under_two_callers():
    root = build_tree(Counter({("a", "work"): 6, ("b", "work"): 2, ("a",): 2}))
    assert root.total == 10 and root.children["a"].children["work"].total == 6
    assert root.children["b"].children["work"].total == 2
    assert [node.frame for node in hottest_path(root)] == ["measured_region", "a", "work"]


def test_flame_columns_are_the_call_tree_in_depth_first_order():
    stacks = Counter({("b", "x"): 1, ("a", "work"): 6, ("b", "work"): 2, ("a",): 2, (): 3})
    columns = flame_columns(stacks)
    assert columns.frame == ["measured_region", "a", "work", "b", "work", "x"]
    assert columns.depth == [0, 1, 2, 1, 2, 2]
    assert columns.total == [14, 8, 6, 3, 2, 1] and columns.self == [3, 2, 6, 0, 2, 1]
    assert columns.total[0] == build_tree(stacks).total


def test_load_profile_reads_folded_files_and_reports_bad_ones(tmp_path):
    good = tmp_path / "good.folded"
    good.write_text(f"main (/w.py:1);{WORKER};op (/b.py:3) 4\nmain (/w.py:1) 9\n")
    assert load_profile(good).runs == [Counter({("op (/b.py:3)",): 4})]
    exported = tmp_path / "exported.folded"
    exported.write_text("op (b.py:3) 4\n[measured_region] 1\n")
    assert load_profile(exported).runs == [Counter({("op (b.py:3)",): 4, (): 1})]
    bad = tmp_path / "bad.folded"
    bad.write_text("op (b.py:3) 4\nop (b.py")
    with pytest.raises(ProfileFileError, match="bad.folded:2: truncated"):
        load_profile(bad)
    with pytest.raises(ProfileFileError, match="missing.json"):
        load_profile(tmp_path / "missing.json")
