"""perf as the sampler under CPython 3.12 (-X perf, with the unwinding information the worker writes:
perflab.bench.worker.perf_jitdump): the built-in json_dumps, Python and C frames in one profile."""

import platform
import shutil

import pytest
from support.external import other_python, skip_anywhere
from support.perf_sampler_shared import nested_native_profile

from perflab.profile.frames import parse_frame

PYTHON = other_python("3.12")
pytestmark = pytest.mark.skipif(
    shutil.which("perf") is None or PYTHON is None,
    reason="needs Linux perf (.ci/run installs linux-perf) and pyenv's python3.12",
)


def test_native_frames_of_312_come_from_perf_through_every_python_call(tmp_path):
    """~19 s wall (4 s CPU) at load 11: perf record, inject and script are what is tested, so one worker
    under python3.12 (perflab imported there) and 100 samples, the fewest runs and samples that show the
    stacks; --native picks perf by default."""
    if platform.machine() != "x86_64":
        skip_anywhere("perflab describes 3.12's trampoline on x86-64 only")
    done, profile = nested_native_profile(tmp_path, PYTHON, "--samples", "100", "--runs", "1")
    assert "-X perf with perflab's jitdump" in done.stdout
    stacks = profile.merged()
    # every stack unwinds through the Python calls down to the contender (the harness trimmed below it)
    at_contender = sum(count for stack, count in stacks.items() if stack[:1] and stack[0].startswith("json_stdlib "))
    assert at_contender >= 0.9 * profile.samples
    names = [[parse_frame(label).name for label in stack] for stack in stacks]
    assert any("py_encode_basestring_ascii" in n[n.index("dumps") :] for n in names if "dumps" in n)
    dumps = next(parse_frame(label) for stack in stacks for label in stack if label.startswith("dumps "))
    assert dumps.file == "<stdlib>/json/__init__.py" and dumps.line is not None  # named as py-spy names it
    assert not any("perflab trampolines" in label for stack in stacks for label in stack)  # all named
    unknown = sum(count for stack, count in stacks.items() if any("[unknown]" in label for label in stack))
    assert unknown <= 0.02 * profile.samples
