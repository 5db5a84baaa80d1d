"""Hostile benchmark files and process checks shared by tests/e2e/test_hostile.py and
benchmarks/hostile_inputs.py (the figure of issue 11): each probe gets its own small file."""

from __future__ import annotations

import os
import time
from pathlib import Path

# Two contenders of one trivial operation: quick to measure.
SORTS = """
import perflab

bench = perflab.Benchmark("sorts")

@bench.case
def SMALL():
    return list(range(200, 0, -1))

@bench.contender
def by_sorted(xs):
    return sorted(xs)

@bench.contender
def by_list_sort(xs):
    ys = list(xs)
    ys.sort()
    return ys
"""

# After HANG_AFTER calls in one process the contender sleeps for an hour: 0 hangs at its first call
# (fuzzing, or the checks when nothing is fuzzed); 1,000 only while its values are timed. Each call
# sleeps 0.1 ms, so that call counts do not follow the CPU's speed or load: a value of 5 ms is at most
# ~40 calls, set-up (calibration) and warm-ups under 200, the checks a handful, 200 values over 1,000.
HANGS = """
import time

import perflab

bench = perflab.Benchmark("hangs")
HANG_AFTER = {after}
calls = 0


@bench.case
def SMALL():
    return [3, 1, 2]


@bench.contender
def reference(xs):
    return sorted(xs)


@bench.contender
def hangs(xs):
    global calls
    calls += 1
    time.sleep(0.0001)
    if calls > HANG_AFTER:
        time.sleep(3600)
    return sorted(xs)
"""

# Every contender of SORTS raises.
FAILING = SORTS.replace("    return sorted(xs)", "    raise ValueError('no')").replace(
    "    ys.sort()\n    return ys", "    raise ValueError('no')"
)

# One call lasts SECONDS, asleep: as long a call as a slow computation's, without taking a CPU from
# the tests beside it (a busy loop to a deadline also burns more CPU the less loaded the machine is).
# What the tests of it look at is how long a call lasts: the budget, a signal in the middle of one.
SLOW_CALL = """
import time
import perflab

bench = perflab.Benchmark("slow")

@bench.case
def ONE():
    return 1

@bench.contender
def slow(x):
    time.sleep(SECONDS)
    return x
"""

# Hostile contenders, each to be appended to SORTS.
CONTENDERS = {
    "a thread left spinning": """
import threading
_started = []
@bench.contender
def spins_a_thread(xs):
    if not _started:
        _started.append(threading.Thread(target=lambda: [None for _ in iter(int, 1)], daemon=True))
        _started[0].start()
    return sorted(xs)
""",
    "a child process left running": """
import subprocess, sys
_children = []
@bench.contender
def leaves_a_child(xs):
    if not _children:
        _children.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]))
    return sorted(xs)
""",
    "sys.exit() in a contender": "import sys\n@bench.contender\ndef calls_sys_exit(xs):\n    sys.exit(0)\n",
    "os._exit() in a contender": "import os\n@bench.contender\ndef calls_os_exit(xs):\n    os._exit(0)\n",
    "a contender closing fd 0": "import os\n@bench.contender\ndef closes_stdin(xs):\n"
    "    try:\n        os.close(0)\n    except OSError:\n        pass\n    return sorted(xs)\n",
    "ESC[2J and BEL in a name": '@bench.contender(name="\\x1b[2Jcleared\\x07")\n'
    "def hostile(xs):\n    return sorted(xs)\n",
    "![x](https://...) in a name": '@bench.contender(name="![x](https://example.invalid/t.png)")\n'
    "def image(xs):\n    return sorted(xs)\n",
    "b = a (one Benchmark, two names)": "alias = bench\n",
}


def processes_left(marker: str, seconds: float = 5.0) -> list[int]:
    """processes_marked once none is left, or after ``seconds``: a killed grandchild (not perflab's
    to wait for) can take a moment to go on a loaded machine; one still there after it is left."""
    deadline = time.monotonic() + seconds
    while (found := processes_marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def processes_marked(marker: str) -> list[int]:
    """Live processes (not this one) whose environment carries ``marker``: perflab started with it,
    the workers it started, and what they started."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in environ and state != "Z" and int(pid) != os.getpid():
            found.append(int(pid))
    return found


# Busy 1 ms a call (CPU-time samples see it); the second worker process to call the contender
# hangs after {after} calls (the workers register in workers.txt beside the file), so a profile's
# first run is finished and its second hangs inside the profiled calls, after its set-up.
HANGS_IN_THE_SECOND_WORKER = """
import os
import time

import perflab

bench = perflab.Benchmark("hangs_later")
WORKERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workers.txt")
calls = 0


@bench.case
def SMALL():
    return [3, 1, 2]


@bench.contender
def hangs(xs):
    global calls
    calls += 1
    if calls == 1:
        with open(WORKERS, "a") as workers:
            workers.write(f"{{os.getpid()}}\\n")
    if calls > {after} and len(open(WORKERS).read().split()) > 1:
        time.sleep(3600)
    end = time.perf_counter() + 0.001
    while time.perf_counter() < end:
        pass
    return sorted(xs)
"""
