"""The ``perflab`` command line.

Exit codes: 0 all measured and equivalent; 1 a contender failed, was not equivalent, or a case
could not be measured; 2 bad input (file, name, option); 130 interrupted (results still written).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from rich.console import Console

from perflab import __version__, builtins
from perflab.spec import Benchmark, BenchmarkFileError, load_benchmark

EXIT_OK, EXIT_FAILURES, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
DEMO_MAX_TIME = 8.0
DEMO_PRECISION = 0.02


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    err = Console(stderr=True, highlight=False)
    try:
        return args.handler(args, err)
    except (UsageError, BenchmarkFileError) as error:
        err.print(f"perflab: error: {error}", markup=False, soft_wrap=True)  # one line, even in narrow logs
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        err.print("perflab: interrupted")
        return EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    from perflab import cli_guard, reporting
    from perflab.profile import commands as profile_commands
    parser = argparse.ArgumentParser(
        prog="perflab", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A performance lab for Python: measure, compare alternatives, prove equivalence.",
        epilog=_examples("perflab run bench.py", "perflab run json_dumps --case NESTED",
                         "perflab list", "perflab demo"))
    parser.add_argument("--version", action="version", version=f"perflab {__version__}")
    verbs = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)

    run = _verb(verbs, "run", "time every contender of every case, adaptively, with 95%% CIs",
                "perflab run bench.py",
                "perflab run json_dumps --case NESTED --contender json_stdlib,orjson",
                "perflab run bench.py --precision 0.5 --max-time 120 --json results.json",
                "perflab run bench.py --pyperf pyperf-out/  &&  "
                "pyperf compare_to pyperf-out/a.json pyperf-out/b.json")
    run.add_argument("benchmark", help="a benchmark file, or the name of a built-in (see perflab list)")
    run.add_argument("--case", action="append", metavar="NAME", help="only these cases (repeat or comma-separate)")
    run.add_argument("--contender", action="append", metavar="NAME",
                     help="only these contenders (repeat or comma-separate); the reference is always kept")
    _timing_options(run)
    run.add_argument("--json", metavar="FILE", help="write all raw values, estimates and metadata (perflab.results/2)")
    run.add_argument("--pyperf", metavar="DIR", help="write one pyperf JSON file per contender into DIR")
    cli_guard.store_options(run)
    profile_commands.run_options(run)  # --profile: profile after timing
    _metric_option(run)
    run.set_defaults(handler=_run)

    compare = _verb(verbs, "compare", "A/B: verdicts with CIs, equivalence (declared cases and fuzzing), "
                    "across contenders, git revisions or interpreters",
                    "perflab compare bench.py                          # every contender vs the reference",
                    "perflab compare json_dumps --contenders orjson,ujson --case NESTED",
                    "perflab compare bench.py --rev main --rev HEAD     # the same benchmark on two revisions",
                    "perflab compare bench.py --rev HEAD --rev WORKTREE # uncommitted changes vs HEAD",
                    "perflab compare bench.py --python python3.11 --python python3.12",
                    "perflab compare bench.py --markdown summary.md --json results.json",
                    "perflab compare json_dumps --html report.html   # with flame graphs and differential profiles")
    compare.add_argument("benchmark", help="a benchmark file, or the name of a built-in (see perflab list)")
    compare.add_argument("--contenders", metavar="A,B,...", help="contenders to compare with the reference (default all)")
    compare.add_argument("--rev", action="append", metavar="REV",
                         help="a git revision (repeat; WORKTREE = uncommitted state); each runs in its own worktree")
    compare.add_argument("--python", action="append", metavar="PYTHON", help="an interpreter (repeat)")
    compare.add_argument("--contender", metavar="NAME",
                         help="with --rev/--python: the contender to run on each side (default the reference)")
    compare.add_argument("--case", action="append", metavar="NAME", help="only these cases (repeat or comma-separate)")
    compare.add_argument("--no-fuzz", action="store_true",
                         help="skip generated inputs (stateful call patterns on the declared cases still run)")
    _timing_options(compare)
    compare.add_argument("--json", metavar="FILE", help="write the results (perflab.results/2)")
    compare.add_argument("--markdown", metavar="FILE", help="write a summary to paste into a pull request")
    _metric_option(compare)
    reporting.compare_options(compare)  # --html, --profile/--no-profile, --samples, --allow-mismatch
    cli_guard.store_options(compare)
    compare.set_defaults(handler=_compare)

    bisect = _verb(verbs, "bisect", "find the first commit where a benchmark got slower (statistical A/B oracle)",
                   "perflab bisect --good v1.0 --bad main bench.py",
                   "perflab bisect --good HEAD~64 --bad HEAD bench.py --case NESTED --max-time 30")
    bisect.add_argument("benchmark", help="a benchmark file inside the git repository")
    bisect.add_argument("--good", required=True, metavar="REV", help="a revision known to be fast")
    bisect.add_argument("--bad", required=True, metavar="REV", help="a later revision known to be slow")
    bisect.add_argument("--case", metavar="NAME", help="the case to follow (default: the one that regressed most)")
    bisect.add_argument("--contender", metavar="NAME", help="the contender to run (default the reference)")
    bisect.add_argument("--json", metavar="FILE", help="write the outcome (perflab.bisect/1): first bad commit, "
                        "each step's ratio, 95%% CI and certainty, measurements used")
    _timing_options(bisect, max_time=20.0, precision=0.01)
    bisect.set_defaults(handler=_bisect)

    demo = _verb(verbs, "demo", "run the built-in case studies at a short budget and write one HTML report "
                 "(timings, equivalence, profiles)", "perflab demo", "perflab demo --max-time 20 --html demo.html")
    _timing_options(demo, max_time=DEMO_MAX_TIME, precision=DEMO_PRECISION)
    reporting.demo_options(demo)  # --html PATH, --no-profile
    demo.set_defaults(handler=_demo)

    listing = _verb(verbs, "list", "list the built-in benchmarks", "perflab list")
    listing.set_defaults(handler=_list)
    cli_guard.add_verbs(verbs)  # history, check, import, export
    profile_commands.add_verbs(verbs)  # profile, merge
    reporting.add_verbs(verbs)  # diff
    return parser


def _verb(verbs, name: str, summary: str, *examples: str) -> argparse.ArgumentParser:
    # ``help`` is %-formatted by argparse, ``description`` is printed as written.
    return verbs.add_parser(name, help=summary, description=summary.replace("%%", "%"),
                            epilog=_examples(*examples), formatter_class=argparse.RawDescriptionHelpFormatter)


def _examples(*lines: str) -> str:
    return "examples:\n" + textwrap.indent("\n".join(lines), "  ")


def _timing_options(parser: argparse.ArgumentParser, max_time: float = 60.0, precision: float = 0.01) -> None:
    parser.add_argument("--precision", type=_percentage, default=precision, metavar="PCT",
                        help=f"target 95%% CI half-width in percent (default {precision * 100:g}%%)")
    parser.add_argument("--max-time", type=_positive, default=max_time, metavar="SECONDS",
                        help=f"time budget for the timing phase (default {max_time:g})")
    parser.add_argument("--timeout", type=_positive, default=60.0, metavar="SECONDS",
                        help="limit for each wait on a worker process (default 60)")
    parser.add_argument("--min-effect", type=_percentage, default=0.01, metavar="PCT",
                        help="smaller differences are reported as no detectable difference (default 1%%)")
    parser.add_argument("--values", type=_count, default=20, metavar="N",
                        help="values per worker process (default 20)")
    parser.add_argument("--value-time", type=_positive, default=0.005, metavar="SECONDS",
                        help="calibrated duration of one value (default 0.005)")
    parser.add_argument("--alpha", type=_percentage, default=0.01, metavar="PCT",
                        help="false discovery rate for faster/slower verdicts, in percent (default 1%%)")


def _percentage(text: str) -> float:
    try:
        value = float(text.rstrip("%")) / 100
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (e.g. 1 or 0.5%)") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 100 percent")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 2:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number of at least 2")
    return int(text)


def resolve_benchmark(name_or_path: str) -> Path:
    """A path to a benchmark file, or a built-in's name."""
    path = Path(name_or_path)
    if path.is_file():
        return path.resolve()
    builtin = builtins.path_of(name_or_path)
    if builtin is not None and not path.suffix:
        return builtin
    raise UsageError(f"{name_or_path}: no such benchmark file or built-in benchmark "
                     f"(built-ins: {', '.join(builtins.names())})")


def _select(requested: list[str] | None, declared: dict, kind: str, where: str) -> list[str]:
    if not requested:
        return list(declared)
    names = [name.strip() for item in requested for name in item.split(",") if name.strip()]
    unknown = [name for name in names if name not in declared]
    if unknown:
        raise UsageError(f"{where}: unknown {kind} {unknown[0]!r} (declared: {', '.join(declared)})")
    return list(dict.fromkeys(names))


def _settings(args: argparse.Namespace):
    from perflab.runner import Settings
    return Settings(precision=args.precision, max_time=args.max_time, timeout=args.timeout,
                    min_effect=args.min_effect, alpha=args.alpha, values=args.values,
                    value_time=args.value_time)


def _measure(path: Path, benchmark: Benchmark, cases: list[str], contenders: list[str],
             args: argparse.Namespace, err: Console):
    from perflab.progress import LiveProgress
    from perflab.runner import run_benchmark
    settings = _settings(args)
    with LiveProgress(err, settings.max_time, settings.precision) as progress:
        return run_benchmark(str(path), benchmark, cases, contenders, settings, progress)


def _run(args: argparse.Namespace, err: Console) -> int:
    from perflab import cli_guard
    from perflab.renderers import pyperf_json, terminal
    path = resolve_benchmark(args.benchmark)
    benchmark = load_benchmark(path)
    cases = _select(args.case, benchmark.cases, "case", str(path))
    contenders = _select(args.contender, benchmark.contenders, "contender", str(path))
    if benchmark.reference.name not in contenders:  # everything is measured against it
        contenders.insert(0, benchmark.reference.name)
    metric_names = _metric_names(args.metric)  # a missing tool fails here, before anything is measured
    result = _measure(path, benchmark, cases, contenders, args, err)
    terminal.render(result, terminal.stdout_console())
    metrics_failed = _show_metrics(result, _other_metrics(result, metric_names, args, err))
    if args.json:
        result.save(args.json)
        err.print(f"results written to {args.json}")
    if args.pyperf:
        for written in pyperf_json.export(result, args.pyperf):
            err.print(f"pyperf results written to {written}")
    saved = cli_guard.save_run(result, path, args, err)  # every run goes to the results store
    if not saved:
        return EXIT_BAD_INPUT
    from perflab.profile import commands as profile_commands
    profiled = profile_commands.after_run(result, path, benchmark.name, args, err, saved)
    return max(_exit_code(result, err), profiled, EXIT_FAILURES if metrics_failed else EXIT_OK)


def _metric_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric", action="append", metavar="NAME",
                        help="also measure: instructions (valgrind), memory (tracemalloc, peak RSS), counters "
                             "(perf stat); time is always measured (repeat or comma-separate)")


def _metric_names(requested: list[str] | None) -> list[str]:
    """``--metric`` values (time is always measured); a tool the metrics need must be installed."""
    from perflab import metrics
    names = [name.strip() for item in requested or [] for name in item.split(",") if name.strip()]
    unknown = [name for name in names if name not in metrics.NAMES]
    if unknown:
        raise UsageError(f"--metric: unknown metric {unknown[0]!r} (choose from {', '.join(metrics.NAMES)})")
    try:
        metrics.check_tools(names)
    except metrics.MetricUnavailable as missing:
        raise UsageError(str(missing)) from None
    return names


def _other_metrics(result, names: list[str], args: argparse.Namespace, err: Console):
    """The metrics beside wall time, measured where the timing ran (None: only time requested), and
    kept in ``result.metrics`` so that --json and the results store hold them."""
    from perflab import metrics
    if result.interrupted or not set(names) - {metrics.TIME}:
        return None
    err.print(f"measuring {', '.join(n for n in names if n != metrics.TIME)} ...", highlight=False)
    measured = metrics.measure(result, names, timeout=max(args.timeout, 600.0))
    result.metrics = measured.to_json()
    return measured


def _show_metrics(result, measured) -> bool:
    """Print the metrics' tables after the timing table; True if any of them failed."""
    from perflab.renderers import metrics_terminal, terminal
    if measured is None:
        return False
    metrics_terminal.render(result, measured, terminal.stdout_console())
    return bool(measured.errors)


def _compare(args: argparse.Namespace, err: Console) -> int:
    from perflab import cli_guard, compare, reporting
    from perflab.progress import LiveProgress
    from perflab.renderers import markdown, terminal
    path = resolve_benchmark(args.benchmark)
    names = lambda items: [n.strip() for item in items or [] for n in item.split(",") if n.strip()]  # noqa: E731
    request = compare.Request(path, _settings(args), cases=names(args.case) or None,
                              contenders=names([args.contenders]) if args.contenders else None,
                              revisions=args.rev, pythons=args.python, contender=args.contender,
                              fuzz_examples=0 if args.no_fuzz else compare.fuzzing.DEFAULT_EXAMPLES)
    reporting.check_output(args.html)
    profiler = reporting.profiler(args, err) if reporting.wants_profile(args) else None
    metric_names, measured = _metric_names(args.metric), []

    def after_timing(sides, cases, result) -> None:  # while revisions' worktrees still exist
        if profiler:
            profiler(sides, cases, result)
        measured.append(_other_metrics(result, metric_names, args, err))
    request.after_timing = after_timing
    try:
        with LiveProgress(err, request.settings.max_time, request.settings.precision) as progress:
            result = compare.compare(request, progress)
    except compare.CompareError as error:
        raise UsageError(str(error)) from None
    terminal.render(result, terminal.stdout_console())
    metrics_failed = _show_metrics(result, measured[0] if measured else None)
    if args.json:
        result.save(args.json)
        err.print(f"results written to {args.json}")
    if args.markdown:
        Path(args.markdown).write_text(markdown.render_result(result))
        err.print(f"summary written to {args.markdown}")
    if args.html:
        section = reporting.report_html.Section(result, profiler.profiles if profiler else [],
                                                profiler.notes if profiler else ["not profiled (--no-profile)"])
        reporting.write_report([section], args.html, f"perflab compare: {result.benchmark}", err)
    if not cli_guard.save_run(result, path, args, err):
        return EXIT_BAD_INPUT
    return max(_exit_code(result, err), EXIT_FAILURES if metrics_failed else EXIT_OK)


def _bisect(args: argparse.Namespace, err: Console) -> int:
    import json

    from perflab import bisect
    from perflab.progress import LiveProgress
    from perflab.renderers import bisect_terminal, terminal
    from perflab.worktrees import RevisionError
    path = Path(args.benchmark)
    if not path.is_file():
        raise UsageError(f"{path}: no such benchmark file (bisect needs a file inside a git repository)")
    settings = _settings(args)
    try:
        with LiveProgress(err, settings.max_time, settings.precision) as progress:
            outcome = bisect.bisect(path.resolve(), args.good, args.bad, settings, progress,
                                    case=args.case, contender=args.contender)
    except (bisect.BisectError, RevisionError) as error:
        raise UsageError(str(error)) from None
    bisect_terminal.render(outcome, terminal.stdout_console())
    if args.json:
        Path(args.json).write_text(json.dumps(outcome.to_json(), indent=1) + "\n")
        err.print(f"outcome written to {args.json}")
    return EXIT_OK


def _exit_code(result, err: Console) -> int:
    if result.interrupted:
        return EXIT_INTERRUPTED
    if result.failures:
        err.print(f"perflab: {len(result.failures)} problem(s): " + "; ".join(result.failures), markup=False)
        return EXIT_FAILURES
    return EXIT_OK


def _demo(args: argparse.Namespace, err: Console) -> int:
    from perflab import reporting
    return reporting.run_demo(args, err, _settings(args), builtins.names())


def _list(args: argparse.Namespace, err: Console) -> int:
    out = Console()
    for name in builtins.names():
        out.print(f"[bold]{name:<24}[/] {builtins.summary(name)}", highlight=False)
    return EXIT_OK


if __name__ == "__main__":
    # Run the imported module, not this __main__ copy, so that cli_guard and this file share one
    # UsageError class (python -m perflab.cli would otherwise load the file twice).
    from perflab.cli import main as imported_main
    sys.exit(imported_main())
