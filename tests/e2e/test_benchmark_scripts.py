"""Every figure script in benchmarks/ still runs: ``python benchmarks/X.py --quick`` in a subprocess.

A smoke run goes through the script's own code at its smallest size, prints its figure marked as a
smoke run and writes its results file into a temporary folder. Each test checks that the script
exits 0, printed its figure, said it was a smoke run, and left benchmarks/results/ as it was (the
figures README.md quotes are never overwritten by a smoke run). Scripts that need a tool this
machine may lack (a compiler, perf, valgrind, py-spy, a browser, PostgreSQL, hyperfine) are
skipped, saying what to install, when it is missing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from support.compiled_projects import uv_on_path
from support.external import other_python

from perflab.profile.sampler import find_py_spy

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
RESULTS = BENCHMARKS / "results"
TIME_LIMIT = 120  # seconds per script; a smoke run takes a few seconds to a minute on a loaded 2-core machine
# Slower by nature: one to three callgrind runs of a Python worker (1-2 minutes each on a loaded machine);
# a PostgreSQL cluster with queue workers, one killed on purpose; two builds of a C extension
# (venvs, setuptools from PyPI: ~20 s each, minutes on a loaded machine), and three more for the
# build-to-build spread with two QUICK comparisons; two builds of a C extension, a check and the
# by-hand flow's two installs (compiled_power); three perflab profiles under python3.13 besides a
# perf window (70 s at load 8); a bisection's three measurements of 5 rounds or more (40 s at load 7).
LONGER_TIME_LIMITS = {
    "bisect_cost": 300,
    "instruction_stability": 600,
    "cache_stability": 600,
    "team_scale": 300,
    "build_cost": 600,
    "compiled_power": 600,
    "perf_sampler": 300,
}

# What each tool's absence looks like, and how to install it.
TOOLS: dict[str, tuple[Callable[[], object], str]] = {
    "g++": (lambda: shutil.which("g++"), "apt-get install -y g++"),
    "gcc": (lambda: shutil.which("gcc"), "apt-get install -y gcc"),
    "perf": (lambda: shutil.which("perf"), "apt-get install -y linux-perf"),
    "valgrind": (lambda: shutil.which("valgrind"), "apt-get install -y valgrind"),
    "py-spy": (find_py_spy, "pip install py-spy"),
    "python3.13": (lambda: other_python("3.13"), "pyenv install 3.13"),
    "hyperfine": (lambda: shutil.which("hyperfine"), "cargo install hyperfine"),
    "chromium": (
        lambda: Path("/usr/bin/chromium").exists() and importlib.util.find_spec("playwright"),
        "apt-get install -y chromium; pip install playwright",
    ),
    "PostgreSQL": (lambda: any(Path("/usr/lib/postgresql").glob("*/bin/initdb")), "apt-get install -y postgresql"),
}

# script: (a pattern of the line that states its figure, the tools it needs)
SCRIPTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "affected_selection": (r"regressed cells skipped: \d+/\d+ over \d+ trials", ()),
    "aa_false_positives": (r"difference declared: \d+/1 ", ()),
    "allocation_accuracy": (r"accuracy: \d+/2 cells within 1% or 64 bytes", ()),
    "asv_timing_causes": (r"one setup\+call timed after a blocking pipe read: [\d.]+ .s", ()),
    "asv_side_by_side": (r"asv's median inside perflab's 95% interval for \d+ of \d+ cases with an interval", ()),
    "bisect_cost": (r"right commit found: \d+/1 ", ()),
    "broken_optimizations": (r"median\.sort_in_place", ()),
    "build_cost": (r"cold build \(pip\): median [\d.]+ s over 1 trials(.|\n)*build-to-build spread", ("gcc",)),
    "cache_stability": (r"largest spread of counters >= 1 per call: [\d.]+%", ("valgrind",)),
    "case_studies": (r"Headline figures", ()),
    "changepoint_replay": (r"false change points \(whole history\): [\d.]+ per 1,000", ()),
    "check_gate": (r"regression caught \(exit 1\): \d+/1 ", ()),
    "qualify_floor": (r"above the floor .*: detected \d+/1 ", ()),
    "command_contenders": (r"power at \d+% \(M sized .*\): \d+/1 'slower'", ("g++",)),
    "compiled_power": (r"5% slower C \(slow vs base\): detected \d+/1 (.|\n)*wall time, by hand", ("gcc",)),
    "compare_revisions": (r"detected as slower: \d+/1 ", ()),
    "diff_profile_precision": (r"pad holds", ("py-spy",)),
    "equivalence_cost": (r"new / base: [\d.]+", ()),
    "hostile_inputs": (r"\d+ hostile inputs, \d+ with nothing lost", ()),
    "hyperfine_side_by_side": (r"perflab ratio [\d.]+", ("g++", "hyperfine")),
    "instruction_stability": (r"extra vs base: instructions [+-][\d.]+%", ("valgrind",)),
    "memory_gate": (r"A/A: \d+/\d+ false regressions of the memory gate", ()),
    "memory_overhead": (r"perflab profile --memory +x[\d.]+ \[95% CI", ()),
    "native_profile_attribution": (r"heavy's share median", ("g++", "perf")),
    "power": (r"detected as slower: \d+/1 ", ()),
    "profile_attribution": (r"function shares max abs error [\d.]+ pp", ("py-spy",)),
    "profile_distortion": (r"slowdown +[+-][\d.]+% \[95% CI", ("py-spy",)),
    "profile_speed": (r"profiling json_dumps \(\d+ sides, 100 samples per side\): before [\d.]+ s", ("py-spy",)),
    "profile_viewer_scale": (r"chromium \(best of 1\): navigation to first draw", ("chromium",)),
    "isolate_bias": (r"isolated vs direct: \d+ of \d+ comparisons say a difference", ()),
    "program_profile": (r"profiling overhead: program wall time x[\d.]+", ("py-spy",)),
    "perf_sampler": (r"time to \d+ native samples: perf [\d.]+ s", ("perf", "py-spy", "python3.13")),
    "pyperf_agreement": (r"cpu: medians within 3% for \d+ of \d+", ()),
    "pyperf_scripts": (r"perflab median .* over \d+ processes", ()),
    "pyperformance_suite": (r"unpickle_list +ran\b.* pyperf --fast ran", ()),
    "sequential_verdicts": (
        r"perflab answered +[\d.]+ s  faster .* stopped: \w+ after \d+ rounds(.|\n)*pyperf +[\d.]+ s",
        (),
    ),
    "sampler_pause": (r"stopped: slowdown +[+-][\d.]+%", ("py-spy",)),
    "repeat_only_cautions": (r"false cautions \(genuine contenders\): \d+/\d+ faster comparisons", ()),
    "startup": (r"perflab --help / pyperf: x[\d.]+", ()),
    "store_load": (r"4 writers x 20 runs .* integrity_check=ok", ()),
    "team_scale": (r"writes, postgresql: \d+ writers x 3 saves", ("PostgreSQL",)),
    "time_to_answer": (r"perflab compare json_dumps --case NESTED .*\(after\): [\d.]+ s, exit code 0", ("py-spy",)),
    "time_to_precision": (r"perflab/pyperf wall time: [\d.]+", ()),
    "timing_under_load": (r"five_x quiet: done(.|\n)*quiet +ratio [\d.]+ \[", ()),
    "web_scale": (r"series chart drawn in Chromium: median", ("chromium",)),
}


def test_every_script_has_a_smoke_test():
    scripts = {path.stem for path in BENCHMARKS.glob("[!_]*.py")}
    assert scripts == set(SCRIPTS)


def run_in_own_session(command: list[str], timeout: float, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``command``; past ``timeout`` kill its whole process group, so that what a script
    started (a PostgreSQL cluster, queue workers) does not outlive it. This environment's scripts
    come first on PATH, as in CI's activated venv: the scripts that build revisions build with uv
    from there, as CI's runs do, even when the tests run without activating it (twice the CPU with pip)."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "PATH": uv_on_path()},
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def results_digest() -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(RESULTS.glob("*"))}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_quick_run_prints_its_figure_and_keeps_the_real_results(script, tmp_path):
    figure, tools = SCRIPTS[script]
    for tool in tools:
        present, install = TOOLS[tool]
        if not present():
            pytest.skip(f"{script}.py needs {tool}, which is not installed ({install})")
    before = results_digest()
    done = run_in_own_session(
        [sys.executable, str(BENCHMARKS / f"{script}.py"), "--quick"],
        LONGER_TIME_LIMITS.get(script, TIME_LIMIT),
        tmp_path,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert re.search(figure, done.stdout), done.stdout[-3000:]
    written = re.search(r"^SMOKE RUN \(--quick\): not a figure; written to (.+)$", done.stdout, re.MULTILINE)
    assert written, done.stdout[-3000:]
    smoke_folder = Path(written[1]).parent
    assert smoke_folder.parent == Path(tempfile.gettempdir())
    shutil.rmtree(smoke_folder)
    assert results_digest() == before
