"""The profiling verbs of the command line: ``perflab profile``, ``perflab merge``, and ``run --profile``.

Kept apart from cli.py (the measuring verbs and shared options); registered on its parser by
``add_verbs`` and ``run_options``. Handlers only parse, call perflab.profile and hand the result
to the renderers.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from rich.console import Console

from perflab import cli
from perflab.profile.folded import write_folded
from perflab.profile.model import IncomparableProfiles, Profile, ProfileFileError, load_profile, merge_profiles
from perflab.profile.processors import with_operation_frame
from perflab.profile.session import AUTO, DEFAULT_RATE, DEFAULT_SAMPLES, INPROCESS, PY_SPY, ProfileOutcome, \
    ProfileSettings, profile_operation
from perflab.profile.shares import frame_shares
from perflab.profile.whatif import WhatIf, WhatIfError, parse_what_if, predict
from perflab.spec import load_benchmark

if TYPE_CHECKING:
    from perflab.cli_guard import Saved


def add_verbs(verbs) -> None:
    profile = cli._verb(verbs, "profile", "profile the measured operation: Python + C frames, each function's share with its interval",
                        "perflab profile json_dumps --case NESTED --contender json_stdlib --native",
                        "perflab profile bench.py --case SMALL --html flame.html --speedscope small.speedscope.json",
                        "perflab profile bench.py --case SMALL --what-if 'encode*=2x' --json small.profile.json")
    profile.add_argument("benchmark", help="a benchmark file, or the name of a built-in (see perflab list)")
    profile.add_argument("--case", metavar="NAME", help="the case to profile (needed when there are several)")
    profile.add_argument("--contender", metavar="NAME", help="the contender to profile (default: the reference)")
    _sampling_options(profile)
    _view_options(profile)
    profile.set_defaults(handler=_profile)

    merge = cli._verb(verbs, "merge", "merge saved profiles (perflab JSON or folded stacks) into one",
                      "perflab merge a.profile.json b.profile.json --html merged.html",
                      "perflab merge run1.folded run2.folded --json merged.profile.json")
    merge.add_argument("files", nargs="+", metavar="FILE",
                       help="perflab profile JSON (--json of perflab profile) or folded stacks, one run each")
    _view_options(merge)
    merge.set_defaults(handler=_merge)


def run_options(run: argparse.ArgumentParser) -> None:
    run.add_argument("--profile", action="store_true",
                     help="after timing, profile every measured (case, contender) in separate worker processes")
    run.add_argument("--profile-dir", metavar="DIR", help="write each profile's HTML flame graph and JSON into DIR "
                                                          "(implies --profile)")
    run.add_argument("--profile-native", action="store_true", help="profile with native (C) frames (implies --profile)")
    run.add_argument("--profile-samples", type=_count, default=DEFAULT_SAMPLES, metavar="N",
                     help=f"samples per profile (default {DEFAULT_SAMPLES}; implies --profile when given)")


def _sampling_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--native", action="store_true",
                        help="also collect C frames of extensions and libpython (py-spy --native)")
    parser.add_argument("--samples", type=_count, default=DEFAULT_SAMPLES, metavar="N",
                        help=f"samples of the operation to collect over all runs (default {DEFAULT_SAMPLES})")
    parser.add_argument("--rate", type=_count, metavar="HZ",
                        help=f"samples per second (default {DEFAULT_RATE[False]}, with --native {DEFAULT_RATE[True]}: "
                             "low enough to barely slow the target)")
    parser.add_argument("--runs", type=_count, default=5, metavar="N",
                        help="profiling runs (fresh processes) at least; the budget is split over them (default 5)")
    parser.add_argument("--mode", choices=("cpu", "wall"), default="cpu",
                        help="cpu: samples of running threads (default); wall: waiting threads too")
    parser.add_argument("--sampler", choices=(AUTO, PY_SPY, INPROCESS), default=AUTO,
                        help="py-spy, the in-process fallback, or auto: py-spy unless it cannot attach (default)")
    parser.add_argument("--blocking", action="store_true",
                        help="pause the target for each sample (exact stacks, more slowdown; always so with "
                             "--native). Default: py-spy --nonblocking")
    parser.add_argument("--max-time", type=cli._positive, default=300.0, metavar="SECONDS",
                        help="time budget for all profiling runs (default 300)")
    parser.add_argument("--timeout", type=cli._positive, default=60.0, metavar="SECONDS",
                        help="limit for a worker's set-up (default 60)")


def _view_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--top", type=_count, default=15, metavar="N", help="rows in the terminal tables (default 15)")
    parser.add_argument("--what-if", action="append", type=_what_if, default=[], metavar="FRAME=Kx",
                        help="predict the operation's speedup if FRAME's self time were K times faster "
                             "(a function name or a pattern such as '*escape*'; repeatable)")
    parser.add_argument("--html", metavar="FILE", help="write an interactive flame graph (one offline HTML file)")
    parser.add_argument("--folded", metavar="FILE", help="write folded stacks (FlameGraph / py-spy raw format)")
    parser.add_argument("--speedscope", metavar="FILE", help="write speedscope JSON")
    parser.add_argument("--json", metavar="FILE", help="write the profile with its runs and metadata "
                                                       "(perflab.profile/1; input of perflab merge)")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def _what_if(text: str) -> tuple[str, float]:
    try:
        return parse_what_if(text)
    except WhatIfError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--what-if {text!r}: ")) from None


def _settings(args: argparse.Namespace, native: bool | None = None) -> ProfileSettings:
    return ProfileSettings(samples=args.samples, rate=args.rate, native=args.native if native is None else native,
                           mode=args.mode, sampler=args.sampler, blocking=args.blocking,
                           min_runs=args.runs, max_time=args.max_time, timeout=args.timeout)


def _profile(args: argparse.Namespace, err: Console) -> int:
    path = cli.resolve_benchmark(args.benchmark)
    benchmark = load_benchmark(path)
    case = _one(args.case, benchmark.cases, "case", path, default=None)
    contender = _one(args.contender, benchmark.contenders, "contender", path, default=benchmark.reference.name)
    _check_writable(args)
    _say(err, f"profiling {benchmark.name} / {case} / {contender} ...")
    outcome = profile_operation(str(path), case, contender, _settings(args), benchmark.name,
                                on_run=lambda message: _say(err, f"  {message}"))
    return _report(outcome, args, err)


def _one(requested: str | None, declared: dict, kind: str, path: Path, default: str | None) -> str:
    if requested is None:
        if default is not None:
            return default
        if len(declared) == 1:
            return next(iter(declared))
        raise cli.UsageError(f"{path}: {len(declared)} {kind}s ({', '.join(declared)}): choose one with --{kind}")
    return cli._select([requested], declared, kind, str(path))[0]


def _check_writable(args: argparse.Namespace) -> None:
    """Refuse unwritable outputs before profiling, not after."""
    for option in ("html", "folded", "speedscope", "json"):
        target = getattr(args, option, None)
        if target and not Path(target).resolve().parent.is_dir():
            raise cli.UsageError(f"--{option} {target}: directory {Path(target).parent} does not exist")


def _report(outcome: ProfileOutcome, args: argparse.Namespace, err: Console) -> int:
    """Show and write what was collected (also a partial profile), then the exit code."""
    profile = outcome.profile
    shares = frame_shares(profile.runs)
    what_ifs, what_if_error = _what_ifs(profile, args.what_if)
    from perflab.renderers import profile_terminal, terminal
    if profile.runs:
        profile_terminal.render(profile, terminal.stdout_console(), what_ifs, outcome.notes, args.top, shares)
        write_outputs(profile, args, err, shares)
    else:
        for note in outcome.notes:
            _say(err, f"note: {note}")
    if outcome.interrupted:
        _say(err, "perflab: interrupted (the runs above were kept)")
        return cli.EXIT_INTERRUPTED
    if outcome.error:
        kept = f" (the {len(profile.runs)} runs sampled until then are kept)" if profile.runs else ""
        _say(err, f"perflab: error: {outcome.error}{kept}")
        return cli.EXIT_FAILURES
    if what_if_error:
        raise cli.UsageError(what_if_error)
    return cli.EXIT_OK


def _what_ifs(profile: Profile, requests: Sequence[tuple[str, float]]) -> tuple[list[WhatIf], str | None]:
    results = []
    for pattern, factor in requests:
        try:
            results.append(predict(profile.runs, pattern, factor))
        except WhatIfError as error:
            return results, str(error)
    return results, None


def write_outputs(profile: Profile, args: argparse.Namespace, err: Console, shares=None) -> None:
    if args.json:
        profile.save(args.json)
        _say(err, f"profile written to {args.json}")
    if args.folded:
        write_folded(with_operation_frame(profile.merged()), args.folded)
        _say(err, f"folded stacks written to {args.folded}")
    if args.speedscope:
        from perflab.renderers.speedscope import write_speedscope
        write_speedscope(profile, args.speedscope, _title(profile))
        _say(err, f"speedscope profile written to {args.speedscope}")
    if args.html:
        from perflab.renderers.flamegraph_html import write_html
        write_html(profile, args.html, _title(profile), shares)
        _say(err, f"flame graph written to {args.html}")


def _title(profile: Profile) -> str:
    m = profile.metadata
    parts = [str(m[key]) for key in ("benchmark", "case", "contender") if m.get(key)]
    return " / ".join(parts) or "merged profile"


def _merge(args: argparse.Namespace, err: Console) -> int:
    _check_writable(args)
    try:
        merged = merge_profiles([(name, load_profile(name)) for name in args.files])
    except (ProfileFileError, IncomparableProfiles) as error:
        raise cli.UsageError(str(error)) from error
    return _report(ProfileOutcome(merged), args, err)


def after_run(result, path: Path, benchmark_name: str, args: argparse.Namespace, err: Console,
              saved: Saved | None = None) -> int:
    """``run --profile``: profile each measured (case, contender) after timing, keeping each profile
    next to the stored run (``saved``) for ``perflab history``; the worst exit code."""
    wanted = args.profile or args.profile_dir or args.profile_native or args.profile_samples != DEFAULT_SAMPLES
    if result.interrupted or not wanted:
        return cli.EXIT_OK
    if args.profile_dir:
        Path(args.profile_dir).mkdir(parents=True, exist_ok=True)
    worst = cli.EXIT_OK
    for cell in result.cells:
        if cell.estimates is None:
            continue
        _say(err, f"profiling {cell.case} / {cell.contender} ...")
        settings = ProfileSettings(samples=args.profile_samples, native=args.profile_native, timeout=args.timeout)
        outcome = profile_operation(str(path), cell.case, cell.contender, settings, benchmark_name)
        stem = Path(args.profile_dir or ".") / _safe(f"{cell.case}-{cell.contender}")
        view = argparse.Namespace(top=10, what_if=[], folded=None, speedscope=None,
                                  html=f"{stem}.html" if args.profile_dir else None,
                                  json=f"{stem}.profile.json" if args.profile_dir else None)
        worst = max(worst, _report(outcome, view, err))
        if outcome.interrupted:
            break
        if saved is not None and saved.run_id is not None and outcome.profile.runs:
            worst = max(worst, _store_profile(outcome.profile, cell.case, cell.contender, saved, err))
    return worst


def _store_profile(profile: Profile, case: str, contender: str, saved: Saved, err: Console) -> int:
    """Keep a profile in the database next to its run; if the database refuses it, in a file (the
    run itself is stored already and stays so)."""
    from perflab.store import Store, StoreError
    try:
        with Store.open(saved.path, create=False) as store:
            store.save_profile(saved.run_id, case, contender, profile)
    except StoreError as error:
        kept = Path(f"perflab-unsaved-run{saved.run_id}-{_safe(f'{case}-{contender}')}.profile.json")
        profile.save(kept)
        _say(err, f"perflab: error: {error}; the profile is kept in {kept} (run {saved.run_id} is stored without it)")
        return cli.EXIT_BAD_INPUT
    err.print(f"[dim]profile stored with run {saved.run_id}[/]", highlight=False)
    return cli.EXIT_OK


def _say(err: Console, text: str) -> None:
    """One message on standard error, as plain text on one line however narrow the terminal."""
    err.print(text, markup=False, highlight=False, soft_wrap=True)


def _safe(name: str) -> str:
    """A file name from user-chosen case and contender names."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
