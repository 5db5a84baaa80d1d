"""Allocation profiles (perflab.profile.allocations) from real workers under real memray: bytes per
call against contenders that allocate a known amount, a leak of one small object per call, the
stacks trimmed to the operation, C frames with --native, and the differential memory profile of
two contenders."""

import json
import subprocess
import sys
from pathlib import Path

import perflab
from perflab.bench.protocol import allocations_job
from perflab.profile.allocations import AllocationSettings, per_call, profile_allocations
from perflab.profile.diff import CONTENDER, diff_profiles
from perflab.profile.frames import parse_frame

SIZE = 100_000

ALLOCATING_BENCH = f"""
import perflab
bench = perflab.Benchmark("allocating")
KEPT = []

@bench.case
def N():
    return {SIZE}

def make_block(n):
    return bytearray(n)

@bench.contender
def block(n):
    make_block(n)               # n bytes allocated and freed by each call
    return n

@bench.contender
def leaks(n):
    KEPT.append(object())       # one small object kept per call (and the list's growth)
    return n

@bench.contender
def nothing_kept(n):
    return len(str(n))
"""


def _profile(path, contender, **settings):
    options = {"runs": 2, "loops": 200, "timeout": 60.0, **settings}
    outcome = profile_allocations(str(path), "N", contender, AllocationSettings(**options))
    assert outcome.error is None and len(outcome.profile.runs) == options["runs"]
    return outcome.profile


def test_bytes_allocated_per_call_match_a_known_allocation(bench_file):
    profile = _profile(bench_file(ALLOCATING_BENCH), "block")
    allocated = per_call(profile)["allocated"]
    # The object and its buffer; not the frame objects of block and make_block that memray's
    # profile hook made CPython create (counted, and subtracted).
    assert abs(allocated.value - sys.getsizeof(bytearray(SIZE))) <= 64
    assert abs(per_call(profile)["allocations"].value - 2) < 0.05  # (and a few of the loop, over 200 calls)
    assert allocated.low <= allocated.value <= allocated.high
    frames = profile.metadata["run_info"][0]["frame_objects"]
    assert frames["count"] >= 2 * 200 and frames["not_subtracted"] is None
    assert per_call(profile)["held"].value < 64  # nothing kept
    # The heaviest path is the contender's own code, and no harness frame is above it.
    heaviest = max(profile.runs[0].items(), key=lambda item: item[1])[0]
    names = [parse_frame(label).name for label in heaviest]
    assert names[:2] == ["block", "make_block"]
    assert not any(name in ("measured_region", "run_allocations", "_tracked") for name in names)


def test_a_leak_of_one_small_object_per_call_is_held(bench_file):
    path = bench_file(ALLOCATING_BENCH)
    leaking = per_call(_profile(path, "leaks", view="held"))["held"]
    clean = per_call(_profile(path, "nothing_kept", view="held"))["held"]
    assert leaking.low >= 16  # an object() is 16 bytes, plus its list slot
    assert clean.value < 1


def test_frame_objects_of_generators_are_left_in_and_said_so(bench_file):
    path = bench_file(ALLOCATING_BENCH + "\n@bench.contender\ndef generated(n):\n    return sum(i for i in range(3))\n")
    outcome = profile_allocations(str(path), "N", "generated", AllocationSettings(runs=1, loops=100))
    frames = outcome.profile.metadata["run_info"][0]["frame_objects"]
    assert frames["not_subtracted"] == "<genexpr> is a generator or coroutine"
    assert any("not subtracted (<genexpr> is a generator or coroutine)" in note for note in outcome.notes)


def test_native_frames_show_where_c_code_allocates(bench_file):
    profile = _profile(bench_file(ALLOCATING_BENCH), "block", native=True, runs=1)
    frames = {parse_frame(label) for stack in profile.runs[0] for label in stack}
    assert any(frame.name == "make_block" for frame in frames)
    assert any(not frame.is_python for frame in frames)  # C frames below the Python ones
    assert profile.metadata["native"] is True


def test_a_contender_that_raises_is_an_error_naming_it(bench_file):
    path = bench_file(ALLOCATING_BENCH + "\n@bench.contender\ndef broken(n):\n    raise ValueError('no')\n")
    outcome = profile_allocations(str(path), "N", "broken", AllocationSettings(runs=2, loops=10))
    assert outcome.profile.runs == [] and "broken" in outcome.error and "ValueError" in outcome.error


def test_a_worker_without_memray_says_what_to_install(bench_file):
    """Under an interpreter without memray (here: this one without its site-packages), the job is
    one error of kind "tool", and no other job of that worker needs memray."""
    source_root = str(Path(perflab.__file__).resolve().parent.parent)
    job = allocations_job(str(bench_file(ALLOCATING_BENCH)), "block", [], "N", 10, 0.02, 1, False)
    process = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import runpy, sys; sys.path.insert(0, {source_root!r}); "
            "runpy.run_module('perflab.bench.worker', run_name='__main__')",
        ],
        input=json.dumps(job) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    events = [json.loads(line) for line in process.stdout.splitlines()]
    assert process.returncode == 1
    assert events[-1]["event"] == "error" and events[-1]["kind"] == "tool"
    message = events[-1]["message"]  # the install command of the worker's interpreter (perflab need not be there)
    assert (
        message.startswith(f"memray is not installed for {sys.executable}")
        and f"{sys.executable} -m pip install memray" in message
    )


EXTRA = 30_000

DIFFERING_BENCH = (
    ALLOCATING_BENCH
    + f"""
def extra_buffer(n):
    return bytearray({EXTRA})

@bench.contender
def block_and_extra(n):
    make_block(n)
    extra_buffer(n)             # the only difference from block: {EXTRA:,} more bytes per call
    return n
"""
)


def test_the_differential_memory_profile_names_the_function_with_the_extra_buffer(bench_file):
    """The diff of two contenders' allocation profiles is in bytes per call, though the sides made
    different numbers of calls; the extra buffer's function holds the largest increase, the known
    size within its interval; nothing else moves beyond its interval (memray's 64-byte accuracy)."""
    path = bench_file(DIFFERING_BENCH)
    diff = diff_profiles(
        _profile(path, "block", loops=300), _profile(path, "block_and_extra", loops=200), ("block", "block_and_extra")
    )
    extra = (CONTENDER, "extra_buffer (<project>/bench.py)")
    known = sys.getsizeof(bytearray(EXTRA))
    assert diff.unit == "bytes" and diff.measure == "bytes allocated per call"
    assert diff.largest_self_changes(1)[0].path == extra
    change = diff.nodes[extra].difference
    assert change.low - 64 <= known <= change.high + 64 and change.low <= change.value <= change.high
    assert abs(diff.nodes[(CONTENDER, "make_block (<project>/bench.py)")].a - sys.getsizeof(bytearray(SIZE))) <= 64
    for path_, node in diff.nodes.items():
        if path_ != extra[: len(path_)]:  # every node but the extra buffer's and its callers
            assert node.difference.low - 64 <= 0 <= node.difference.high + 64, (path_, node)
    assert "100% of the 29.4 KiB added is in [the contender's function] -> extra_buffer" in diff.explain()
