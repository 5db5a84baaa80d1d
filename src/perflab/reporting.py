"""The HTML report of ``perflab compare --html`` and ``perflab demo``: options, profiling, writing.

Kept apart from cli.py: ``compare_options`` registers the options, ``Profiler`` is the compare
hook that profiles the sides after timing (while a revision's worktree still exists), and
``write_report`` renders the sections. Profiling adds time, so it runs only when a report is
written (``--html``) unless ``--profile``/``--no-profile`` say otherwise.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from rich.console import Console

from perflab.profile.comparison import REPORT_SAMPLES, CaseProfiles, profile_comparison
from perflab.profile.session import ProfileSettings
from perflab.renderers import report_html
from perflab.results import RunResult
from perflab.sides import Side

INTERPRETER_NOTE = ("--python sides differ in interpreter by design: each side is profiled, but the "
                    "differential profile is skipped unless --allow-mismatch is given")


def compare_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", metavar="FILE",
                        help="write one offline HTML report: verdicts, ratio chart, distributions, equivalence, "
                             "flame graphs and the differential flame graph")
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=None,
                        help="profile every side per case after timing (default: only with --html)")
    parser.add_argument("--samples", type=_count, default=REPORT_SAMPLES, metavar="N",
                        help=f"profile samples per side and case (default {REPORT_SAMPLES})")
    parser.add_argument("--allow-mismatch", action="store_true",
                        help="diff profiles even when their sampler, mode or interpreter differ "
                             "(needed for a differential profile across --python interpreters)")


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive whole number")
    return int(text)


def check_output(path: str | None, option: str = "--html") -> None:
    """Refuse an unwritable report path before measuring, not after."""
    if path and not Path(path).resolve().parent.is_dir():
        from perflab.cli import UsageError
        raise UsageError(f"{option} {path}: directory {Path(path).parent} does not exist")


@dataclass
class Profiler:
    """The compare hook: profiles the pairs of each comparison into ``profiles``."""

    settings: ProfileSettings
    err: Console
    allow_mismatch: bool = False
    pick: object = None          # (RunResult) -> [(case, side)], default every timed pair
    profiles: list[CaseProfiles] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __call__(self, sides: list[Side], cases: list[str], result: RunResult) -> None:
        if len({side.python for side in sides}) > 1 and not self.allow_mismatch:
            self.notes.append(INTERPRETER_NOTE)
        pairs = self.pick(result) if callable(self.pick) else None
        self.profiles = profile_comparison(
            sides, result, self.settings, pairs, self.allow_mismatch,
            on_progress=lambda message: self.err.print(message, markup=False, highlight=False))
        for entry in self.profiles:
            if entry.diff is not None:
                self.err.print(f"  {entry.case}: {entry.diff.explain()}", markup=False, highlight=False,
                               soft_wrap=True)


def wants_profile(args: argparse.Namespace) -> bool:
    return args.profile if args.profile is not None else bool(args.html)


def profiler(args: argparse.Namespace, err: Console, pick=None, samples: int | None = None,
             runs: int = 5) -> Profiler:
    settings = ProfileSettings(samples=samples or args.samples, min_runs=runs, timeout=args.timeout)
    return Profiler(settings, err, getattr(args, "allow_mismatch", False), pick)


def write_report(sections: Sequence[report_html.Section], path: str, title: str, err: Console,
                 notes: Sequence[str] = ()) -> None:
    report_html.write(sections, path, title, notes)
    err.print(f"report written to {Path(path).resolve()}", markup=False, highlight=False)


# ---- perflab demo -------------------------------------------------------------------------------

DEMO_REPORT = "perflab-demo.html"
DEMO_FUZZ_EXAMPLES = 25     # generated inputs per contender: enough to show fuzzing, quick enough for a demo
DEMO_SAMPLES = 400          # profile samples per side: a demo's flame graph, not a precise attribution
DEMO_ROUNDS = 3


def demo_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--html", metavar="PATH", default=DEMO_REPORT,
                        help=f"where to write the report (default ./{DEMO_REPORT})")
    parser.add_argument("--no-profile", dest="profile", action="store_false",
                        help="skip the profiles (timings and equivalence only)")


def fastest_of_first_case(result: RunResult) -> list[tuple[str, str]]:
    """The reference and its fastest valid (equivalent) contender on the first case measured."""
    timed = {(c.case, c.contender) for c in result.cells if c.estimates is not None}
    for case in dict.fromkeys(c.case for c in result.cells):
        candidates = [c for c in result.comparisons if c.case == case and c.valid and (case, c.contender) in timed
                      and (case, result.reference) in timed]
        if candidates:
            return [(case, min(candidates, key=lambda c: c.comparison.ratio.value).contender)]
    return []


def run_demo(args: argparse.Namespace, err: Console, settings, names: Sequence[str]) -> int:
    """Every built-in through compare (fuzzing included) at a short budget; one HTML report."""
    from perflab import builtins, cli, compare
    from perflab.progress import LiveProgress
    from perflab.renderers import terminal
    check_output(args.html, "--html")
    sections, worst = [], cli.EXIT_OK
    for name in names:
        err.print(f"[bold]perflab demo:[/] {name} ({builtins.summary(name)})")
        hook = Profiler(ProfileSettings(samples=DEMO_SAMPLES, min_runs=DEMO_ROUNDS, timeout=args.timeout), err,
                        pick=fastest_of_first_case) if args.profile else None
        request = compare.Request(builtins.path_of(name), settings, fuzz_examples=DEMO_FUZZ_EXAMPLES,
                                  after_timing=hook)
        try:
            with LiveProgress(err, settings.max_time, settings.precision) as progress:
                result = compare.compare(request, progress)
        except compare.CompareError as error:
            err.print(f"perflab demo: {name}: {error}", markup=False, highlight=False)
            worst = max(worst, cli.EXIT_FAILURES)
            continue
        terminal.render(result, terminal.stdout_console())
        worst = max(worst, cli._exit_code(result, err))
        notes = ([f"profiled: the reference and the fastest equivalent contender of one case, "
                  f"{DEMO_SAMPLES} samples each in {DEMO_ROUNDS} alternating rounds (a demo budget)"]
                 + hook.notes if hook else ["not profiled (--no-profile)"])
        sections.append(report_html.Section(result, hook.profiles if hook else [], notes))
        if result.interrupted:
            break
    if sections:
        write_report(sections, args.html, "perflab demo: the built-in case studies", err,
                     [f"Short budget: --max-time {settings.max_time:g} s per benchmark, precision target "
                      f"{settings.precision:.0%}, {DEMO_FUZZ_EXAMPLES} generated inputs per contender; "
                      "run perflab compare NAME --html for a full report."])
    return worst
