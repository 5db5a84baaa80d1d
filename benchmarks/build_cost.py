"""Figure: what building a compiled revision costs (perflab.measure.builds), cold and cached.

The script makes a git repository (in a temporary directory) holding the tests' small setuptools C
extension (tests/support/compiled_projects.py: one C file, a pyproject.toml, a setup.py), and
builds its HEAD into an environment the way ``perflab compare --rev`` does, with a build cache in
a temporary folder:

- cold, pip: a new build cache each trial: ``python -m venv``, setuptools from PyPI (the newest,
  ``pip install --upgrade``), then ``python -m pip install --no-build-isolation .``;
- cold, uv: the same with ``uv venv`` and ``uv pip install`` (when ``uv`` is on PATH; else said);
- cached: the same revision asked for again: its cache entry found, nothing built;
- build-to-build spread: a repository whose two commits hold the same C (rounds 1, 1), compared
  with ``perflab compare --rev HEAD~1 --rev HEAD --build-spread`` in a new build cache each trial:
  three builds (HEAD~1 twice, HEAD) and two interleaved comparisons: the A/A of HEAD~1's two builds
  (its spread: the farthest its 95% interval reaches from 1, either way) and HEAD against HEAD~1,
  the same source built apart (its verdict: a false one unless "no detectable difference").

Trials alternate pip and uv so that both see the same machine conditions. Wall times are the
builds' own (build_seconds in each entry); on a shared machine they are provisional (the load
average is printed with them). Printed and written to benchmarks/results/build_cost.json.

    python benchmarks/build_cost.py              # 3 trials of each, --max-time 30 per comparison
    python benchmarks/build_cost.py --quick      # smoke run: 1 trial of each

A smoke run costs 14-20 CPU-seconds with uv on PATH (as in CI; three times that without): the five
builds of the figure's paths (pip, uv, and compare --build-spread's three) are its subject.

The spread is a timing figure: take it on a quiet machine; under load it is the load's too.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import _cli
from _common import conditions, finish, format_load, new_figure, perflab_json, quantiles

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.compiled_projects import c_extension_repository  # (tests/ is on the path: the tests' own project)

from perflab.measure import builds

NAME = "build_cost"


def build_once(repository: Path, command: str, cache: Path) -> builds.Environment:
    os.environ["PERFLAB_CACHE"] = str(cache)
    return builds.environment(repository, "HEAD", sys.executable, builds.Choice(command=command))


def spread_trial(scratch: Path, trial: int, timing: list[str]) -> dict:
    """One ``compare --build-spread`` of two commits of the same C, in a new build cache."""
    repository = c_extension_repository(scratch / f"same-{trial}", rounds=(1, 1))
    os.environ["PERFLAB_CACHE"] = str(scratch / f"spread-cache-{trial}")
    bench = str(repository / "benchmarks" / "bench.py")
    revisions = ["--rev", "HEAD~1", "--rev", "HEAD", "--build-spread", "--no-store"]
    run = perflab_json(["compare", bench, *revisions, *timing], scratch / "spread.json")
    spread = run.result["metadata"].get("build_spread")
    if spread is None:
        raise RuntimeError(f"compare --build-spread measured no spread (exit {run.exit_code})")
    [comparison] = run.result["comparisons"]
    return {
        "spread": float(spread["spread"]),
        "aa_ratio": [float(spread["ratio"][bound]) for bound in ("value", "low", "high")],
        "verdict": comparison["verdict"],
        "shown": run.result["build_spread_shown"],
        **conditions(),
    }


def summarize(figure: dict) -> None:
    by_kind: dict[str, list[float]] = {}
    for trial in figure["trials"]:
        by_kind.setdefault(trial["kind"], []).append(trial["seconds"])
    figure["summary"] = {kind: {**quantiles(seconds), "n": len(seconds)} for kind, seconds in by_kind.items()}
    spreads = figure.get("spreads", [])
    figure["spread_summary"] = {
        **(quantiles([trial["spread"] for trial in spreads]) if spreads else {}),
        "n": len(spreads),
        "false_verdicts": sum(trial["verdict"] != "no detectable difference" for trial in spreads),
    }


def show(figure: dict) -> None:
    print(f"\n{NAME}: building a small setuptools C extension into its environment, {figure['start']['utc']}")
    print(f"  load average at start {format_load(figure['start'])}, at end {format_load(figure['end'])}")
    for kind, seconds in figure["summary"].items():
        print(f"  {kind}: median {seconds['median']:.2f} s over {seconds['n']} trials (min {seconds['min']:.2f} s)")
    if not figure["uv"]:
        print("  cold build (uv): not measured, uv is not on PATH (pip install uv)")
    spread = figure["spread_summary"]
    if spread["n"]:
        print(
            f"  build-to-build spread (A/A of two builds of one revision, {figure['settings']['timing']}): "
            f"median ±{spread['median']:.2%} over {spread['n']} trials (max ±{spread['max']:.2%}); "
            f"same source built apart: {spread['false_verdicts']}/{spread['n']} false verdicts"
        )
        for trial in figure["spreads"]:
            print(f"    {trial['shown']}; HEAD vs HEAD~1: {trial['verdict']}")


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 3, "cold builds with each installer, and build-spread comparisons")
    _cli.add_timing(arguments, max_time=30.0)
    args = _cli.parse(arguments, trials=1, max_time=10.0)
    uv = shutil.which("uv") is not None
    timing = _cli.timing_options(args)
    figure = new_figure(NAME, {"trials": args.trials, "timing": " ".join(timing)}, uv=uv, trials=[], spreads=[])
    with tempfile.TemporaryDirectory(prefix="perflab-build-cost-") as scratch:
        repository = c_extension_repository(Path(scratch) / "repo", rounds=(1,))
        commands = [("cold build (pip)", builds.DEFAULT_COMMAND)] + (
            [("cold build (uv)", builds.UV_COMMAND)] if uv else []
        )
        for trial in range(args.trials):
            for kind, command in commands:
                cache = Path(scratch) / f"cache-{trial}-{len(figure['trials'])}"
                built = build_once(repository, command, cache)
                figure["trials"].append({"kind": kind, "seconds": built.seconds, **conditions()})
                started = time.monotonic()
                again = build_once(repository, command, cache)
                assert again.cached, "the second request for one revision must come from the cache"
                figure["trials"].append({"kind": "cached", "seconds": time.monotonic() - started, **conditions()})
                shutil.rmtree(cache)
        for trial in range(args.trials):
            figure["spreads"].append(spread_trial(Path(scratch), trial, timing))
    return finish(NAME, figure, summarize, show)


if __name__ == "__main__":
    sys.exit(main())
