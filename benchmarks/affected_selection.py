"""Figure: ``perflab check --affected`` never skips a regressed benchmark, and how much it skips.

A generated project (a git repository, seeded): a package of 4 modules, 28 functions of several
kinds (plain, methods called on an instance, generators, decorated, with a nested closure) calling
each other at random, some calls only for large inputs, and one benchmark file of 4 cases (lists of
1, 10, 100, 1,000 items) x 3 contenders (each calling a random function of the package): 12 cells.
Each trial injects a slowdown into one function picked at random (a busy loop at the top of its
body that also marks, in the process, that it ran) and asks perflab which cells the change can
affect: ``perflab.measure.affected.select``, the code behind ``check --affected``: the real git
diff, the syntax-tree comparison and the "reach" worker processes on both sides (the base commit's
worktree and the working tree), 24 per trial. Nothing is measured, so the library is called in
this process rather than ``perflab check``, which would then time the cells selected.

The truth, found another way: one plain Python process per trial loads the benchmark, calls every
cell's operation three times and reads the marks the injected code left. A cell whose operation ran
the injected code is regressed; selection misses it when it skips it.

    python benchmarks/affected_selection.py             # 100 trials
    python benchmarks/affected_selection.py --quick     # smoke run: 2 trials
    python benchmarks/affected_selection.py --report    # print the saved figure

Targets: 0 regressed cells skipped. Printed: misses, the cells skipped (the work saved: each
skipped cell is a paired timing run check does not make), cells run that were not regressed
(what being conservative costs), and the tracing's wall time per trial (provisional on a loaded
machine: the load averages are in the figure).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _cli
from _common import binomial_interval, finish, new_figure, quantiles, report_again, save_progress

from perflab.measure import affected
from perflab.measure.settings import Settings

NAME = "affected_selection"
MODULES = 4
KINDS = ("function", "function", "method", "generator", "decorated", "closure", "function")
CASES = {"ONE": 1, "TEN": 10, "HUNDRED": 100, "THOUSAND": 1000}
CONTENDERS = ("first", "second", "third")
CALLS = 3  # of each operation, by the truth as by the reach workers
MARK = 'builtins.__dict__.setdefault("perflab_injected", []).append(1)'


def main() -> int:
    arguments = _cli.parser(__doc__)
    _cli.add_trials(arguments, 100, "trials, each one slowdown in a random function")
    arguments.add_argument("--seed", type=int, default=31, help="the project's and the trials' seed (default 31)")
    _cli.add_report(arguments)
    args = _cli.parse(arguments, trials=2)
    if args.report:
        return report_again(NAME, summarize, show)
    figure = new_figure(NAME, {"trials": args.trials, "seed": args.seed}, trials=[])
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="perflab-affected-") as folder:
        repo = Path(folder)
        units = generate(repo, rng)
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")
        base = git(repo, "rev-parse", "HEAD")
        for number in range(args.trials):
            module, name = rng.choice(units)
            inject(repo / "gen" / f"{module}.py", name)
            started = time.monotonic()
            selection = affected.select(
                repo / "bench.py", base, base, list(CASES), list(CONTENDERS), Settings(timeout=120)
            )
            seconds = time.monotonic() - started
            regressed = truth(repo)
            skipped = {f"{case}/{contender}" for case, contender, _ in selection.skipped}
            figure["trials"].append(
                {
                    "injected": f"{module}.{name}",
                    "regressed": sorted(regressed),
                    "skipped": sorted(skipped),
                    "missed": sorted(regressed & skipped),
                    "seconds": seconds,
                }
            )
            git(repo, "checkout", "-q", "--", ".")
            print(
                f"trial {number + 1}: {module}.{name}: {len(regressed)} regressed, {len(skipped)} skipped", flush=True
            )
            save_progress(NAME, figure, summarize)
    return finish(NAME, figure, summarize, show)


def generate(repo: Path, rng: random.Random) -> list[tuple[str, str]]:
    """The package and the benchmark; returns every function as (module, name as in its source)."""
    per_module = len(KINDS)
    units = [(f"mod{m}", kind, index) for m in range(MODULES) for index, kind in enumerate(KINDS)]
    package = repo / "gen"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for m in range(MODULES):
        lines = ["import builtins", "import functools", ""]
        lines += [f"import gen.mod{other} as mod{other}" for other in range(m + 1, MODULES)]
        lines += ["", "", "def traced(function):", "    @functools.wraps(function)", "    def wrapper(x):"]
        lines += ["        return function(x)", "", "    return wrapper", "", "", f"class Worker{m}:"]
        methods, functions = [], []
        for index, kind in enumerate(KINDS):
            number = m * per_module + index
            later = units[number + 1 :]
            callees = rng.sample(later, min(len(later), rng.choice((0, 1, 2, 3))))
            body = []
            for callee in callees:
                call = _call(callee, m)
                threshold = rng.choice((None, 5, 50, 500))
                body += [f"if len(x) > {threshold}:", f"    total += {call}"] if threshold else [f"total += {call}"]
            body = ["total = len(x)", *body, "return total"]
            name = _name(kind, index)
            if kind == "method":
                methods += [f"    def {name}(self, x):", *(f"        {line}" for line in body), ""]
                continue
            signature = [f"def {name}(x):"] if kind != "decorated" else ["@traced", f"def {name}(x):"]
            if kind == "generator":
                body = [
                    "for item in x[:3]:",
                    "    total = len(x)",
                    *(f"    {line}" for line in body[1:-1]),
                    "    yield total",
                ]
            if kind == "closure":
                body = ["def inner(x):", *(f"    {line}" for line in body), "", "return inner(x)"]
            functions += ["", "", *signature, *(f"    {line}" for line in body)]
        lines += methods or ["    pass"]
        lines += functions
        (package / f"mod{m}.py").write_text("\n".join(lines) + "\n")
    bench = ["import perflab", "import gen.mod0", *(f"import gen.mod{m}" for m in range(1, MODULES)), ""]
    bench += ['bench = perflab.Benchmark("generated")', ""]
    for case, size in CASES.items():
        bench += ["", "@bench.case", f"def {case}():", f"    return list(range({size}))", ""]
    for contender in CONTENDERS:
        entry = rng.choice(units[: len(units) // 3])
        bench += ["", "@bench.contender", f"def {contender}(x):", f"    return {_call(entry, None, 'gen.')}", ""]
    (repo / "bench.py").write_text("\n".join(bench))
    return [(module, _name(kind, index)) for module, kind, index in units]


def _name(kind: str, index: int) -> str:
    return f"{kind}_{index}"


def _call(unit: tuple[str, str, int], caller: int | None, prefix: str = "") -> str:
    """How ``caller`` (a module's number; None: the benchmark) calls ``unit``."""
    module, kind, index = unit
    where = "" if caller is not None and module == f"mod{caller}" else f"{prefix}{module}."
    name = _name(kind, index)
    if kind == "method":
        return f"{where}Worker{module[3:]}().{name}(x)"
    return f"sum({where}{name}(x))" if kind == "generator" else f"{where}{name}(x)"


def inject(path: Path, name: str) -> None:
    """A slowdown at the top of ``name``'s body (the line after its ``def``), marking that it ran."""
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"def {name}("))
    indent = " " * (len(lines[at]) - len(lines[at].lstrip()) + 4)
    lines.insert(at + 1, f"{indent}{MARK}; sum(range(20000))")
    path.write_text("\n".join(lines) + "\n")


TRUTH = """
import builtins, json, sys
from perflab.bench.loading import load_benchmark
benchmark = load_benchmark(sys.argv[1])
ran = []
for case in benchmark.cases.values():
    argument = case.build()
    for contender in benchmark.contenders.values():
        operation = contender.build()
        builtins.__dict__["perflab_injected"] = []
        for _ in range({calls}):
            operation(argument)
        if builtins.perflab_injected:
            ran.append(f"{{case.name}}/{{contender.name}}")
print(json.dumps(ran))
"""


def truth(repo: Path) -> set[str]:
    """The cells whose operation runs the injected code, by running them (a plain process)."""
    done = subprocess.run(
        [sys.executable, "-c", TRUTH.format(calls=CALLS), str(repo / "bench.py")],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout))


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def summarize(figure: dict[str, Any]) -> None:
    trials = figure["trials"]
    cells = len(CASES) * len(CONTENDERS)
    regressed = sum(len(trial["regressed"]) for trial in trials)
    missed = sum(len(trial["missed"]) for trial in trials)
    skipped = sum(len(trial["skipped"]) for trial in trials)
    figure["summary"] = {
        "trials": len(trials),
        "cells_per_trial": cells,
        "regressed_cells": regressed,
        "missed": missed,
        "trials_with_a_miss": sum(bool(trial["missed"]) for trial in trials),
        "missed_interval": binomial_interval(missed, regressed) if regressed else None,
        "skipped_share": skipped / (cells * len(trials)) if trials else 0.0,
        "run_not_regressed": sum(
            cells - len(trial["skipped"]) - (len(trial["regressed"]) - len(trial["missed"])) for trial in trials
        ),
        "trials_nothing_regressed": sum(not trial["regressed"] for trial in trials),
        "seconds": quantiles([trial["seconds"] for trial in trials]) if trials else None,
    }


def show(figure: dict[str, Any]) -> None:
    summary = figure["summary"]
    smoke = f" [{_cli.SMOKE}]" if _cli.is_smoke() else ""
    cells = summary["cells_per_trial"] * summary["trials"]
    print(
        f"regressed cells skipped: {summary['missed']}/{summary['regressed_cells']} "
        f"over {summary['trials']} trials{smoke}"
    )
    print(
        f"cells skipped: {summary['skipped_share']:.0%} of {cells}; run although not regressed: "
        f"{summary['run_not_regressed']}; trials where no cell was regressed: {summary['trials_nothing_regressed']}"
    )
    if summary["seconds"]:
        print(
            f"tracing both sides (24 reach workers, 2 CPUs): median {summary['seconds']['median']:.1f} s per trial "
            f"(load average {figure['start']['load_average'][0]:.1f} at the start; provisional on a loaded machine)"
        )


if __name__ == "__main__":
    sys.exit(main())
