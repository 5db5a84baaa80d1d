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
from perflab.profile.frames import parse_frame
from perflab.profile.session import ProfileSettings
from perflab.renderers import report_html
from perflab.results import RunResult
from perflab.sides import Side
from perflab.units import format_time

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
    parser.add_argument("--native", action="store_true",
                        help="profile C frames too (py-spy --native): the view inside C extensions")
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
    interrupted: bool = False    # Ctrl-C while profiling: what was profiled is kept

    def __call__(self, sides: list[Side], cases: list[str], result: RunResult) -> None:
        if len({side.python for side in sides}) > 1 and not self.allow_mismatch:
            self.notes.append(INTERPRETER_NOTE)
        pairs = self.pick(result) if callable(self.pick) else None
        self.profiles = profile_comparison(
            sides, result, self.settings, pairs, self.allow_mismatch,
            on_progress=lambda message: self.err.print(message, markup=False, highlight=False))
        self.interrupted = any("interrupted" in entry.notes for entry in self.profiles)
        for entry in self.profiles:
            if entry.diff is not None:
                self.err.print(f"  {entry.case}: {entry.diff.explain()}", markup=False, highlight=False,
                               soft_wrap=True)


def wants_profile(args: argparse.Namespace) -> bool:
    return args.profile if args.profile is not None else bool(args.html)


def profiler(args: argparse.Namespace, err: Console, pick=None, samples: int | None = None,
             runs: int = 5) -> Profiler:
    settings = ProfileSettings(samples=samples or args.samples, min_runs=runs, timeout=args.timeout,
                               native=getattr(args, "native", False))
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
        # A contender found not equivalent is what the demo is for (the report shows it); only
        # something that failed to run makes the demo fail.
        if result.interrupted or any(cell.error for cell in result.cells):
            worst = max(worst, cli._exit_code(result, err))
        notes = ([f"profiled: the reference and the fastest equivalent contender of one case, "
                  f"{DEMO_SAMPLES} samples each in {DEMO_ROUNDS} alternating rounds (a demo budget)"]
                 + hook.notes if hook else ["not profiled (--no-profile)"])
        sections.append(report_html.Section(result, hook.profiles if hook else [], notes))
        if result.interrupted or (hook and hook.interrupted):
            break
    if sections:
        write_report(sections, args.html, "perflab demo: the built-in case studies", err,
                     [f"Short budget: --max-time {settings.max_time:g} s per benchmark, precision target "
                      f"{settings.precision:.0%}, {DEMO_FUZZ_EXAMPLES} generated inputs per contender; "
                      "run perflab compare NAME --html for a full report."])
    return worst


# ---- perflab diff -------------------------------------------------------------------------------

def add_verbs(verbs) -> None:
    from perflab import cli
    diff = cli._verb(verbs, "diff", "differential profile of two saved profiles: time per call per call path",
                     "perflab profile bench.py --case C --contender a --json a.json",
                     "perflab profile bench.py --case C --contender b --json b.json",
                     "perflab diff a.json b.json --html diff.html")
    diff.add_argument("before", help="profile A (perflab.profile/1 JSON, from perflab profile --json)")
    diff.add_argument("after", help="profile B")
    diff.add_argument("--html", metavar="FILE", help="write the differential flame graph and both flame graphs")
    diff.add_argument("--allow-mismatch", action="store_true",
                      help="diff even when the sampler, mode, frames or interpreter differ")
    diff.set_defaults(handler=_diff)


def _diff(args: argparse.Namespace, err: Console) -> int:
    from perflab import cli
    from perflab.profile.diff import diff_profiles
    from perflab.profile.model import IncomparableProfiles, ProfileFileError, load_profile
    check_output(args.html)
    try:
        a, b = load_profile(args.before), load_profile(args.after)
        names = (_profile_name(a, args.before), _profile_name(b, args.after))
        if names[0] == names[1]:
            names = (args.before, args.after)
        diff = diff_profiles(a, b, names, args.allow_mismatch)
    except (ProfileFileError, IncomparableProfiles, ValueError) as error:
        raise cli.UsageError(f"{args.before} vs {args.after}: {error}") from None
    out = Console(highlight=False, soft_wrap=True)
    out.print(diff.explain(), markup=False)
    for node in diff.largest_self_changes(8):
        change = node.b_self - node.a_self
        if change == 0:
            continue
        out.print(f"  {'+' if change >= 0 else '-'}{format_time(abs(change)):>9}  "
                  f"{' > '.join(parse_frame(p).name for p in node.path)}", markup=False)
    for note in diff.notes:
        err.print(f"note: {note}", markup=False, highlight=False)
    if args.html:
        entry = CaseProfiles(str(a.metadata.get("case", "")), names[0], names[1], a, b, diff)
        Path(args.html).write_text(report_html.render_profiles(entry, f"perflab diff: {names[1]} vs {names[0]}"),
                                   encoding="utf-8")
        err.print(f"differential profile written to {Path(args.html).resolve()}", markup=False, highlight=False)
    return cli.EXIT_OK


def _profile_name(profile, path: str) -> str:
    return str(profile.metadata.get("contender") or Path(path).stem)
