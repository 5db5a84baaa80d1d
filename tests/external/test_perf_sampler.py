"""perf as the sampler of a benchmark's operation (perflab.profile.perf_sampler): the built-in json_dumps
under CPython 3.13 with -X perf_jit, Python and C frames in one profile at 1 kHz."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import run_perflab
from support.external import other_python
from support.perf_sampler_shared import nested_native_profile

from perflab.builtins import json_dumps
from perflab.profile.frames import parse_frame
from perflab.profile.model import Profile
from perflab.profile.native_perf import parse_script
from perflab.profile.perf_sampler import STACK_DUMP, TRAMPOLINE_ENV, PerfRecording, python_stacks, too_truncated
from perflab.profile.session import start_run
from perflab.profile.settings import ProfileSettings
from perflab.profile.shares import frame_shares

PYTHON = other_python("3.13")
pytestmark = pytest.mark.skipif(
    shutil.which("perf") is None or PYTHON is None,
    reason="needs Linux perf (.ci/run installs linux-perf) and pyenv's python3.13",
)


def test_native_frames_come_from_perf_named_as_py_spy_names_python_frames(tmp_path):
    """~13 s at load 7 (45 s before perf's build-id cache was turned off): two workers start under python3.13
    (perflab imported there), and perf inject and perf script read each run's DWARF stacks; 2 runs of 200
    samples are the least that gives shares."""
    done, profile = nested_native_profile(tmp_path, PYTHON, "--samples", "200", "--runs", "2")
    assert "perf version" in done.stdout and "1000 Hz, Python + native frames" in done.stdout
    stacks = profile.merged()
    # perflab's harness is trimmed: no frame of the worker is left, and the operation starts at the contender
    # (but for C code the harness loop calls itself: its clock, as py-spy shows it too)
    assert not any("perflab/bench/worker" in parse_frame(label).file for stack in stacks for label in stack)
    at_contender = sum(count for stack, count in stacks.items() if stack[:1] and stack[0].startswith("json_stdlib "))
    assert at_contender >= 0.9 * profile.samples
    names = [[parse_frame(label).name for label in stack] for stack in stacks]
    assert any("py_encode_basestring_ascii" in n[n.index("dumps") :] for n in names if "dumps" in n)
    dumps = next(parse_frame(label) for stack in stacks for label in stack if label.startswith("dumps "))
    assert dumps.file == "<stdlib>/json/__init__.py" and dumps.line is not None  # as py-spy: first line
    unknown = sum(count for stack, count in stacks.items() if any("[unknown]" in label for label in stack))
    assert unknown <= 0.05 * profile.samples
    assert frame_shares(profile.runs)  # shares with intervals from the runs, as for py-spy's profiles


def test_auto_gives_way_to_py_spy_where_perf_record_cannot_sample(tmp_path):
    """A machine where perf is installed but may not sample (perf_event_open denied, as seccomp does in
    containers; this machine allows it, so a perf that refuses to record stands for it here)."""
    denied = tmp_path / "bin"
    denied.mkdir()
    (denied / "perf").write_text(
        '#!/bin/sh\n[ "$1" = record ] || exec "$REAL_PERF" "$@"\n'
        'echo "perf_event_open(..., PERF_FLAG_FD_CLOEXEC) failed with unexpected error 1 (Operation not permitted)" >&2\n'
        "exit 255\n"
    )
    (denied / "perf").chmod(0o755)
    out = tmp_path / "fallback.profile.json"
    done = run_perflab(
        "profile", "json_dumps", "--case", "NESTED", "--python", PYTHON, "--native",
        "--samples", "10", "--runs", "2", "--json", out,
        env={"PATH": f"{denied}:{os.environ['PATH']}", "REAL_PERF": shutil.which("perf")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    metadata = Profile.load(out).metadata
    assert metadata["sampler"] == "py-spy" and "Operation not permitted" in metadata["sampler_reason"]
    assert "fallback sampler because perf record cannot sample here" in done.stdout


PROGRAM = """
import json, os, sys, time
print(os.getpid(), flush=True)
sys.stdin.readline()  # sampling is on
document = {"key": ["caf\\u00e9 " * 40] * 20}
end = time.perf_counter() + 0.3
while time.perf_counter() < end:
    json.dumps(document)
"""


def test_a_recording_is_read_without_a_build_id_cache_into_the_same_frames(tmp_path):
    """One python3.13 -X perf_jit process of 0.3 s under PerfRecording, read by it and by perf as perflab
    read recordings before: the same stacks, inlined C frames kept, nothing unresolved. What perflab
    skips: perf's build-id cache (perf inject cached ~2,000 files a run, whose deletion took 7 s here),
    the build ids perf record read its whole recording back for at exit, and its BPF side-band thread,
    whose 1 s poll it waited out at exit (0.5 s a run on average)."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    perf = PerfRecording(1000)
    try:
        process = subprocess.Popen(
            [*perf.prefix, PYTHON, str(program)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, **TRAMPOLINE_ENV},
            text=True,
        )
        assert process.stdout is not None
        perf.enable(int(process.stdout.readline()))
        threads = os.listdir(f"/proc/{process.pid}/task")  # perf record's, while it samples
        process.communicate("go\n", timeout=60)
        assert len(threads) == 1
        stacks, _ = perf.stacks()
        assert not list(Path(perf.data).parent.rglob(".build-id"))  # nothing cached beside the recording
        listed = subprocess.run(["perf", "buildid-list", "-i", perf.data], capture_output=True, text=True, check=True)
        assert not re.search(r"^[0-9a-f]{40} ", listed.stdout, re.MULTILINE)  # no build id recorded
        # as perflab read recordings before: the build ids perf record added (perf inject -b adds them),
        # and perf's cache in $HOME/.debug
        home = {**os.environ, "HOME": str(tmp_path)}
        with_ids, injected = tmp_path / "ids.data", tmp_path / "jit.data"
        subprocess.run(["perf", "inject", "-b", "-i", perf.data, "-o", with_ids], env=home, check=True)
        subprocess.run(["perf", "inject", "--jit", "-i", with_ids, "-o", injected], env=home, check=True)
        assert (tmp_path / ".debug" / ".build-id").is_dir()
        script = subprocess.run(
            ["perf", "script", "-i", injected, "-F", "comm,tid,ip,sym,dso"],
            env=home, capture_output=True, text=True, check=True,
        )  # fmt: skip
    finally:
        perf.cleanup()
    assert stacks == python_stacks(parse_script(script.stdout))
    names = [[parse_frame(label).name for label in stack] for stack in stacks]
    assert any(n[-2:] == ["py_encode_basestring_ascii", "ascii_escape_unicode"] and "dumps" in n for n in names)
    # Almost nothing unresolved: loaded CI runs had one sample with an [unknown] frame, among ~300 and
    # among 87 (in the interpreter's finalization; read the same both ways, so not perflab's reading):
    # at most one sample, or 1% of them.
    unresolved = {stack: n for stack, n in stacks.items() if any("[unknown]" in label for label in stack)}
    assert sum(unresolved.values()) <= max(1, 0.01 * sum(stacks.values())), unresolved


def test_a_perf_worker_started_ahead_and_not_needed_leaves_no_jit_dump():
    """A session starts the next run's worker while it reads a run, and closes it if that run was the
    last: its interpreter's /tmp/jit-PID.dump (~270 kB) goes with it."""
    settings = ProfileSettings(sampler="perf", native=True, python=PYTHON)
    started = start_run(str(Path(json_dumps.__file__)), "NESTED", "json_stdlib", settings)
    assert started is not None and started.perf is not None
    ready = started.worker.wait_for("ready")
    assert ready is not None and os.path.exists(f"/tmp/jit-{ready['pid']}.dump")
    started.cancel()
    assert not os.path.exists(f"/tmp/jit-{ready['pid']}.dump")


DEEP_BENCH = """
import perflab

bench = perflab.Benchmark("deep", description="Work at the bottom of a deep recursion")


@bench.case
def DEEP():
    return 40


def down(depth):
    return down(depth - 1) if depth else sum(range(3000))


@bench.contender
def recursion(depth):
    return down(depth)
"""


def test_stacks_deeper_than_the_first_stack_dump_make_the_later_runs_copy_more(tmp_path):
    """40 Python frames of recursion do not fit in perf's first stack dump (8 kB: the runs' stacks are cut
    before measured_region): that run is left out, and the runs after it copy 4x more and keep the whole
    stack (perf script unwinds past its default 127 frames). One perflab process, 30 samples."""
    bench = tmp_path / "bench_deep.py"
    bench.write_text(DEEP_BENCH)
    out = tmp_path / "deep.profile.json"
    done = run_perflab(
        "profile", bench, "--python", PYTHON, "--native", "--samples", "30", "--runs", "2", "--json", out
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"a run whose stacks were deeper than perf's stack dump of {STACK_DUMP} bytes" in done.stdout + done.stderr
    assert "cut before measured_region: left out" in done.stdout
    profile = Profile.load(out)
    assert f"dwarf,{4 * STACK_DUMP}, -X perf_jit" in profile.metadata["sampler_version"]
    for kept in profile.metadata["run_info"]:  # the left-out run is not among them
        assert kept["stack_dump"] == 4 * STACK_DUMP and not too_truncated(
            kept["truncated"], kept["samples"] + kept["outside_operation"]
        )
    whole = sum(
        count
        for stack, count in profile.runs[-1].items()
        if [parse_frame(label).name for label in stack].count("down") == 41
    )
    assert whole >= 0.5 * sum(profile.runs[-1].values())
