"""Figure: does perflab isolate's benchmark time its function without bias?

``perflab isolate --function app:word_counts -- python prog/app.py`` writes a benchmark file whose
``original`` contender calls the function on the inputs recorded from the run. The figure appends
``direct``: the same code, the function imported by name at set-up, as a user would write it. Both
time the identical function on the identical calls, so every comparison should read "no detectable
difference"; a "faster" or "slower" is a false positive of the generated benchmark (issue 27:
``original`` used to resolve the function inside the timed call, and direct read "faster x1.35").

Each trial is one ``perflab run`` of the file (three cases: every recorded call, the largest, the
smallest); the figure counts the comparisons that say any difference, with an exact 95% interval
of that rate (perflab's FDR is 1% per run, and its minimum effect 1%).

    python benchmarks/isolate_bias.py                  # 10 trials, --max-time 30 each
    python benchmarks/isolate_bias.py --quick          # smoke run: one trial of 2 rounds, one case
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import _cli
from _common import binomial_interval, conditions, finish, machine_line, new_figure, run_perflab, save_progress

from perflab.results.quantities import NO_DIFFERENCE

NAME = "isolate_bias"

APP = """
def word_counts(text):
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts


if __name__ == "__main__":
    for number in range(200):
        word_counts(" ".join(f"w{n % (number + 1)}" for n in range(number)))
"""

# The generated original's code, with the function imported by name instead of resolved by isolate.
DIRECT = """

@bench.contender(setup=True)
def direct():
    from app import word_counts

    def call_all(calls):
        return [word_counts(*args, **kwargs) for args, kwargs in calls]

    return call_all
"""


def isolated_benchmark(root: Path) -> Path:
    """The benchmark ``perflab isolate`` writes for app:word_counts, with ``direct`` appended."""
    (root / "prog").mkdir()
    (root / "prog" / "app.py").write_text(APP)
    bench = root / "bench_app.py"
    command = [sys.executable, "-m", "perflab", "isolate", "--function", "app:word_counts", "--output", str(bench)]
    subprocess.run([*command, "--", sys.executable, "prog/app.py"], cwd=root, check=True, capture_output=True)
    bench.write_text(bench.read_text() + DIRECT)
    return bench


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 10, "perflab runs of the isolated benchmark")
    _cli.add_timing(arguments, 30.0)
    arguments.add_argument("--case", help="only this case: ALL, LARGEST or SMALLEST (default: the three)")
    args = _cli.parse(arguments, trials=1, max_time=30.0, precision=50.0, case="SMALLEST")
    options = [*_cli.timing_options(args), "--no-fuzz"]  # the figure is about timing; both run the same code
    options += ["--case", args.case] if args.case else []
    settings = {"trials": args.trials, "perflab_command": "perflab run bench_app.py " + " ".join(options)}
    figure = new_figure(NAME, settings, trials=[])
    with tempfile.TemporaryDirectory(prefix="perflab-isolate-bias-") as directory:
        bench = isolated_benchmark(Path(directory))
        for trial in range(args.trials):
            run = run_perflab(str(bench), Path(directory) / "out.json", *options, "--no-store")
            comparisons = {
                c["case"]: {"verdict": c["verdict"], "shown": c["shown"]["ratio"]}
                for c in run.result["comparisons"]
                if c["contender"] == "direct"
            }
            load = conditions()["load_average"]
            figure["trials"].append(
                {"trial": trial, "exit_code": run.exit_code, "load_average": load, "cases": comparisons}
            )
            save_progress(NAME, figure, summarize)
    return finish(NAME, figure, summarize, show)


def summarize(figure: dict) -> None:
    verdicts = [entry["verdict"] for trial in figure["trials"] for entry in trial["cases"].values()]
    differing = sum(verdict != NO_DIFFERENCE for verdict in verdicts)
    figure["summary"] = {
        "comparisons": len(verdicts),
        "any_difference": differing,
        "rate_ci95": binomial_interval(differing, len(verdicts)),
    }


def show(figure: dict) -> None:
    print(f"{NAME}: {figure['settings']['perflab_command']}; {machine_line(figure)}")
    for trial in figure["trials"]:
        cases = "; ".join(f"{case} {entry['verdict']} {entry['shown']}" for case, entry in trial["cases"].items())
        print(f"  trial {trial['trial'] + 1} (exit {trial['exit_code']}): {cases}")
    summary = figure["summary"]
    low, high = summary["rate_ci95"]
    print(
        f"isolated vs direct: {summary['any_difference']} of {summary['comparisons']} comparisons say a difference "
        f"(rate 95% CI {low:.1%}-{high:.1%})"
    )


if __name__ == "__main__":
    sys.exit(main())
