"""Figure: wall time of the commands a user waits for, this tree against another (issue 13).

Commands, each run to completion as a user runs it (fresh process, report written, nothing stored):

- ``perflab demo`` (the README's first command);
- ``perflab compare json_dumps --case NESTED --html r.html`` at default settings (target: at most
  1.5 x the timing budget, 60 s, plus 15 s);
- ``perflab compare json_dumps --html r.html`` at default settings (every case and contender; target:
  at most a third of the former wall time, with shares as precise: benchmarks/profile_speed.py).

With ``--before SRC`` (a ``src`` folder of another checkout, e.g. ``git worktree add /tmp/before
main`` then ``/tmp/before/src``) every command also runs with ``PYTHONPATH=SRC``, alternating
before/after so that a drift of the machine hits both alike. Each line carries the load average
before and after it. Printed and written to benchmarks/results/time_to_answer.json.

    python benchmarks/time_to_answer.py --before /tmp/before/src
    python benchmarks/time_to_answer.py --only demo nested     # a subset, this tree only
    python benchmarks/time_to_answer.py --quick                # smoke run: nested at the smallest size, orjson only
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli
from _common import conditions, machine

NAME = "time_to_answer"
COMMANDS = {
    "demo": ["demo", "--html", "{out}"],
    "nested": ["compare", "json_dumps", "--case", "NESTED", "--html", "{out}", "--no-store"],
    "all_cases": ["compare", "json_dumps", "--html", "{out}", "--no-store"],
}
# A smoke run's command: the same, at the smallest timing (2 rounds, as benchmarks/_cli.py's) and
# profile, of one contender against the reference.
SMOKE_OPTIONS = [
    "--contender",
    "orjson",
    "--max-time",
    "60",
    "--debug-rounds",
    "2",
    "--precision",
    "50",
    "--values",
    "5",
    "--value-time",
    "0.002",
    "--samples",
    "100",
    "--no-fuzz",
]


def run(command: list[str], source: str | None) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        args = [part.replace("{out}", str(Path(folder) / "r.html")) for part in command]
        env = dict(os.environ)
        if source:
            env["PYTHONPATH"] = source
        load_before = os.getloadavg()
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "perflab", *args], capture_output=True, text=True, env=env, cwd=folder
        )
        seconds = time.monotonic() - started
    return {
        "seconds": seconds,
        "exit_code": done.returncode,
        "load_before": list(load_before),
        "load_after": list(os.getloadavg()),
        "stderr_tail": done.stderr[-2000:],
    }


def main() -> None:
    arguments = _cli.parser(__doc__)
    arguments.add_argument("--before", metavar="SRC", help="another checkout's src folder to compare with")
    arguments.add_argument("--only", nargs="+", choices=list(COMMANDS), help="these commands only")
    arguments.add_argument("--options", nargs="+", default=[], help="more options for every command (none)")
    args = _cli.parse(arguments, only=["nested"], options=SMOKE_OPTIONS)
    trees = {"after": None, **({"before": args.before} if args.before else {})}
    if not args.before:
        print("no --before tree given: measuring this tree only", flush=True)
    figure = {"figure": NAME, "machine": machine(), "conditions_start": conditions(), "how": __doc__, "runs": {}}
    for index, name in enumerate(args.only or list(COMMANDS)):
        order = list(trees) if index % 2 == 0 else list(reversed(trees))
        command = COMMANDS[name] + args.options
        for tree in order:
            result = run(command, trees[tree])
            figure["runs"][f"{name} ({tree})"] = result
            print(
                f"perflab {' '.join(command).replace('{out}', 'r.html')} ({tree}): "
                f"{result['seconds']:.1f} s, exit code {result['exit_code']}; load average "
                f"{result['load_before'][0]:.2f} -> {result['load_after'][0]:.2f}"
            )
    figure["conditions_end"] = conditions()
    _cli.written(_cli.write_figure(NAME, figure))


if __name__ == "__main__":
    main()
