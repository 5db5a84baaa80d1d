"""The worker side runs under the measured interpreter, which may have nothing but its standard
library: perflab.bench.worker, perflab.bench.spec and perflab.bench.comparators are run here under other CPython
versions in isolated mode with no site-packages (``-I -S``), through a real job."""

import glob
import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

import perflab

SOURCE_ROOT = str(Path(perflab.__file__).resolve().parent.parent)  # the directory holding perflab/
INTERPRETERS = ["python3.10", "python3.12", "python3.13"]
BENCH = textwrap.dedent("""
    import perflab
    bench = perflab.Benchmark("boundary", compare="json")
    @bench.case
    def SMALL():
        return [3, 1, 2]
    @bench.contender
    def builtin(xs):
        return sorted(xs)
    @bench.contender
    def by_hand(xs):
        return [min(xs), *sorted(xs)[1:]]
""")
# Runs the worker package as `python -m perflab.bench.worker` would, with only SOURCE_ROOT importable,
# then lists every module the job imported that is not in the standard library.
PROBE = textwrap.dedent("""
    import json, runpy, sys
    sys.path.insert(0, {root!r})
    before = set(sys.modules)
    try:
        runpy.run_module("perflab.bench.worker", run_name="__main__")
    except SystemExit as stop:
        code = stop.code
    loaded = {{name.partition(".")[0] for name in set(sys.modules) - before}}
    foreign = sorted(name for name in loaded   # the benchmark file loads as perflab_benchmark_<stem>
                     if name not in sys.stdlib_module_names and not name.startswith("perflab") and name != "__main__"
                     and not name.startswith("_"))
    sys.stderr.write("FOREIGN " + json.dumps(foreign) + "\\n")
    sys.exit(code)
""")


def interpreter(name: str) -> str:
    """``name`` (python3.12) from PATH, else from pyenv's versions (whose shims run only the
    selected version)."""
    version = name.removeprefix("python")
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for candidate in [shutil.which(name), *sorted(glob.glob(f"{pyenv}/versions/{version}.*/bin/{name}"))]:
        if candidate and subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    pytest.skip(f"{name} is not installed here")


@pytest.mark.parametrize("name", INTERPRETERS)
@pytest.mark.parametrize(
    "job", [{"mode": "describe"}, {"mode": "check", "case": "SMALL", "contender": "by_hand", "reference": "builtin"}]
)
def test_worker_runs_with_only_the_standard_library(name, job, tmp_path):
    python = interpreter(name)
    bench = tmp_path / "boundary_bench.py"
    bench.write_text(BENCH)
    process = subprocess.run(
        [python, "-I", "-S", "-B", "-c", PROBE.format(root=SOURCE_ROOT)],
        input=json.dumps({**job, "file": str(bench)}) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    events = [json.loads(line) for line in process.stdout.splitlines()]
    assert process.returncode == 0, process.stderr
    assert events[-1]["event"] == "done" and not any(e["event"] == "error" for e in events), events
    foreign = json.loads(process.stderr.rsplit("FOREIGN ", 1)[1])
    assert foreign == [], f"the worker imported modules outside the standard library under {name}: {foreign}"


def test_the_benchmark_file_api_imports_only_the_standard_library():
    python = interpreter("python3.12")
    probe = (
        f"import sys; sys.path.insert(0, {SOURCE_ROOT!r}); before = set(sys.modules); "
        "import perflab, perflab.bench.spec, perflab.bench.comparators, perflab.bench.worker.dispatch, perflab.bench.worker.fuzz, "
        "perflab.bench.worker.inprocess_sampler; "
        "print(sorted({m.partition('.')[0] for m in set(sys.modules) - before} "
        "- set(sys.stdlib_module_names) - {'perflab'}))"
    )
    process = subprocess.run([python, "-I", "-S", "-B", "-c", probe], capture_output=True, text=True, timeout=60)
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == "[]"
