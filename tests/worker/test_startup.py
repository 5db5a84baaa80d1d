"""``perflab --help`` and the start of every verb stay fast: building the command line imports
the parser's own modules only, none of the libraries (rich, numpy, scipy, Hypothesis, pyperf)
or perflab modules the verbs import where they use them. (How fast it is, is a figure in
benchmarks/startup.py, not a test.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("numpy", "scipy", "hypothesis", "pyperf", "psycopg", "procrastinate")
# What parsing may import: the command line itself, option validators, and the modules that hold
# the defaults its help shows (no samplers, no statistics, no renderers, no benchmark loading).
PARSER_MODULES = {
    "perflab",
    "perflab.option_types",
    "perflab.profile",
    "perflab.profile.settings",
    "perflab.isolate",
    "perflab.credentials",  # the one masking of a database URL's password (standard library only)
}
PROBE = """
import contextlib, io, sys
already = set(sys.modules)
from perflab import cli
parser = cli.parser()
for verb in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args([verb, "--help"] if verb else ["--help"])
        except SystemExit:
            pass
imported = set(sys.modules) - already
print(" ".join(sorted(imported)))
"""
VERBS = ["run", "compare", "bisect", "demo", "list", "history", "check", "import", "export", "profile", "merge", "diff"]
VERBS += ["isolate", "serve", "publish", "submit", "worker", "jobs"]


# perflab VERB ... in this process, then a last line: "LOADED" and the modules it imported.
STATS_PROBE = """
import runpy, sys
sys.argv = ["perflab", *sys.argv[1:]]
try:
    runpy.run_module("perflab", run_name="__main__")
except SystemExit as done:
    assert not done.code, done.code
print("LOADED", *sorted(sys.modules))
"""


def loaded_by(stdout: str) -> set[str]:
    """The modules STATS_PROBE's verb imported, from its last line."""
    last = stdout.strip().splitlines()[-1].split()
    assert last[0] == "LOADED", stdout[-300:]
    return set(last[1:])


def imported_by_help(*verbs: str) -> set[str]:
    """The modules that building the parser and printing the help of ``verbs`` ("": the top) import."""
    done = subprocess.run([sys.executable, "-c", PROBE, *verbs], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_help_of_every_verb_imports_no_heavy_library():
    assert not {name.partition(".")[0] for name in imported_by_help(*VERBS)} & set(HEAVY)


def test_help_imports_the_parser_and_the_standard_library_only():
    imported = imported_by_help("", *VERBS)
    ours = {name for name in imported if name.partition(".")[0] == "perflab"}
    assert {name for name in ours if not name.startswith("perflab.cli")} <= PARSER_MODULES, sorted(ours)
    others = {name.partition(".")[0] for name in imported} - set(sys.stdlib_module_names) - {"perflab"}
    assert not others, f"libraries imported to print the help: {sorted(others)}"  # rich among them, once


def test_the_results_model_and_store_import_no_statistics_library():
    probe = (
        "import sys, perflab.results.model, perflab.results.store, perflab.render.terminal.results; "
        "print(' '.join(sorted({m.partition('.')[0] for m in sys.modules} & {'numpy', 'scipy'})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_the_store_verbs_import_no_statistics_library_where_they_compute_none(tmp_path):
    """import, history and export read and write stored results; scipy.stats (~0.6 s of CPU to
    import) once came in through the foreign-results readers and the memory metric's modules."""
    from perflab.analysis.estimates import estimate_cell
    from perflab.results.model import Cell, ProcessRun, RunResult

    cell = Cell("SMALL", "reference", runs=[ProcessRun(0, 10, [], [1e-6, 1.1e-6, 0.9e-6])])
    cell.estimates = estimate_cell(cell.process_values())
    result = RunResult(benchmark="b", file="b.py", reference="reference", settings={}, metadata={}, work={})
    result.cells.append(cell)
    result.save(tmp_path / "run.json")
    db = str(tmp_path / "store.db")
    for verb in (["import", str(tmp_path / "run.json")], ["history", "b"], ["export", str(tmp_path / "out")]):
        done = subprocess.run(
            [sys.executable, "-c", STATS_PROBE, *verb, "--db", db],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert done.returncode == 0, (verb, done.stderr)
        assert "scipy.stats" not in loaded_by(done.stdout), verb


def test_a_measuring_run_imports_neither_scipy_stats_nor_what_was_not_asked_for(tmp_path):
    """run's t intervals, tests and FDR step-up come from scipy.special (perflab.analysis.intervals):
    scipy.stats cost every measuring verb ~0.7 s of CPU to import. Checked on a run with a verdict,
    which also imports none of the modules of the options it was not given."""
    (tmp_path / "bench.py").write_text(
        "import perflab\nbench = perflab.Benchmark('sum')\n\n@bench.case\ndef SMALL():\n    return list(range(100))\n\n"
        "@bench.contender\ndef builtin(xs):\n    return sum(xs)\n\n"
        "@bench.contender\ndef loop(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    )
    quick = ["--precision", "50", "--values", "5", "--value-time", "0.002", "--debug-rounds", "2", "--no-fuzz"]
    done = subprocess.run(
        [sys.executable, "-c", STATS_PROBE, "run", "bench.py", *quick, "--no-store", "--json", "out.json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "loop" in (tmp_path / "out.json").read_text()
    loaded = loaded_by(done.stdout)
    assert "scipy.stats" not in loaded
    # Metrics beside time, the HTML and Markdown reports (jinja2), pyperf files, --profile: a tenth
    # of a second of CPU or more each, in every run that did not ask for them.
    not_asked = {"perflab.metrics", "perflab.render.html.report", "jinja2", "perflab.render.markdown", "pyperf"}
    not_asked |= {"perflab.profile.session"}
    assert not not_asked & loaded, sorted(not_asked & loaded)


# The real worker, its job on standard input; at exit, the modules it imported, into the file named.
WORKER_PROBE = """
import atexit, runpy, sys
atexit.register(lambda: open(sys.argv[1], "w").write(" ".join(sorted(sys.modules))))
runpy.run_module("perflab.bench.worker", run_name="__main__")
"""
COUNTED = """
import perflab
bench = perflab.Benchmark("counted")

@bench.case
def N():
    return 3

@bench.contender
def sum_to(n):
    return sum(range(n))
"""


def worker_imports(directory: Path, job: dict, *commands: str) -> tuple[str, set[str]]:
    """A real worker's events (with its standard error) and the modules it imported, for ``job``
    (and ``commands`` after it) on the COUNTED benchmark."""
    bench = directory / "bench.py"
    bench.write_text(COUNTED)
    modules = directory / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", WORKER_PROBE, modules],
        input="".join(line + "\n" for line in [json.dumps({**job, "file": str(bench)}), *commands]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout + done.stderr, set(modules.read_text().split())


OTHER_JOB_MODES = ("checks", "fuzz", "timing", "profiling", "allocations", "reach", "describe")
# Annotations' imports and the wire's TypedDicts serve mypy only; the benchmark-file API's classes
# are not dataclasses: every worker's start-up, and seconds of it under valgrind.
TYPING_AND_INSPECT = {"typing", "perflab.bench.protocol", "dataclasses", "inspect", "ast", "dis"}


def test_a_worker_imports_the_modules_of_its_own_job_mode_only(tmp_path):
    """A worker runs one job, and a counted one runs under valgrind (--metric instructions, cache),
    where each module imported at start-up costs seconds: the other job modes' stay unimported, and
    so do the loaders of the benchmark kinds it is not."""
    job = {"mode": "count", "contender": "sum_to", "sys_path": [], "case": "N", "loops": 5, "warmups": 1, "memory": False}  # fmt: skip
    events, imported = worker_imports(tmp_path, job)
    assert '"event": "count"' in events, events
    assert "perflab.bench.worker.counting" in imported
    assert not {f"perflab.bench.worker.{mode}" for mode in OTHER_JOB_MODES} & imported
    # Nor the loaders of the other kinds of benchmark (an asv suite, a pyperf script).
    assert not {"perflab.bench.asv_suite", "perflab.bench.pyperf_script", "argparse"} & imported
    # Nor what serves mypy only, nor what dataclasses bring (inspect: ast, dis): perflab.bench's docstring;
    # nor hashlib (OpenSSL), which fingerprints timed inputs only.
    assert not (TYPING_AND_INSPECT | {"hashlib"}) & imported, sorted((TYPING_AND_INSPECT | {"hashlib"}) & imported)


# What only a command contender (perflab.bench.commands) or fuzzing needs.
PROGRAM_MODULES = {"perflab.bench.commands", "subprocess", "shutil", "tempfile", "signal", "fcntl", "shlex"}
# pathlib brings urllib.parse, ipaddress, fnmatch: the loader (perflab.bench.loading) does without.
LOADER_MODULES = {"pathlib", "urllib.parse", "ipaddress"}
FUZZ_MODULES = {
    "perflab.bench.worker.fuzz",
    "perflab.bench.worker.contender_lines",
    "perflab.bench.worker.derived_strategies",
}


def test_a_timing_worker_of_python_functions_imports_no_program_or_fuzzing_machinery(tmp_path):
    """Every perflab run starts a dozen workers, most of them timing workers: a benchmark of Python
    functions runs no program and fuzzes nothing there, so the modules that do stay unimported
    (they were a fifth of a worker's start-up CPU)."""
    job = {"mode": "time", "contender": "sum_to", "sys_path": [], "case": "N", "loops": 5, "cpu": None, "value_time": 0.001, "reference": None}  # fmt: skip
    events, imported = worker_imports(tmp_path, job, '{"do": "value"}', '{"do": "exit"}')
    assert '"event": "value"' in events and '"event": "done"' in events, events
    assert "perflab.bench.worker.timing" in imported
    unneeded = PROGRAM_MODULES | FUZZ_MODULES | LOADER_MODULES | TYPING_AND_INSPECT
    assert not unneeded & imported, sorted(unneeded & imported)


def test_a_check_worker_imports_no_fuzzing_machinery(tmp_path):
    """A run starts a check job per contender and side; only the fuzz job, in the same module,
    generates inputs."""
    job = {"mode": "check", "contender": "sum_to", "sys_path": [], "case": "N", "reference": "sum_to"}
    events, imported = worker_imports(tmp_path, job)
    assert '"event": "check"' in events and '"event": "done"' in events, events
    unneeded = FUZZ_MODULES | TYPING_AND_INSPECT
    assert not unneeded & imported, sorted(unneeded & imported)


def test_perflabs_own_interpreter_is_described_without_a_process_and_as_the_probe_does(monkeypatch):
    """Every measuring verb records the workers' interpreter; when that is perflab's own (the
    default) its facts come from this process, not from a probe process per run, and are the
    probe's (asked here of the same interpreter under another spelling of its path)."""
    from perflab.measure import metadata

    same = os.path.join(os.path.dirname(sys.executable), ".", os.path.basename(sys.executable))
    probed = metadata.interpreter_info(same)

    def no_process(*args, **kwargs):
        raise AssertionError(f"a process was started: {args}")

    monkeypatch.setattr(metadata.subprocess, "run", no_process)
    here = metadata.interpreter_info(sys.executable)
    assert os.path.samefile(probed.pop("executable"), here.pop("executable"))
    assert probed == here
