"""What the verbs of the command line share: errors and exit codes, option validators, the shared
options (timing, store, outputs) and the typed settings they become.

One word, one meaning: an option that several verbs take is defined here, once, with one help
text (tests/unit/test_option_vocabulary.py walks every verb's parser and holds them to it); a
verb adds only what differs, its default or what it writes, as the help's last parenthesis. Old
spellings stay as deprecated aliases (``deprecated_alias``) that warn in one line.

A leaf of the cli package: every verb module imports it, it imports no verb module. What only a
verb's handler needs (rich, the settings classes, the built-ins) is imported where it is used, so
that ``--help`` imports the parser and nothing more (tests/worker/test_startup.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from perflab.option_types import FROM_REVISION, matching, percentage, regex, seconds, whole_number

if TYPE_CHECKING:
    from rich.console import Console

    from perflab.measure.builds import Choice as BuildChoice
    from perflab.measure.settings import Settings
    from perflab.results.model import RunResult

EXIT_OK, EXIT_FAILURES, EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


# ---- verbs and their help -----------------------------------------------------------------------


def add_verb(verbs: argparse._SubParsersAction, name: str, summary: str, *examples: str) -> argparse.ArgumentParser:
    """A subcommand with its summary and examples in ``--help``."""
    # ``help`` is %-formatted by argparse, ``description`` is printed as written.
    return verbs.add_parser(
        name,
        help=summary,
        description=summary.replace("%%", "%"),
        epilog=examples_text(*examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def examples_text(*lines: str) -> str:
    return "examples:\n" + textwrap.indent("\n".join(lines), "  ")


# A comma before a closing bracket is inside one name: an asv case, ``module.time_x(10, 'a')``.
_NAME_SEPARATOR = re.compile(r",(?![^()\[\]]*[)\]])")


def names(items: Iterable[str] | None) -> list[str]:
    """Names given as repeated and/or comma-separated options, in order, without blanks."""
    return [name.strip() for item in items or [] for name in _NAME_SEPARATOR.split(item) if name.strip()]


def one_name(requested: Iterable[str] | None, option: str) -> str | None:
    """The one name a verb that follows one case or contender was given (None: none given)."""
    given = names(requested)
    if len(given) > 1:
        raise UsageError(f"{option}: this command takes one ({', '.join(given)} given)")
    return given[0] if given else None


def select(requested: Iterable[str] | None, declared: Iterable[str], kind: str, where: str) -> list[str]:
    """The requested names (all declared ones if none), each checked against the declared ones."""
    declared = list(declared)
    wanted = names(requested)
    if not wanted:
        return declared
    unknown = [name for name in wanted if name not in declared]
    if unknown:
        raise UsageError(f"{where}: unknown {kind} {unknown[0]!r} (declared: {', '.join(declared)})")
    return list(dict.fromkeys(wanted))


def deprecated_alias(parser: argparse.ArgumentParser, old: str, new: str) -> None:
    """``old`` does what ``new`` does, after a one-line warning (scripts written for the old
    spelling keep working); it is left out of ``--help``."""
    target = parser._option_string_actions[new]

    class Renamed(argparse.Action):
        def __call__(self, parser, namespace, values, option_string=None):
            sys.stderr.write(f"perflab: warning: {old} is deprecated; use {new} (same meaning)\n")
            target(parser, namespace, values, new)

    parser.add_argument(
        old,
        action=Renamed,
        dest=target.dest,
        nargs=target.nargs,
        choices=target.choices,
        type=target.type or str,
        default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )


# ---- what a verb measures -----------------------------------------------------------------------


def case_option(parser: argparse.ArgumentParser, detail: str) -> None:
    """``--case``: which declared cases; ``detail``: what the verb does with them and its default."""
    _names_option(parser, "case", detail)


def contender_option(parser: argparse.ArgumentParser, detail: str) -> None:
    """``--contender``: which contenders; ``detail``: what the verb does with them and its default."""
    _names_option(parser, "contender", detail)


def _names_option(parser: argparse.ArgumentParser, kind: str, detail: str) -> None:
    parser.add_argument(
        f"--{kind}",
        action="append",
        metavar="NAME",
        help=f"only these {kind}s, by name (repeat or comma-separate; {detail})",
    )


def rev_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rev",
        action="append",
        metavar="REV",
        help="measure the benchmark on this git revision's code, in its own worktree (repeat; WORKTREE = "
        "uncommitted state); the benchmark file is the one given, even if untracked or outside the repository",
    )
    benchmark_from_revision_option(parser)


def benchmark_from_revision_option(parser: argparse.ArgumentParser) -> None:
    """The benchmark file as it is at each revision instead of the given one (the --rev verbs)."""
    parser.add_argument(
        FROM_REVISION,
        action="store_true",
        help="read the benchmark file from each revision, at the same path in the repository, instead of "
        "running the given file on each revision's code",
    )


def from_revision(args: argparse.Namespace) -> bool:
    """--benchmark-from-revision, refused by compare and submit without --rev to read the file at."""
    if args.benchmark_from_revision and getattr(args, "rev", ()) is None:
        raise UsageError("--benchmark-from-revision reads the benchmark at each --rev: give --rev REV twice or more")
    return bool(args.benchmark_from_revision)


def build_options(parser: argparse.ArgumentParser, spread: bool = True) -> None:
    """``--build/--no-build`` and ``--build-command``: how a revision's project is made runnable;
    ``spread``: and ``--build-spread`` (compare and check: the verbs that say a verdict beside it)."""
    parser.add_argument(
        "--build",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="build and install each revision into its own cached virtual environment, and measure it there "
        "(default: only when the project compiles: C, Cython, Rust or meson/scikit-build extensions; "
        "--no-build: always from the worktree's source)",
    )
    parser.add_argument(
        "--build-command",
        metavar="CMD",
        help="the shell command that installs the revision's project into its environment, run in the "
        "revision's files with the environment activated (default: python -m pip install "
        "--no-build-isolation . , or uv pip install --no-build-isolation . when uv is installed)",
    )
    if not spread:
        parser.set_defaults(build_spread=False)
        return
    parser.add_argument(
        "--build-spread",
        action="store_true",
        help="also build the base revision a second time and measure its two builds A/A: the build-to-build "
        "spread, said beside every verdict (check: a regression must exceed it too); kept with the builds, so "
        "paid once per base revision (default: off, as it costs a second build)",
    )


def build_choice(args: argparse.Namespace, err: Console, revisions: bool = True) -> BuildChoice:
    """What ``build_options`` asked for, with each build's progress said on ``err``; ``revisions``:
    whether the command has revisions to build (compare and submit: only with --rev)."""
    from perflab.measure.builds import Choice

    if (args.build or args.build_command or args.build_spread) and not revisions:
        raise UsageError("--build, --build-command and --build-spread build git revisions: use them with --rev")
    if args.build_command is not None and not args.build_command.strip():
        raise UsageError("--build-command: empty; give the shell command that installs the project")
    if args.build is False and args.build_command:
        raise UsageError("--build-command with --no-build: nothing would be built; drop one of them")
    if args.build is False and args.build_spread:
        raise UsageError("--build-spread with --no-build: nothing would be built; drop one of them")
    return Choice(args.build, args.build_command, args.build_spread, lambda message: say(err, message))


def python_option(parser: argparse.ArgumentParser, detail: str = "repeat") -> None:
    """``--python``: an interpreter; ``detail``: how many the verb takes and its default."""
    parser.add_argument(
        "--python", action="append", metavar="PYTHON", help=f"measure the benchmark under this interpreter ({detail})"
    )


def label_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--label",
        default="default",
        help="the label that matches jobs to workers: perflab worker --label takes what submit --label queued "
        "(default: default)",
    )


# ---- profiles -----------------------------------------------------------------------------------


def profile_option(parser: argparse.ArgumentParser, default: bool | None, detail: str) -> None:
    """``--profile/--no-profile``; ``default`` None: the verb decides (``detail`` says how)."""
    parser.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=default,
        help=f"after timing, profile every measured case and contender in separate worker processes ({detail})",
    )


def require_memray(option: str) -> None:
    """A one-line error unless memray (the ``perflab[memory]`` extra) is installed: before anything runs."""
    import importlib.util

    if importlib.util.find_spec("memray") is None:
        raise UsageError(f"{option} needs memray, which is not installed: pip install 'perflab[memory]'")


def sampling_options(parser: argparse.ArgumentParser, detail: str) -> None:
    """``--native`` and ``--samples``; ``detail``: what one count of samples covers in this verb."""
    from perflab.profile.settings import DEFAULT_SAMPLES

    parser.add_argument(
        "--native",
        action="store_true",
        help="profile C frames too: extensions and libpython (Linux perf at 1 kHz where it works and the "
        "interpreter is CPython 3.13+, else py-spy --native at 10 Hz)",
    )
    parser.add_argument(
        "--samples",
        type=whole_number(1),
        metavar="N",
        help=f"profile samples to collect ({detail}; default {DEFAULT_SAMPLES[False]}, with py-spy --native "
        f"{DEFAULT_SAMPLES[True]})",
    )


def allow_mismatch_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="diff profiles even when their sampler, mode, frames or interpreter differ (needed for a "
        "differential profile across --python interpreters)",
    )


# ---- outputs of a result ------------------------------------------------------------------------

# Every verb that produces a result writes it in these formats (run, compare, check, bisect).
OUTPUT_FORMATS = {
    "--json": "write it as JSON",
    "--markdown": "write a Markdown summary, to paste into a pull request or a CI step summary",
    "--html": "write one self-contained offline HTML file",
}


def pyperf_option(parser: argparse.ArgumentParser, detail: str, into_directory: bool = True) -> None:
    """``--pyperf``: a directory to write into (run), or a switch to the pyperf format (export)."""
    what = "write pyperf JSON files, for pyperf compare_to and pyperf stats"
    if into_directory:
        parser.add_argument("--pyperf", metavar="DIR", help=f"{what} ({detail})")
    else:
        parser.add_argument("--pyperf", action="store_true", help=f"{what} ({detail})")


def benchmark_name_option(parser: argparse.ArgumentParser, detail: str) -> None:
    parser.add_argument("--benchmark", metavar="NAME", help=f"the benchmark, by name ({detail})")


def output_option(parser: argparse.ArgumentParser, option: str, content: str, default: str | None = None) -> None:
    """One of OUTPUT_FORMATS; ``content``: what this verb writes in it."""
    parser.add_argument(option, metavar="FILE", default=default, help=f"{OUTPUT_FORMATS[option]} ({content})")


# ---- benchmarks ---------------------------------------------------------------------------------


def resolve_benchmark(name_or_path: str) -> Path:
    """A path to a benchmark file (or pyperf script), an asv suite (its benchmark directory, its
    asv.conf.json, or the directory holding that), ``pyperformance:NAME``, or a built-in's name."""
    from perflab import asv_config, builtins, pyperformance_benchmarks

    path = Path(name_or_path)
    config = path / asv_config.CONFIG_NAME if path.is_dir() else path
    if config.is_file() and config.suffix == ".json":
        try:
            return asv_config.benchmark_dir(config)
        except asv_config.AsvConfigError as error:
            raise UsageError(str(error)) from None
    if path.is_file() or path.is_dir():
        return path.resolve()
    if name_or_path.startswith(pyperformance_benchmarks.PREFIX):  # a script of the installed suite
        return pyperformance_benchmarks.path_of(name_or_path, UsageError)
    builtin = builtins.path_of(name_or_path)
    if builtin is not None and not path.suffix:
        return builtin
    raise UsageError(
        f"{name_or_path}: no such benchmark file or built-in benchmark (built-ins: {', '.join(builtins.names())})"
    )


def bench_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-b",
        "--bench",
        action="append",
        type=regex,
        metavar="REGEX",
        help="only the cases whose name matches REGEX (re.search, as asv's -b; repeat: any of them)",
    )


def select_matching(cases: list[str], patterns: list[re.Pattern[str]] | None, where: str) -> list[str]:
    """The cases ``-b`` selects; none is a usage error."""
    try:
        return matching(cases, patterns)
    except ValueError as error:
        raise UsageError(f"{where}: {error}") from None


# ---- timing -------------------------------------------------------------------------------------


def fuzz_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-fuzz",
        action="store_true",
        help="skip generated inputs (stateful call patterns on the declared cases still run)",
    )


def timing_options(
    parser: argparse.ArgumentParser, max_time: float = 60.0, precision: float = 0.01, values: int = 20
) -> None:
    parser.add_argument(
        "--precision",
        type=percentage,
        metavar="PCT",
        help="measure until every 95%% interval's half-width is within PCT percent or --max-time is spent, "
        "with fixed-sample t intervals; without it, a case stops as soon as its answer is decided "
        "(faster, slower or no difference beyond --min-effect, its size known) or its interval is that narrow, "
        f"with intervals that hold whenever it stops (default {precision * 100:g}%%)",
    )
    parser.set_defaults(precision_unless_given=precision)
    parser.add_argument(
        "--max-time",
        type=seconds,
        default=max_time,
        metavar="SECONDS",
        help=MAX_TIME_HELP + f" ({TIMED_PHASES}; default {max_time:g})",
    )
    timeout_option(parser)
    parser.add_argument(
        "--min-effect",
        type=percentage,
        default=0.01,
        metavar="PCT",
        help="smaller differences are reported as no detectable difference (default 1%%)",
    )
    parser.add_argument(
        "--values",
        type=whole_number(2, 100_000),
        default=values,
        metavar="N",
        help=f"values per worker process (default {values})",
    )
    parser.add_argument(
        "--value-time",
        type=seconds,
        default=0.005,
        metavar="SECONDS",
        help="shortest duration of one value (default 0.005); values are longer where the longest call of any "
        "side, or a check that the length does not move the estimate, needs it",
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="what a value measures: wall time (default), or the timed thread's CPU time, immune to other "
        "processes on a busy machine but blind to waiting, sleeping, I/O and other threads' work",
    )
    parser.add_argument(
        "--alpha",
        type=percentage,
        default=0.01,
        metavar="PCT",
        help="false discovery rate for faster/slower verdicts, in percent (default 1%%)",
    )
    # For perflab's own end-to-end tests and benchmark smoke runs (as pyperf's --debug-single-value):
    # exactly N rounds, precise or not, so that a test does the same work on a busy machine as on an
    # idle one (the precision rule would add rounds under load). Not for measuring.
    parser.add_argument("--debug-rounds", type=whole_number(1, 1000), help=argparse.SUPPRESS)
    # Likewise: N valgrind processes per cell for --metric instructions and cache instead of 3 (two
    # still show that the processes agree). Not for measuring.
    parser.add_argument("--debug-counts", type=whole_number(1, 100), help=argparse.SUPPRESS)


def threshold_option(parser: argparse.ArgumentParser) -> None:
    """``--threshold``: check's, and qualify's (its floors are for the check at that threshold)."""
    parser.add_argument(
        "--threshold",
        type=percentage,
        default=0.05,
        metavar="PCT",
        help="smallest slowdown that fails the check (default 5%%)",
    )


MAX_TIME_HELP = "time budget in seconds: measuring stops when it is spent, a worker still busy included"
# What --max-time bounds in the verbs that time: the whole measuring, in shares (perflab.measure.budget).
TIMED_PHASES = (
    "counted from loading the benchmark: fuzzing may take 40%% of it, fuzzing and the equivalence checks 80%%, "
    "and timing has the rest, 40%% at least, so a run ends within 1.2x it"
)


def timeout_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="limit for each wait on a worker process; one that does not answer in time has failed (default 60)",
    )


def allow_skipped_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-skipped",
        action="store_true",
        help="exit 0 even when a contender is skipped because a dependency it declares optional is not installed",
    )


def timing_settings(args: argparse.Namespace) -> Settings:
    from perflab.measure.settings import Settings

    settings = Settings(
        precision=args.precision_unless_given if args.precision is None else args.precision,
        stop_when="answered" if args.precision is None else "precise",
        max_time=args.max_time,
        timeout=args.timeout,
        min_effect=args.min_effect,
        alpha=args.alpha,
        values=args.values,
        value_time=args.value_time,
        clock=args.clock,
    )
    if args.debug_rounds is not None:  # (the default lives in Settings: --help imports no measuring module)
        settings.min_rounds = settings.max_rounds = args.debug_rounds
    settings.counted_processes = args.debug_counts
    return settings


# ---- the results store --------------------------------------------------------------------------


def require_team_extra(verb: str) -> None:
    """The queue's verbs (submit, worker, jobs) need the perflab[team] extra: without it, one line
    saying what to install instead of a traceback."""
    import importlib.util

    missing = [name for name in ("procrastinate", "psycopg") if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(
            f"perflab {verb} needs the team queue, which is not installed ({', '.join(missing)} missing): "
            "pip install 'perflab[team]'"
        )


def store_options(parser: argparse.ArgumentParser, saves: bool = True, of_benchmark: bool = True) -> None:
    """``--db`` (and ``--no-store`` where the verb ``saves``); ``of_benchmark``: the verb takes a
    benchmark file, whose repository then holds the default database."""
    where = "the benchmark file" if of_benchmark else "the current directory"
    parser.add_argument(
        "--db",
        metavar="PATH|URL",
        help="results database, a SQLite file or postgresql://user@host/dbname (default: $PERFLAB_DB, else "
        f".perflab/perflab.db at the git top level of {where}, else in the current directory)",
    )
    if saves:
        parser.add_argument("--no-store", action="store_true", help="do not save this run in the database")


def db_path(args: argparse.Namespace, benchmark_file: str | Path | None) -> Path | str:
    """The store ``--db`` names (a file, or a postgresql:// URL), else the default one."""
    from perflab.results.store import default_path, location

    return location(args.db) if args.db else default_path(benchmark_file)


# ---- outputs ------------------------------------------------------------------------------------


def check_outputs(
    args: argparse.Namespace, *options: str, inputs: Iterable[str | Path | None] = (), directories: Iterable[str] = ()
) -> None:
    """Refuse, before measuring, an output that cannot be written or would replace an input.

    ``options`` write one file each, ``directories`` write files into a directory; ``inputs`` are
    what the command reads or keeps (the benchmark file, the results database, profiles, results
    files): none of them may be an output, and no two outputs may be one file."""
    read = {_identity(path): str(path) for path in inputs if path}
    written: dict[tuple, str] = {}
    for option in (*options, *directories):
        target = getattr(args, option.lstrip("-").replace("-", "_"), None)
        if not target:
            continue
        path = Path(target)
        if option in directories:
            if path.exists() and not path.is_dir():
                raise UsageError(f"{option} {target}: exists and is not a directory")
            continue
        if not path.resolve().parent.is_dir():
            raise UsageError(f"{option} {target}: directory {path.parent} does not exist")
        if path.is_dir():
            raise UsageError(f"{option} {target}: is a directory; give a file name")
        identity = _identity(path)
        if identity in read:
            raise UsageError(
                f"{option} {target}: is an input of this command ({read[identity]}); "
                "it would be overwritten: choose another file"
            )
        if identity in written:
            raise UsageError(f"{option} {target}: is also the output of {written[identity]}; choose another file")
        written[identity] = option


def _identity(path: str | Path) -> tuple:
    """What makes two paths one file: the device and inode where it exists (links, case-insensitive
    file systems), else the resolved path."""
    try:
        status = Path(path).stat()
        return (status.st_dev, status.st_ino)
    except OSError:
        return (str(Path(path).resolve()),)


class OutputError(Exception):
    """An output file could not be written (after measuring): one line naming it."""


@contextlib.contextmanager
def writing(what: str, path: str | Path) -> Iterator[None]:
    """Writing ``what`` to ``path``: an OSError becomes an OutputError naming both."""
    try:
        yield
    except OSError as error:
        raise OutputError(f"cannot write {what} to {path}: {error.strerror or error}") from None


def write_output(path: str | Path, text: str, what: str, err: Console, shown: str | None = None) -> None:
    """Write one output file (UTF-8) and say where it went (as ``shown``, default the path given)."""
    with writing(what, path):
        Path(path).write_text(text, encoding="utf-8")
    say(err, f"{what} written to {shown or path}")


def write_if_asked(path: str | None, text: Callable[[], str], what: str, err: Console) -> None:
    """An output option's write: ``text()`` into ``path`` when the option was given."""
    if path:
        write_output(path, text(), what, err)


def write_outputs(writes: dict[str, Callable[[], object]]) -> dict[str, str]:
    """Do every write (by option name), even after one failed; the failures by option, one line each."""
    failed = {}
    for option, write in writes.items():
        try:
            write()
        except OutputError as error:
            failed[option] = str(error)
    return failed


def write_report(path: str, page: str, err: Console) -> None:
    """Write an HTML report and say where it is, as a full path: it is opened in a browser."""
    write_output(path, page, "report", err, shown=str(Path(path).resolve()))


def say(err: Console, text: str) -> None:
    """One message on standard error, as plain text on one line however narrow the terminal."""
    err.print(text, markup=False, highlight=False, soft_wrap=True)


def exit_code(result: RunResult, err: Console, allow_skipped: bool) -> int:
    """A run's exit code; its failures are named on standard error. A contender skipped because a
    dependency is not installed is a failure too, unless ``allow_skipped`` (``--allow-skipped``):
    otherwise a benchmark could silently vanish from CI."""
    if result.interrupted:
        return EXIT_INTERRUPTED
    problems = result.failures + ([] if allow_skipped else result.skips)
    if problems:
        hint = "" if allow_skipped or not result.skips else " (pass --allow-skipped if the skips are expected)"
        say(err, f"perflab: {len(problems)} problem(s): " + "; ".join(problems) + hint)
        return EXIT_FAILURES
    return EXIT_OK


# ---- errors from the store and results files ----------------------------------------------------

Handler = Callable[[argparse.Namespace, "Console"], int]


def store_errors_are_bad_input(handler: Handler) -> Handler:
    """The handler, with store, history and results-file errors turned into usage errors (bad input:
    one line, exit code 2)."""

    @functools.wraps(handler)
    def guarded(args: argparse.Namespace, err: Console) -> int:
        try:
            return handler(args, err)
        except Exception as error:
            # Their modules are imported on failure only: results.files brings pyperf, and
            # results.history the metrics, which a verb that reads neither should not pay for.
            from perflab.results.files import ResultsFileError
            from perflab.results.history import HistoryError
            from perflab.results.store import StoreError

            if isinstance(error, (StoreError, HistoryError, ResultsFileError)):
                raise UsageError(str(error)) from None
            raise

    return guarded
