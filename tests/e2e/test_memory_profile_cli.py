"""``perflab profile --memory`` end to end: real workers under real memray, every output, and the
options it refuses before anything runs."""

import json
import re
from collections import Counter

import pytest
from support.cli import run_perflab
from support.hostile_files import HANGS_IN_THE_SECOND_WORKER
from support.hostile_shared import profile_stopped

from perflab.profile.model import Profile

BENCH = """
import perflab
bench = perflab.Benchmark("allocating")

@bench.case
def N():
    return 50_000

def make_block(n):
    return bytearray(n)

@bench.contender
def block(n):
    make_block(n)
    return n
"""


@pytest.fixture
def bench(tmp_path):
    path = tmp_path / "bench.py"
    path.write_text(BENCH)
    return path


def test_memory_profile_shows_figures_per_call_and_writes_every_output(bench, tmp_path):
    outputs = {"--json": "p.json", "--folded": "p.folded", "--speedscope": "p.speedscope.json", "--html": "p.html"}
    options = [item for option, name in outputs.items() for item in (option, tmp_path / name)]
    result = run_perflab("profile", bench, "--memory", "--runs", "2", *options)
    assert result.returncode == 0, result.stderr
    # 50,000 bytes and the bytearray's header (the frame objects memray makes CPython create are subtracted)
    allocated = re.search(r"bytes allocated per call: ([\d.]+) KiB \[95% CI", result.stdout)
    assert allocated and float(allocated[1]) == 48.9, result.stdout
    assert "bytes still held after the calls, per call: " in result.stdout
    assert "by self share (bytes allocated in the function itself)" in result.stdout
    assert "memray's profile hook made CPython create 2 frame objects per call" in result.stdout
    assert "does not allocate: subtracted" in result.stdout
    saved = json.loads((tmp_path / "p.json").read_text())
    assert saved["metadata"]["sampler"] == "memray" and len(saved["runs"]) == 2
    folded = (tmp_path / "p.folded").read_text()
    assert any(line.startswith("block (") and "make_block (" in line for line in folded.splitlines())
    assert json.loads((tmp_path / "p.speedscope.json").read_text())["profiles"][0]["unit"] == "bytes"
    assert '"unit":"bytes"' in (tmp_path / "p.html").read_text()
    merged = run_perflab("merge", tmp_path / "p.json", tmp_path / "p.json")
    assert merged.returncode == 0, merged.stderr
    assert f"bytes allocated per call: {allocated[1]} KiB" in merged.stdout  # the figures per call survive a merge


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rate", "100"], "--rate applies to time profiles, not to --memory"),
        (["--what-if", "make_block=2x"], "--what-if applies to time profiles, not to --memory"),
        (["--memory-view", "nope"], "invalid choice: 'nope'"),
    ],
)
def test_options_of_time_profiles_are_refused(bench, args, message):
    result = run_perflab("profile", bench, "--memory", *args)
    assert result.returncode == 2
    assert message in result.stderr.strip().splitlines()[-1]


def test_whole_programs_are_refused_in_one_line(tmp_path):
    result = run_perflab("profile", "--memory", "--", "python", "-c", "pass")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "--memory profiles a benchmark's operation" in result.stderr


def test_a_call_that_hangs_in_an_allocation_run_is_stopped_by_max_time_and_the_runs_before_are_kept(tmp_path):
    """--max-time bounded nothing of --memory: a hung call waited --timeout (here 120 s). Now the
    runs share the budget: the second run's worker is stopped when it is spent, named, and the
    first run is written, marked partial; no process is left. About 6 s (the budget)."""
    (tmp_path / "hangs.py").write_text(HANGS_IN_THE_SECOND_WORKER.format(after=30))
    profile_stopped(
        tmp_path, "hangs.py", "--memory", "--runs", "2", "--max-time", "6", "--timeout", "120", "--json", "out.json",
        said="perflab: error: SMALL/hangs: stopped while profiling its allocations: it outlasted the time budget "
        "(--max-time 6 s); raise --max-time if its calls take this long, else a call hangs (the 1 run sampled "
        "until then kept, marked partial)",
    )  # fmt: skip
    assert len((tmp_path / "workers.txt").read_text().split()) == 2  # the second run's worker hung
    profile = Profile.load(tmp_path / "out.json")
    assert len(profile.runs) == 1
    assert profile.metadata["partial"].startswith("SMALL/hangs: stopped while profiling its allocations")


def test_diff_of_two_allocation_profiles_is_in_bytes_per_call(tmp_path):
    """``perflab diff`` of two saved allocation profiles (made here: their making is tested above and
    in tests/worker): terminal, --json and --html in bytes per call, the sides' calls differing."""
    sides = []
    for name, stacks, loops in (
        ("before", {("work (/x/lib.py:1)",): 100 * 1000}, 100),
        ("after", {("work (/x/lib.py:1)",): 200 * 1000, ("work (/x/lib.py:1)", "pad (/x/lib.py:9)"): 200 * 4096}, 200),
    ):
        runs = [Counter(stacks)] * 2
        info = [{"loops": loops, "allocated": sum(stacks.values())}] * 2
        profile = Profile(
            runs, {"sampler": "memray", "mode": "allocated", "native": False, "contender": name, "run_info": info}
        )
        profile.save(tmp_path / f"{name}.json")
        sides.append(tmp_path / f"{name}.json")
    done = run_perflab("diff", *sides, "--json", tmp_path / "diff.json", "--html", tmp_path / "diff.html")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "after vs before: bytes allocated per call 1,000 B -> 4.98 KiB (+4 KiB, 95% CI +4 KiB"
    )
    assert "+4 KiB  work > pad  (self; with what it calls +4 KiB [95% CI +4 KiB, +4 KiB])" in done.stdout
    saved = json.loads((tmp_path / "diff.json").read_text())
    assert saved["unit"] == "bytes" and saved["nodes"][-1]["path"] == ["work", "pad"]
    assert "width: mean bytes allocated per call" in (tmp_path / "diff.html").read_text()
