"""The command line every figure script shares: its options, ``--quick``, and where its results go.

``--quick`` is a smoke run: the script's own code path at its smallest size, in seconds, so that
``tests/e2e/test_benchmark_scripts.py`` can run every script. A smoke run says so when it starts
and next to its figure, and writes its results file into a temporary folder: the real one in
``benchmarks/results/`` (the figure README.md quotes) is never overwritten by it.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SMOKE = "SMOKE RUN (--quick)"

# Set by parse() for a smoke run: where its results file goes instead of RESULTS.
_smoke_folder: Path | None = None


def parser(doc: str | None) -> argparse.ArgumentParser:
    """The script's parser, with ``--quick``; the script's module docstring is its help."""
    arguments = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    arguments.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: the same code at the smallest size, in seconds; the results file goes to a temporary "
        "folder, not benchmarks/results/",
    )
    return arguments


def parse(arguments: argparse.ArgumentParser, **quick: Any) -> argparse.Namespace:
    """Parse the command line; with ``--quick``, the values in ``quick`` replace the options'."""
    global _smoke_folder
    args = arguments.parse_args()
    if args.quick:
        vars(args).update(quick)
        _smoke_folder = Path(tempfile.mkdtemp(prefix="perflab-smoke-"))
        sizes = ", ".join(f"{key.replace('_', '-')} {value}" for key, value in quick.items())
        print(f"{SMOKE}: {sizes or 'the smallest size'}; checks that the script runs, not a figure", flush=True)
    return args


def is_smoke() -> bool:
    return _smoke_folder is not None


def add_trials(arguments: argparse.ArgumentParser, default: int, what: str, flag: str = "--trials") -> None:
    arguments.add_argument(flag, type=int, default=default, help=f"{what} (default {default})")


def add_timing(arguments: argparse.ArgumentParser, max_time: float, precision: bool = True) -> None:
    """perflab's stopping rule: ``--max-time`` (and ``--precision``), passed on to every run."""
    arguments.add_argument(
        "--max-time", type=float, default=max_time, help=f"perflab --max-time per trial (default {max_time:g})"
    )
    if precision:
        arguments.add_argument(
            "--precision", type=float, default=1.0, help="perflab --precision in percent (default 1)"
        )


def timing_options(args: argparse.Namespace, verdict: bool = False) -> list[str]:
    """The options add_timing() declared, as perflab takes them; a smoke run's values are short and
    it stops after 2 rounds (perflab's test-only --debug-rounds): it checks the script's code
    path, not its figure, and the test suite runs every script's smoke run. ``verdict``: the
    script's code path needs perflab's verdicts, which 2 rounds do not always give: a smoke run
    stops by perflab's own rule at a loose precision instead (5 rounds at least, as the tests' VERDICT)."""
    options = ["--max-time", f"{args.max_time:g}"]
    options += ["--precision", f"{args.precision:g}"] if "precision" in vars(args) else []
    smoke = ["--values", "5", "--value-time", "0.002", *(["--precision", "50"] if verdict else ["--debug-rounds", "2"])]
    return options + (smoke if is_smoke() else [])


def add_slowdown(arguments: argparse.ArgumentParser, default: float, iterations: bool = False) -> None:
    """The injected slowdown (see power.injected_slowdown), and optionally its busy-loop size."""
    arguments.add_argument(
        "--slowdown", type=float, default=default, help=f"injected slowdown in percent (default {default:g})"
    )
    if iterations:
        arguments.add_argument(
            "--iterations",
            type=int,
            default=None,
            help="busy-loop iterations to inject instead of calibrating them (the trials' own ratios tell "
            "the slowdown they measured)",
        )


def add_budget(arguments: argparse.ArgumentParser) -> None:
    arguments.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="start no new trial after this many seconds (the figure says how many ran)",
    )


def add_name(arguments: argparse.ArgumentParser, default: str) -> None:
    arguments.add_argument(
        "--name",
        default=default,
        help=f"write benchmarks/results/NAME.json (default {default}; e.g. to keep a run of another commit)",
    )


def add_report(arguments: argparse.ArgumentParser) -> None:
    arguments.add_argument(
        "--report", action="store_true", help="measure nothing: summarize and print the saved figure again"
    )


def add_work(arguments: argparse.ArgumentParser, default: float) -> None:
    arguments.add_argument(
        "--work", type=float, default=default, help=f"seconds one run of the program lasts (default {default:g})"
    )


def add_windows(arguments: argparse.ArgumentParser, pairs: int) -> None:
    """ABBA pairs of windows with and without a sampler, per setting (profile_distortion.py, sampler_pause.py)."""
    arguments.add_argument("--pairs", type=int, default=pairs, help=f"ABBA pairs of windows (default {pairs})")
    arguments.add_argument("--window", type=float, default=1.0, help="seconds per window (default 1)")
    arguments.add_argument("--only", nargs="+", metavar="NAME", help="settings whose name starts with one of these")
    arguments.add_argument("--busy", action="store_true", help="run a second CPU-bound process meanwhile")


def results_file(name: str) -> Path:
    """benchmarks/results/NAME.json; in a smoke run, NAME.json in its temporary folder."""
    folder = _smoke_folder or RESULTS
    folder.mkdir(exist_ok=True)
    return folder / f"{name}.json"


def write_figure(name: str, figure: dict[str, Any]) -> Path:
    path = results_file(name)
    path.write_text(json.dumps(_finite(figure), indent=1) + "\n")
    return path


def read_figure(name: str) -> dict[str, Any]:
    """A saved figure (``--report``, or a script's saved inputs): always the real results file."""
    return json.loads((RESULTS / f"{name}.json").read_text())


def written(path: Path) -> None:
    """The last line of every figure: where its results went, and whether they are a smoke run."""
    print(f"{SMOKE}: not a figure; written to {path}" if is_smoke() else f"written to {path}")


def _finite(value: Any) -> Any:
    """JSON has no infinities (an interval that never closed): write them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
