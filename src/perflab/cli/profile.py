"""``perflab profile`` and ``perflab run --profile``.

Handlers only parse, call perflab.profile and hand the result to the renderers.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.cli.support import native_profile, program_profile
from perflab.cli.support.options import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    MAX_TIME_HELP,
    UsageError,
    add_verb,
    case_option,
    check_outputs,
    contender_option,
    deprecated_alias,
    one_name,
    profile_option,
    python_option,
    require_memray,
    resolve_benchmark,
    sampling_options,
    say,
    select,
    timeout_option,
)
from perflab.cli.support.profile_views import OUTPUTS, Views, report, view_options
from perflab.option_types import seconds, whole_number
from perflab.profile.settings import (
    AUTO,
    DEFAULT_MEMORY_RUNS,
    DEFAULT_RATE,
    DEFAULT_RUNS,
    DEFAULT_SAMPLES,
    IN_KERNEL,
    INPROCESS,
    MEMORY_VIEWS,
    NATIVE,
    OWN_CPU,
    PERF,
    PERF_RUNS,
    PY_SPY,
    SHARED,
    ProfileSettings,
)

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.cli.support.measuring import Saved
    from perflab.profile.model import Profile
    from perflab.results.model import RunResult


def register(verbs: argparse._SubParsersAction) -> None:
    profile = add_verb(
        verbs,
        "profile",
        "profile the measured operation (or a whole program: -- COMMAND, --pid N): Python + C frames, "
        "each function's share with its interval",
        "perflab profile json_dumps --case NESTED --contender json_stdlib --native",
        "perflab profile bench.py --case SMALL --html flame.html --speedscope small.speedscope.json",
        "perflab profile bench.py --case SMALL --what-if 'encode*=2x' --json small.profile.json",
        "perflab profile bench.py --case SMALL --lines --python python3.12   (each line's share, under 3.12)",
        "perflab profile --html app.html --json app.json -- python app.py --input data.json",
        "perflab profile --pid 4242 --duration 30 --mode wall",
        "perflab profile --native-command './scanner twitter.json' --html scanner.html   (Linux perf)",
        "perflab profile bench.py --case SMALL --memory --native --html allocations.html   (memray)",
        "perflab profile bench.py --case SMALL --memory --memory-view held   (what the calls keep)",
    )
    program_profile.takes_command(profile)
    profile.usage = "perflab profile [OPTIONS] (BENCHMARK | --pid N | -- COMMAND ... | --native-command CMD)"
    profile.add_argument("benchmark", nargs="?", help="a benchmark file, or the name of a built-in (see perflab list)")
    case_option(profile, "profile takes one; needed when there are several")
    contender_option(profile, "profile takes one; default: the reference")
    _sampling_options(profile)
    _memory_options(profile)
    native_profile.add_options(profile)  # --native-command, --call-graph: programs, with perf
    view_options(profile)
    program_profile.program_options(profile)
    profile.set_defaults(handler=run)


def after_run_options(run: argparse.ArgumentParser) -> None:
    profile_option(run, None, "default: off; --profile-dir, --native or --samples ask for it")
    run.add_argument(
        "--profile-dir",
        metavar="DIR",
        help="write each profile's HTML flame graph and JSON into DIR (implies --profile)",
    )
    sampling_options(run, "per profile")
    deprecated_alias(run, "--profile-native", "--native")
    deprecated_alias(run, "--profile-samples", "--samples")


def _sampling_options(parser: argparse.ArgumentParser) -> None:
    sampling_options(parser, "of the operation, over all runs")
    parser.add_argument(
        "--rate",
        type=whole_number(1),
        metavar="HZ",
        help=f"samples per second (default {DEFAULT_RATE[OWN_CPU]} when py-spy reads the pinned target "
        f"from another CPU without stopping it; {DEFAULT_RATE[SHARED]} when a sample stops the target "
        f"(--blocking, the in-process sampler), on one CPU and for a whole program; {DEFAULT_RATE[NATIVE]} "
        f"with py-spy --native: a native sample stops the target ~1.5 ms; {DEFAULT_RATE[IN_KERNEL]} with perf)",
    )
    parser.add_argument(
        "--runs",
        type=whole_number(1),
        metavar="N",
        help=f"profiling runs (fresh processes) at least; the budget is split over them (default {DEFAULT_RUNS}, "
        f"{PERF_RUNS} with perf; a program: times it is run, default 1; a program under perf: default {PERF_RUNS})",
    )
    parser.add_argument(
        "--mode",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu: samples of running threads (default); wall: waiting threads too",
    )
    parser.add_argument(
        "--sampler",
        choices=(AUTO, PY_SPY, PERF, INPROCESS),
        default=AUTO,
        help="py-spy; perf (Python and C frames at 1 kHz without stopping the target: Linux perf and "
        "CPython 3.13+, see --python); the in-process fallback; or auto (default): with --native perf where "
        "it works, else py-spy; py-spy unless it cannot attach",
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="sample the line each Python frame is running: shares per source line (a line heat map) "
        "in the tables, flame graph and exports, instead of per function; --html: the source of a "
        "clicked function, each line with its shares",
    )
    python_option(parser, "one; default: perflab's own; perflab need not be installed there")
    parser.add_argument(
        "--blocking",
        action="store_true",
        help="pause the target for each sample (exact stacks, more slowdown; always so with "
        "--native). Default: py-spy --nonblocking",
    )
    parser.add_argument(
        "--max-time",
        type=seconds,
        default=300.0,
        metavar="SECONDS",
        help=MAX_TIME_HELP + " (the profiling runs count, --memory's and perf's too; a worker's set-up, or a run "
        "past twice its duration, that outlasts it is stopped and what was sampled before is kept; default 300)",
    )
    timeout_option(parser)


def _memory_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--memory",
        action="store_true",
        help="profile where the operation allocates memory instead of where it spends time (memray: "
        f"pip install 'perflab[memory]'), in {DEFAULT_MEMORY_RUNS} runs unless --runs; with --native, C frames too",
    )
    parser.add_argument(
        "--memory-view",
        choices=tuple(MEMORY_VIEWS),
        default="allocated",
        help="what weighs a call path in --memory's shares and flame graph: "
        + ", ".join(f"{name} ({meaning})" for name, meaning in MEMORY_VIEWS.items())
        + "; default allocated. The figures per call of all four are shown either way",
    )


# Options of time profiles, with their defaults: --memory refuses them rather than ignore them.
_TIME_ONLY: dict[str, object] = {
    "samples": None,
    "rate": None,
    "sampler": AUTO,
    "blocking": False,
    "mode": "cpu",
    "what_if": [],
    "offload": None,
    "lines": False,
    "python": None,
}


def run(args: argparse.Namespace, err: Console) -> int:
    from perflab.bench.loading import load_benchmark
    from perflab.profile.native_perf import is_command
    from perflab.profile.session import perf_problem, profile_operation

    if args.memory and (args.native_command or program_profile.is_program(args) or args.benchmark is None):
        raise UsageError("--memory profiles a benchmark's operation: give a benchmark file or built-in")
    if args.memory_view != "allocated" and not args.memory:
        raise UsageError("--memory-view chooses a view of an allocation profile: add --memory")
    if args.python and (args.native_command or program_profile.is_program(args)):
        raise UsageError(
            "--python profiles a benchmark's operation under that interpreter; a program runs as it is "
            "given (-- /path/to/python3.12 app.py)"
        )
    if args.sampler == PERF and (args.native_command or program_profile.is_program(args)):
        raise UsageError(
            "--sampler perf profiles a benchmark's operation; a Python program is sampled by py-spy, "
            "a native one by perf with --native-command"
        )
    if args.lines and (args.native_command or program_profile.is_program(args)):
        raise UsageError("--lines profiles a benchmark's operation by line; programs are profiled by function")
    views = Views.from_args(args)  # its option errors come before anything is measured
    if args.native_command:
        if args.benchmark or program_profile.is_program(args):
            raise UsageError("--native-command: give one thing to profile (not also a benchmark, --pid or -- COMMAND)")
        check_outputs(args, *OUTPUTS)
        return report(native_profile.profile_command_line(args, err), views, err)
    if program_profile.is_program(args):
        check_outputs(args, *OUTPUTS, inputs=program_profile.inputs_of(args.command))
        return program_profile.run(args, err, lambda outcome, console: report(outcome, views, console))
    if args.benchmark is None:
        raise UsageError(
            "nothing to profile: give a benchmark, --pid N, -- COMMAND (py-spy) or --native-command CMD (Linux perf)"
        )
    path = resolve_benchmark(args.benchmark)
    benchmark = load_benchmark(path)
    case = _one(args.case, benchmark.cases, "case", path, default=None)
    contender = _one(args.contender, benchmark.contenders, "contender", path, default=benchmark.reference.name)
    check_outputs(args, *OUTPUTS, inputs=(path,))
    if args.memory:
        return _profile_memory(
            args, views, path, benchmark.name, case, contender, is_command(benchmark, contender), err
        )
    if is_command(benchmark, contender) and (args.python or args.lines):
        option = "--python" if args.python else "--lines"
        raise UsageError(f"{option}: {contender} is a command contender, profiled by perf as the program it names")
    if is_command(benchmark, contender):  # a program: sampled by perf, not py-spy
        outcome = native_profile.profile_contender(benchmark, case, contender, native_profile.settings_from(args), err)
        return report(outcome, views, err)
    settings = ProfileSettings(
        samples=args.samples,
        **program_profile.sampling(args),
        min_runs=args.runs,
        max_time=args.max_time,
        timeout=args.timeout,
        budget=args.max_time,
        python=_interpreter(args.python),
        lines=args.lines,
    )
    if settings.sampler == PERF and (problem := perf_problem(settings)):
        raise UsageError(problem)
    say(err, f"profiling {benchmark.name} / {case} / {contender} ...")
    outcome = profile_operation(
        str(path), case, contender, settings, benchmark.name, on_run=lambda message: say(err, f"  {message}")
    )
    return report(outcome, views, err)


def _profile_memory(
    args: argparse.Namespace,
    views: Views,
    path: Path,
    name: str,
    case: str,
    contender: str,
    command: bool,
    err: Console,
) -> int:
    """``profile --memory``: an allocation profile (perflab.profile.allocations), refused before
    anything runs when it cannot be made."""
    from perflab.profile.allocations import AllocationSettings, profile_allocations

    for option, default in _TIME_ONLY.items():
        if getattr(args, option) != default:
            raise UsageError(f"--{option.replace('_', '-')} applies to time profiles, not to --memory")
    if command:
        raise UsageError(f"--memory: contender {contender!r} is a command; memray sees Python processes only")
    require_memray("--memory")
    say(err, f"profiling the allocations of {name} / {case} / {contender} ...")
    settings = AllocationSettings(
        view=args.memory_view,
        native=args.native,
        runs=args.runs or DEFAULT_MEMORY_RUNS,
        timeout=args.timeout,
        max_time=args.max_time,
    )
    outcome = profile_allocations(str(path), case, contender, settings, name, lambda message: say(err, f"  {message}"))
    return report(outcome, views, err)


def _interpreter(pythons: list[str] | None) -> str:
    """The executable behind ``--python`` (perflab's own interpreter without it)."""
    import sys

    from perflab.measure.ab_test import CompareError, resolve_python

    if not pythons:
        return sys.executable
    if len(pythons) > 1:
        raise UsageError("--python: a profile is taken under one interpreter; give --python once")
    try:
        return resolve_python(pythons[0])[0]
    except CompareError as error:
        raise UsageError(str(error)) from None


def _one(given: list[str] | None, declared: dict, kind: str, path: Path, default: str | None) -> str:
    requested = one_name(given, f"--{kind}")
    if requested is None:
        if default is not None:
            return default
        if len(declared) == 1:
            return next(iter(declared))
        raise UsageError(f"{path}: {len(declared)} {kind}s ({', '.join(declared)}): choose one with --{kind}")
    return select([requested], declared, kind, str(path))[0]


def after_run(
    result: RunResult,
    path: Path,
    benchmark_name: str,
    args: argparse.Namespace,
    err: Console,
    saved: Saved | None = None,
) -> int:
    """``run --profile``: profile each measured (case, contender) after timing, keeping each profile
    next to the stored run (``saved``) for ``perflab history``; the worst exit code."""
    wanted = args.profile if args.profile is not None else bool(args.profile_dir or args.native or args.samples)
    if result.interrupted or not wanted:
        return EXIT_OK
    # Imported for --profile only: every run passes here, and the metrics' modules cost it CPU.
    from perflab import metrics
    from perflab.bench.loading import load_benchmark
    from perflab.profile.native_perf import is_command
    from perflab.profile.session import profile_operation

    if args.profile_dir:
        Path(args.profile_dir).mkdir(parents=True, exist_ok=True)
    worst = EXIT_OK
    benchmark = load_benchmark(path)
    for cell in result.cells:
        if cell.estimates is None:
            continue
        say(err, f"profiling {cell.case} / {cell.contender} ...")
        if is_command(benchmark, cell.contender):  # a program: perf, not py-spy
            from perflab.profile.native_perf import NativeSettings

            native = NativeSettings(
                samples=args.samples or DEFAULT_SAMPLES[False], max_time=args.max_time, timeout=args.timeout
            )
            outcome = native_profile.profile_contender(benchmark, cell.case, cell.contender, native, err)
        else:
            settings = ProfileSettings(
                samples=args.samples, native=args.native, timeout=args.timeout, budget=args.max_time
            )
            outcome = profile_operation(str(path), cell.case, cell.contender, settings, benchmark_name)
        stem = Path(args.profile_dir or ".") / safe_file_name(f"{cell.case}-{cell.contender}")
        views = Views(
            html=f"{stem}.html" if args.profile_dir else None, json=f"{stem}.profile.json" if args.profile_dir else None
        )
        metrics.annotate_profile(outcome.profile, result, cell.case, cell.contender)  # --metric cache's misses
        worst = max(worst, report(outcome, views, err))
        if outcome.interrupted:
            break
        if saved is not None and saved.run_id is not None and outcome.profile.runs:
            worst = max(worst, store_profile(outcome.profile, cell.case, cell.contender, saved, err))
    return worst


def store_profile(profile: Profile, case: str, contender: str, saved: Saved, err: Console) -> int:
    """Keep a profile in the database next to its run; if the database refuses it, in a file (the
    run itself is stored already and stays so)."""
    from perflab.results.store import Store, StoreError

    assert saved.run_id is not None and saved.path is not None  # a stored run
    try:
        with Store.open(saved.path, create=False) as store:
            store.save_profile(saved.run_id, case, contender, profile)
    except StoreError as error:
        kept = Path(f"perflab-unsaved-run{saved.run_id}-{safe_file_name(f'{case}-{contender}')}.profile.json")
        profile.save(kept)
        say(err, f"perflab: error: {error}; the profile is kept in {kept} (run {saved.run_id} is stored without it)")
        return EXIT_BAD_INPUT
    err.print(f"[dim]profile stored with run {saved.run_id}[/]", highlight=False)
    return EXIT_OK


def safe_file_name(name: str) -> str:
    """A file name from user-chosen case and contender names."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
