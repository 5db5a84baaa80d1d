"""Figure: perflab used as a hostile user would (issue 11), and whether anything was lost.

Every probe runs the real ``perflab`` command in a subprocess, in a scratch git repository whose
results store already holds finished runs. After each probe the script checks that nothing was
lost:

- the store passes ``PRAGMA integrity_check`` and still holds every run that any earlier probe
  reported as stored ("stored as run N"), with its content;
- the input files (the benchmark file, a results file, a profile) are byte for byte as before;
- a run kept outside the store ("perflab-unsaved-*.json") exists and is a readable results file;
- no perflab process or worker is left running, and no worktree is left registered in the repository;
- the error, if any, is one line and not a traceback.

    python benchmarks/hostile_inputs.py            # prints the Markdown table of benchmarks/README.md
    python benchmarks/hostile_inputs.py --quick    # smoke run: the "results files" probes only

Writes benchmarks/results/hostile_inputs.json. Nothing here is timed: the figure is a list of
outcomes, so the machine's load changes how long it takes, not what it shows.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]  # the hostile files are shared with tests/e2e/test_hostile.py
import _cli
from _common import conditions, machine
from support.cli import start_until
from support.hostile_files import CONTENDERS, FAILING, SLOW_CALL, SORTS, processes_marked

FAST = ["--precision", "50", "--values", "4", "--value-time", "0.002", "--max-time", "20", "--timeout", "60"]
REVISIONS = ["--rev", "HEAD~1", "--rev", "HEAD"]


@dataclass
class Outcome:
    group: str
    probe: str
    exit_code: int | None
    said: str  # the error line, or the last line on stderr
    nothing_lost: bool
    lost: str  # what was lost, when something was


class Lab:
    """A scratch repository with a store of finished runs, and the checks run after every probe."""

    def __init__(self, root: Path, run_options: list[str]) -> None:
        self.root, self.db, self.marker = root, root / "store.db", uuid.uuid4().hex
        (root / "bench.py").write_text(SORTS)
        (root / "slow.py").write_text(SLOW_CALL.replace("SECONDS", "3"))
        self.git("init", "-q")
        self.git("config", "user.email", "lab@example.com")
        self.git("config", "user.name", "lab")
        self.git("add", ".")
        self.git("commit", "-qm", "one")
        (root / "bench.py").write_text(SORTS + "\n# two\n")
        self.git("commit", "-qam", "two")
        self.stored: dict[int, str] = {}  # run id -> benchmark, of every run reported as stored
        self.perflab("run", "bench.py", "--json", "baseline.json", *run_options)
        self.perflab("profile", "bench.py", "--sampler", "inprocess", "--samples", "50", "--json", "a.profile.json")
        self.inputs = {name: self.digest(name) for name in ("bench.py", "baseline.json", "a.profile.json")}

    def git(self, *args: str) -> None:
        subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True)

    def digest(self, name: str) -> str | None:
        path = self.root / name
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None

    def environment(self) -> dict[str, str]:
        return {**os.environ, "PERFLAB_DB": str(self.db), "HOSTILE_MARKER": self.marker, "COLUMNS": "160"}

    def perflab(self, *args: str) -> subprocess.CompletedProcess:
        process = subprocess.run(
            [sys.executable, "-m", "perflab", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=self.environment(),
            timeout=900,
        )
        self.note_stored(process.stderr)
        return process

    def note_stored(self, stderr: str) -> None:
        for ids, path in re.findall(r"stored as runs? ([\d, ]+?)(?: \([^)]*\))? in (\S+)", stderr):
            if Path(self.root, path).resolve() == self.db.resolve():
                for run_id in ids.split(","):
                    self.stored[int(run_id)] = ""

    def lost(self, stderr: str) -> list[str]:
        """What the last probe lost (empty: nothing)."""
        lost = []
        try:
            with sqlite3.connect(self.db) as db:
                if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                    lost.append("store integrity")
                present = {row[0]: row[1] for row in db.execute("SELECT id, benchmark FROM runs")}
        except sqlite3.Error as error:
            return [f"store unreadable ({error})"]
        for run_id, benchmark in self.stored.items():
            if run_id not in present or (benchmark and present[run_id] != benchmark):
                lost.append(f"run {run_id}")
            self.stored[run_id] = present.get(run_id, benchmark)
        lost += [f"{name} changed" for name, digest in self.inputs.items() if self.digest(name) != digest]
        for unsaved in re.findall(r"(\S*perflab-unsaved-\S+\.json)", stderr):
            try:
                json.loads(Path(self.root, unsaved).read_text())["cells"]
            except (OSError, ValueError, KeyError):
                lost.append(f"{unsaved} unreadable")
        time.sleep(0.3)  # a killed worker's /proc entry goes away
        left = processes_marked(self.marker)
        if left:
            lost.append(f"{len(left)} process(es) left running")
            for pid in left:
                os.kill(pid, signal.SIGKILL)
        listing = subprocess.run(["git", "-C", str(self.root), "worktree", "list"], capture_output=True, text=True)
        if len(listing.stdout.splitlines()) > 1:
            lost.append("worktrees left registered")
        if "Traceback" in stderr:
            lost.append("a traceback instead of a message")
        return lost


def said(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if line.startswith("perflab: error:")]
    lines = errors or [line for line in stderr.splitlines() if line.strip()] or [""]
    text = lines[-1].removeprefix("perflab: error: ")
    return text if len(text) <= 110 else text[:107] + "..."


def command(*args: str) -> Callable[[Lab], tuple[int | None, str]]:
    def probe(lab: Lab) -> tuple[int | None, str]:
        process = lab.perflab(*args)
        return process.returncode, process.stderr

    return probe


def interrupted(
    signum: int, *args: str, until: str = "timing", wait: float = 1.0
) -> Callable[[Lab], tuple[int | None, str]]:
    def probe(lab: Lab) -> tuple[int | None, str]:
        process, lines = start_until(list(args), lab.root, until, lab.environment())
        time.sleep(wait)
        process.send_signal(signum)
        code = process.wait(300)
        stderr = "".join(lines)
        if signum == signal.SIGKILL:  # nothing cleans up: the next run must
            time.sleep(0.3)
            for pid in processes_marked(lab.marker):
                os.kill(pid, signal.SIGKILL)
            again = lab.perflab("compare", "bench.py", *REVISIONS, *FAST)
            return code, stderr + again.stderr
        lab.note_stored(stderr)
        return code, stderr

    return probe


def concurrent_new_store(lab: Lab) -> tuple[int | None, str]:
    files = []
    for n in range(6):
        data = json.loads((lab.root / "baseline.json").read_text())
        data["benchmark"] = f"concurrent{n}"
        files.append(lab.root / f"concurrent{n}.json")
        files[-1].write_text(json.dumps(data))
    fresh = lab.root / "fresh.db"
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "perflab", "import", str(file), "--db", str(fresh)],
            cwd=lab.root,
            stderr=subprocess.PIPE,
            text=True,
            env=lab.environment(),
        )
        for file in files
    ]
    errors = [process.communicate()[1] for process in processes]
    codes = [process.returncode for process in processes]
    with sqlite3.connect(fresh) as db:
        count = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    return max(codes), "".join(errors) + f"\n{count} of 6 runs in the new store"


def immutable_store(lab: Lab) -> tuple[int | None, str]:
    data = json.loads((lab.root / "baseline.json").read_text())
    (lab.root / "another.json").write_text(json.dumps({**data, "benchmark": "another"}))
    subprocess.run(["chattr", "+i", str(lab.db)], check=True)
    try:
        process = lab.perflab("import", "another.json")
    finally:
        subprocess.run(["chattr", "-i", str(lab.db)], check=True)
    return process.returncode, process.stderr


def foreign_store(lab: Lab) -> tuple[int | None, str]:
    with sqlite3.connect(lab.root / "foreign.db") as foreign:
        foreign.execute("CREATE TABLE t (x)")
    return command("run", "bench.py", *FAST, "--db", "foreign.db")(lab)


def hostile_file(name: str, text: str, *args: str) -> Callable[[Lab], tuple[int | None, str]]:
    def probe(lab: Lab) -> tuple[int | None, str]:
        (lab.root / name).write_text(text)
        return command(*[arg.replace("FILE", name) for arg in args])(lab)

    return probe


def wrong_types(lab: Lab) -> tuple[int | None, str]:
    data = json.loads((lab.root / "baseline.json").read_text())
    return hostile_file("wrongtypes.json", json.dumps({**data, "cells": 7}), "import", "FILE")(lab)


def words(text: str) -> Callable[[Lab], tuple[int | None, str]]:
    """A probe that runs ``perflab TEXT`` (split at spaces)."""
    return command(*text.split())


FAST_TEXT = " ".join(FAST)
MARKDOWN_CONTENDERS = ("ESC[2J and BEL in a name", "![x](https://...) in a name")

PROBES: list[tuple[str, str, Callable[[Lab], tuple[int | None, str]]]] = [
    *[("an output onto an input", text, words(text)) for text in (
        "run bench.py --json bench.py",
        "run bench.py --json store.db --db store.db",
        "compare bench.py --markdown bench.py",
        "compare bench.py --html store.db --db store.db",
        "profile bench.py --folded bench.py",
        "merge a.profile.json --json a.profile.json",
        "bisect bench.py --good HEAD~1 --bad HEAD --json bench.py",
        "check bench.py --against baseline.json --markdown baseline.json",
        "import store.db --db store.db",
    )],
    *[("an output that cannot be written", text, words(text)) for text in (
        "run bench.py --json nodir/r.json",
        "run bench.py --pyperf bench.py",
        f"run bench.py --json /dev/full {FAST_TEXT}",
        f"compare bench.py --no-fuzz --markdown /dev/full {FAST_TEXT}",
        "export bench.py",
    )],
    *[("options", text, words(text)) for text in (
        "run bench.py --max-time nan",
        "run bench.py --value-time inf",
        "run bench.py --values 1000000000",
        "run bench.py --timeout 1e300",
        "run slow.py --max-time 2",  # one call takes 3 s
    )],
    ("git", "bisect bench.py --good=--output=/tmp/x --bad HEAD",
     command("bisect", "bench.py", "--good=--output=/tmp/perflab-pwned", "--bad", "HEAD")),
    ("git", "compare bench.py --rev '$(touch pwned)' --rev HEAD",
     command("compare", "bench.py", "--rev", "$(touch pwned)", "--rev", "HEAD")),
    ("git", "compare bench.py --rev WORKTREE --rev WORKTREE", words("compare bench.py --rev WORKTREE --rev WORKTREE")),
    ("signals", "Ctrl-C while a worker calibrates (run slow.py)",
     interrupted(signal.SIGINT, "run", "slow.py", "--max-time", "30")),
    ("signals", "SIGTERM during compare --rev",
     interrupted(signal.SIGTERM, "compare", "bench.py", *REVISIONS, "--max-time", "60", wait=0.5)),
    ("signals", "kill -9 during compare --rev, then run again",
     interrupted(signal.SIGKILL, "compare", "bench.py", *REVISIONS, "--max-time", "60", wait=0.5)),
    ("the store", "six processes creating one new store", concurrent_new_store),
    ("the store", "an immutable (read-only) store", immutable_store),
    ("the store", "a foreign SQLite file as --db", foreign_store),
    ("results files", "JSON nested 100,000 deep", hostile_file("nested.json", "[" * 100_000 + "]" * 100_000,
                                                               "import", "FILE")),
    ("results files", "wrong field types", wrong_types),
    ("results files", "the same file imported twice", words("import baseline.json")),
    ("contenders", "all contenders raise", hostile_file("raises.py", FAILING, "run", "FILE", *FAST)),
    *[("contenders", name, hostile_file("hostile.py", SORTS + extra, "run", "FILE", *FAST))
      for name, extra in CONTENDERS.items() if name not in MARKDOWN_CONTENDERS],
    ("names", "ESC[2J, BEL and ![x](https://...) in names, --markdown", hostile_file(
        "names.py", SORTS + "".join(CONTENDERS[name] for name in MARKDOWN_CONTENDERS),
        "compare", "FILE", "--no-fuzz", "--markdown", "summary.md", *FAST)),
]  # fmt: skip


def main() -> None:
    arguments = _cli.parser(__doc__)
    _cli.add_report(arguments)
    groups = list(dict.fromkeys(group for group, _, _ in PROBES))
    arguments.add_argument("--only", nargs="+", choices=groups, help="these groups of probes (default all)")
    args = _cli.parse(arguments, only=["results files"])
    if args.report:
        report(_cli.read_figure("hostile_inputs"))
        return
    started = conditions()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="perflab-hostile-") as scratch:
        lab = Lab(Path(scratch), FAST if args.quick else [])  # a smoke run's stored runs are quick ones too
        for group, name, probe in PROBES:
            if args.only and group not in args.only:
                continue
            code, stderr = probe(lab)
            lost = lab.lost(stderr)
            shown = stderr.replace(f"{lab.root}/", "").replace(str(lab.root), ".")  # the scratch directory
            outcomes.append(Outcome(group, name, code, said(shown), not lost, "; ".join(lost)))
            print(f"{group}: {name}: exit {code}, {'nothing lost' if not lost else 'LOST ' + '; '.join(lost)}",
                  file=sys.stderr)  # fmt: skip
        runs = len(lab.stored)
    figure = {"machine": machine(), "started": started, "ended": conditions(), "runs_checked": runs,
              "outcomes": [asdict(outcome) for outcome in outcomes]}  # fmt: skip
    path = _cli.write_figure("hostile_inputs", figure)
    report(figure)
    _cli.written(path)


def report(figure: dict) -> None:
    """The figure as the Markdown table of benchmarks/README.md."""
    outcomes, started, ended = figure["outcomes"], figure["started"], figure["ended"]
    print(f"{len(outcomes)} hostile inputs, {sum(o['nothing_lost'] for o in outcomes)} with nothing lost; "
          f"{figure['runs_checked']} finished runs checked present after every probe; load average "
          f"{started['load_average'][0]:.1f} at the start, {ended['load_average'][0]:.1f} at the end "
          f"({started['utc']}); FAST = {FAST_TEXT}\n")  # fmt: skip
    print("| group | hostile input | exit | what perflab said (last line) | nothing lost |")
    print("|---|---|---:|---|:---:|")
    for outcome in outcomes:
        probe = outcome["probe"].replace(FAST_TEXT, "FAST")
        said = outcome["said"].replace("|", "\\|").replace("`", "'")
        verdict = "✓" if outcome["nothing_lost"] else f"✗ {outcome['lost']}"
        print(f"| {outcome['group']} | `{probe}` | {outcome['exit_code']} | `{said}` | {verdict} |")


if __name__ == "__main__":
    main()
