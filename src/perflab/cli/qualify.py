"""``perflab qualify``: what this runner can detect. An interleaved A/A run of every contender against
itself at the gate's budget, per case the noise and the smallest change the gate calls with 80%
power, stored for this machine; ``perflab check`` says it beside every "no detectable difference"."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perflab.cli.support.options import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    add_verb,
    allow_skipped_option,
    case_option,
    contender_option,
    db_path,
    exit_code,
    resolve_benchmark,
    say,
    select,
    store_errors_are_bad_input,
    store_options,
    threshold_option,
    timing_options,
    timing_settings,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(verbs: argparse._SubParsersAction) -> None:
    parser = add_verb(
        verbs,
        "qualify",
        "what this runner can detect: an A/A run at the gate's budget, the noise and the smallest "
        "change detected with 80%% power per case, stored for this machine (check shows it)",
        "perflab qualify bench.py                    # at check's default budget, 60 s per contender",
        "perflab qualify bench.py --max-time 120     # the budget your check runs with",
    )
    parser.add_argument("benchmark", help="a benchmark file, or the name of a built-in")
    case_option(parser, "default: all")
    contender_option(parser, "default: all")
    timing_options(parser)  # the same options and defaults as check's: the floor holds for that budget
    threshold_option(parser)  # at its defaults check stops once a regression beyond it is excluded
    allow_skipped_option(parser)
    store_options(parser)
    parser.set_defaults(handler=store_errors_are_bad_input(run))


def run(args: argparse.Namespace, err: Console) -> int:
    from rich.markup import escape

    from perflab.analysis import detectable
    from perflab.bench.loading import load_benchmark
    from perflab.measure import ab_test, builds
    from perflab.measure.runner import run_sides
    from perflab.measure.sides import Side
    from perflab.render.terminal import qualification as qualification_view
    from perflab.render.terminal.console import stdout_console
    from perflab.render.terminal.progress import LiveProgress
    from perflab.results.quantities import FASTER, SLOWER
    from perflab.results.store import Store

    path = resolve_benchmark(args.benchmark)
    settings = timing_settings(args)
    # A compiled project's working tree is built, as check builds it: perflab's interpreter cannot import it.
    try:
        built = ab_test.built_working_tree(path, settings, builds.Choice(on_progress=lambda message: say(err, message)))
    except ab_test.CompareError as error:
        raise UsageError(str(error)) from None
    if built is None:
        benchmark = load_benchmark(path)
        name, python = benchmark.name, settings.python
        cases = select(args.case, benchmark.cases, "case", str(path))
        contenders = select(args.contender, benchmark.contenders, "contender", str(path))
    else:
        (described, python), name = built, built[0]["name"]
        cases = select(args.case, described["cases"], "case", str(path))
        contenders = select(args.contender, described["contenders"], "contender", str(path))
    where = db_path(args, path)
    if not args.no_store:
        Store.open(where).close()  # a store that cannot be used is bad input before anything is measured
    runs = []
    for contender in contenders:
        # Two sides of one contender, in the same rounds and workers as check's two revisions.
        sides = [Side(side, str(path), contender, python) for side in (contender, f"{contender} (A/A)")]
        with LiveProgress(err, settings.max_time, settings.precision) as progress:
            runs.append(run_sides(name, sides, cases, settings, progress))
        if runs[-1].interrupted:
            return EXIT_INTERRUPTED
    qualification = detectable.qualify(runs, settings.max_time, settings.alpha, settings.min_effect, args.threshold)
    qualification_view.render(qualification, runs, stdout_console())
    if not args.no_store:
        with Store.open(where) as store:
            store.save_qualification(qualification, runs)
        err.print(f"[dim]stored for this machine in {escape(str(where))}; perflab check reads it from there[/]")
    for measured in runs:
        for comparison in measured.comparisons:
            shown = measured.shown(comparison)
            if shown.verdict in (FASTER, SLOWER):
                say(
                    err,
                    f"perflab qualify: {comparison.case}/{measured.sides[comparison.contender]['contender']}: "
                    f"the A/A run says {shown.text}, {shown.ratio}, between two sides that run the same code "
                    f"(by chance about {settings.alpha:.0%} of the time; if it repeats, this machine favours one "
                    "side and check's verdicts on it are not to be trusted)",
                )
    return max((exit_code(measured, err, args.allow_skipped) for measured in runs), default=EXIT_OK)
