"""``--perflab-rev A --perflab-rev B``: today's test files on each revision's code, paired.

As ``perflab compare bench.py --rev A --rev B`` does (perflab.measure.worktrees): each revision is
checked out in a worktree for the session, and the test file is the working tree's, run on that
revision's code. Every benchmarked test runs in one pytest process per revision, started for it
with the revision's code imported first (its worktree's root and src/, then the test file's folder:
worktrees.search_path) and ``--import-mode=append``, so that pytest's own insertion of the test's
folder never puts the working tree's copy of the project ahead of the revision's. When every
revision's process has reached ``benchmark(fn, *args)``, this process drives them over a pipe:
first the outputs, compared as compare --rev compares them (the first revision's, pickled, in each
revision's process); then ``loops`` asked of one, the seconds of that many calls timed there
answered, one revision at a time, in the interleaved rounds of ``benchmark.compare``
(BenchmarkFixture.revisions), so that the ratios and verdicts are paired per round and say each
revision relative to the first. The runs are stored one per revision, at its commit, as
compare --rev's are (Revisions.sided).

Tests that do not use the ``benchmark`` fixture run once, here, on the working tree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

import pytest

from perflab import git
from perflab.bench.comparators import resolve_comparator
from perflab.measure import builds, metadata, worktrees
from perflab.pytest_plugin.benchmark_api import REFERENCE_NAME, BenchmarkFixture, quiet_interpreter, timed_calls
from perflab.pytest_plugin.environment import REVISION_PIPE, REVISIONS_OPTION
from perflab.results.model import RunResult

OPTION = REVISIONS_OPTION
# The pipe's words: the session asks for OUTPUT, CHECK + an output, a number of loops, or END; a
# revision's process says READY, EQUAL or DIFFERS + how, and SKIPPED + why.
READY, END, SKIPPED, OUTPUT, CHECK, EQUAL, DIFFERS = "ready", "end", "skipped ", "output", "check ", "equal", "differs "
EXACT = "exact"  # how outputs are compared: a pytest test declares no comparator (compare --rev's default)


class Revisions:
    """The session's revisions, each checked out (and built, for a compiled project) until pytest ends."""

    def __init__(self, config: pytest.Config, revisions: list[str]) -> None:
        self.config = config
        stack = contextlib.ExitStack()
        config.add_cleanup(stack.close)
        # The repository is the one holding the tests (else the current directory's), as for a
        # benchmark file; the test files stay the working tree's: no file is read at a revision.
        where = Path(config.rootpath)
        try:
            self.checkouts = stack.enter_context(worktrees.checkouts(where, revisions))
            self.roots = {name: self._roots(name, checkout) for name, checkout in self.checkouts.items()}
        except worktrees.RevisionError as error:  # a build that failed included
            stack.close()
            raise pytest.UsageError(f"{OPTION}: {error}") from None
        root = worktrees.benchmark_repository(where)
        self.commits = {
            revision: git.resolve_commit(root, "HEAD" if revision == worktrees.CURRENT else revision) or "?"
            for revision in revisions
        }
        # What each revision's runs are stored with (its commit, read while its worktree exists).
        python = metadata.interpreter_info(sys.executable)
        self.measured_on = {
            name: {"python": python, "git": metadata.git_info(checkout.root)}
            for name, checkout in self.checkouts.items()
        }

    def sided(self, run: RunResult) -> RunResult:
        """``run`` as compare --rev's: each revision a side measured on its own commit, so that the
        store keeps one run per revision at that commit (RunResult.per_side), where ``perflab
        history`` and ``--perflab-against REV`` find it."""
        sides = {
            name: {"name": name, "file": run.file, "contender": REFERENCE_NAME, "python": sys.executable}
            for name in self.checkouts
        }
        return replace(run, sides=sides, metadata={**run.metadata, "sides": self.measured_on})

    def _roots(self, revision: str, checkout: worktrees.Checkout) -> list[str]:
        """Where the revision's code is imported from: its source tree, or for a compiled project
        its build's site-packages (built once per source tree, cached, as every verb builds it)."""
        choice = builds.Choice(on_progress=_say)
        if not choice.wanted(checkout.root):
            return worktrees.import_roots(checkout.root)
        repository = worktrees.benchmark_repository(Path(self.config.rootpath))
        return [str(builds.environment(repository, revision, sys.executable, choice).site_packages)]

    def header(self) -> str:
        names = list(self.checkouts)
        sides = ", ".join(
            f"{name} ({self.commits[name][:12]}{', uncommitted changes included' if name == worktrees.CURRENT else ''})"
            for name in names
        )
        return (
            f"revisions: the working tree's test files on the code of {sides}, interleaved in one run "
            f"(paired per round); every ratio is {'/'.join(names[1:])} relative to {names[0]}"
        )

    def run(self, item: pytest.Function, fixture: BenchmarkFixture) -> None:
        """Run ``item`` on every revision, its benchmark timed interleaved; fail it where it fails."""
        with contextlib.ExitStack() as stack:
            sides = {
                name: stack.enter_context(_Process.started(name, item, checkout.root, self.roots[name], self.config))
                for name, checkout in self.checkouts.items()
            }
            reached = {name: side.reached() for name, side in sides.items()}
            ended = None
            if all(reached.values()):
                try:
                    fixture.revisions({name: side.timed for name, side in sides.items()}, *_outputs(sides))
                except _Ended as error:
                    ended = error.revision
            codes = {name: side.finish() for name, side in sides.items()}
            failed = next((name for name, code in codes.items() if code != 0), None)
            if failed is not None:
                pytest.fail(sides[failed].failure("the test failed there"), pytrace=False)
            if ended is not None:
                pytest.fail(sides[ended].failure("its process ended while timing"), pytrace=False)
            skipped = [side.skipped for side in sides.values() if side.skipped]
        if skipped and len(skipped) == len(sides):
            pytest.skip(skipped[0])
        if any(reached.values()) and not all(reached.values()):
            used = ", ".join(name for name, done in reached.items() if done)
            unused = ", ".join(name for name, done in reached.items() if not done)
            pytest.fail(
                f"{OPTION}: the test timed a call on {used} but not on {unused}: nothing to compare", pytrace=False
            )


def _outputs(sides: dict[str, _Process]) -> tuple[str | None, dict[str, str], str | None]:
    """compare --rev's check of outputs (perflab.measure.equivalence): the first revision's output
    pickled, then compared with the output of every revision's process there (the first's too: an
    output that is not the same twice is no reference). The comparator's name, the revisions whose
    output differs (and how), and why nothing was compared (None when it was)."""
    names = list(sides)
    answer = sides[names[0]].ask(OUTPUT)
    if not answer.startswith(OUTPUT + " "):
        return None, {}, f"the revisions' outputs were not compared: the output on {names[0]} {answer}"
    differences = {}
    for name in names:
        verdict = sides[name].ask(CHECK + answer[len(OUTPUT) + 1 :])
        if verdict == EQUAL:
            continue
        if verdict.startswith(DIFFERS) and name != names[0]:
            differences[name] = verdict[len(DIFFERS) :]
            continue
        why = f"is not the same twice ({verdict[len(DIFFERS) :]})" if name == names[0] else verdict
        return None, {}, f"the revisions' outputs were not compared: the output on {name} {why}"
    return EXACT, differences, None


def _say(message: str) -> None:
    """A build's progress, before any test runs (minutes, for a first build)."""
    sys.stderr.write(f"perflab: {message}\n")


# pytest's main without the current directory first on sys.path (`python -m` would put it there):
# the revision's code comes from PYTHONPATH alone, its source or its build.
_PYTEST_MAIN = "import sys; del sys.path[0]; import pytest; sys.exit(pytest.console_main())"


class _Ended(Exception):
    def __init__(self, revision: str) -> None:
        self.revision = revision


class _Process:
    """One revision's pytest process running one test, and this session's end of its pipe."""

    def __init__(self, revision: str, process: subprocess.Popen, requests: IO[str], answers: IO[str], log: IO[str]):
        self.revision, self.process = revision, process
        self.requests, self.answers, self.log = requests, answers, log
        self.skipped: str | None = None

    @classmethod
    @contextlib.contextmanager
    def started(
        cls, revision: str, item: pytest.Function, tree: Path, roots: list[str], config: pytest.Config
    ) -> Iterator[_Process]:
        from_parent, to_child = os.pipe()
        from_child, to_parent = os.pipe()
        inherited = os.environ.get("PYTHONPATH")
        imports = worktrees.search_path(roots, Path(item.path))
        environment = {
            **os.environ,
            REVISION_PIPE: f"{from_parent},{to_parent}",
            "PYTHONPATH": os.pathsep.join(imports + ([inherited] if inherited else [])),
        }
        command = [
            sys.executable,
            "-c",
            _PYTEST_MAIN,
            f"{item.path}::{item.nodeid.partition('::')[2]}",
            "--rootdir",
            str(config.rootpath),
            "--perflab",
            "--perflab-no-store",
            "--import-mode=append",
            "-p",
            "no:cacheprovider",
            "-q",
            "--no-header",
            *_passed_on(config),
        ]
        with tempfile.TemporaryFile("w+") as log:
            try:
                process = subprocess.Popen(
                    command,
                    cwd=tree,
                    env=environment,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    pass_fds=(from_parent, to_parent),
                    text=True,
                )
            finally:
                os.close(from_parent)
                os.close(to_parent)
            side = cls(revision, process, os.fdopen(to_child, "w"), os.fdopen(from_child), log)
            try:
                yield side
            finally:
                side.finish()

    def reached(self) -> bool:
        """Whether the test got to ``benchmark(...)`` (False: it ended before, or never uses it)."""
        line = self.answers.readline()
        if line.startswith(SKIPPED):
            self.skipped = line[len(SKIPPED) :].strip()
        return line.strip() == READY

    def timed(self, loops: int) -> float:
        return float(self.ask(str(loops)))

    def ask(self, request: str) -> str:
        """One request to the revision's process, its one-line answer."""
        try:
            self.requests.write(f"{request}\n")
            self.requests.flush()
        except BrokenPipeError:
            raise _Ended(self.revision) from None
        answer = self.answers.readline()
        if not answer:
            raise _Ended(self.revision)
        return answer.rstrip("\n")

    def finish(self) -> int:
        """Let the test go on (its function's result handed back to it), wait for its end."""
        if self.process.returncode is None:
            with contextlib.suppress(BrokenPipeError, ValueError):
                self.requests.write(f"{END}\n")
                self.requests.flush()
            with contextlib.suppress(BrokenPipeError, ValueError):
                self.requests.close()
            for line in self.answers:
                if line.startswith(SKIPPED):
                    self.skipped = line[len(SKIPPED) :].strip()
            self.answers.close()
            self.process.wait()
        return self.process.returncode

    def failure(self, what: str) -> str:
        self.log.seek(0)
        return f"{OPTION} {self.revision} (the working tree's test on its code): {what}:\n{self.log.read().strip()}"


def _passed_on(config: pytest.Config) -> list[str]:
    """The session's plugins (``-p``), no pytest-xdist workers (an ``-n`` in the ini's addopts
    too), and the options a revision's process times with (the rest of the schedule is decided here)."""
    arguments = list(config.invocation_params.args)
    given = [
        f"-p{argument[2:] or arguments[index + 1]}"
        for index, argument in enumerate(arguments)
        if argument.startswith("-p") and (argument[2:] or index + 1 < len(arguments))
    ]
    if config.pluginmanager.has_plugin("xdist"):
        given += ["-n", "0"]
    if config.getoption("benchmark_timer", None):
        given += ["--benchmark-timer", str(config.getoption("benchmark_timer"))]
    if config.getoption("benchmark_disable_gc", False):
        given.append("--benchmark-disable-gc")
    return given


class Channel:
    """A revision's process's end of the pipe (``REVISION_PIPE``), taken out of the environment so that
    the test's own subprocesses do not inherit it."""

    def __init__(self, variable: str) -> None:
        read, write = (int(fd) for fd in variable.split(","))
        self.requests, self.answers = os.fdopen(read), os.fdopen(write, "w")

    @classmethod
    def from_environment(cls) -> Channel | None:
        variable = os.environ.pop(REVISION_PIPE, None)
        return cls(variable) if variable else None

    def serve(self, call: Callable[[], Any], timer: Callable[[], float], disable_gc: bool) -> None:
        """Answer the session's requests until it says the benchmark is over: the output pickled,
        whether the output is the given one, or the seconds ``loops`` calls take."""
        self._say(READY)
        for line in self.requests:
            request = line.rstrip("\n")
            if request == END:
                return
            if request == OUTPUT:
                self._say(_pickled(call()))
            elif request.startswith(CHECK):
                self._say(_checked(request[len(CHECK) :], call))
            else:
                with quiet_interpreter(disable_gc):
                    seconds = timed_calls(call, int(request), timer)
                self._say(repr(seconds))

    def skipped(self, reason: str) -> None:
        self._say(SKIPPED + " ".join(reason.split()))

    def _say(self, line: str) -> None:
        self.answers.write(line + "\n")
        self.answers.flush()


def _pickled(output: Any) -> str:
    import base64
    import pickle

    try:
        return f"{OUTPUT} {base64.b64encode(pickle.dumps(output)).decode()}"
    except Exception as error:  # whatever pickling raises, the outputs are not compared
        return f"cannot be pickled ({type(error).__name__}: {error})"


def _checked(payload: str, call: Callable[[], Any]) -> str:
    """Whether this revision's output is the pickled one (compared here, with this revision's classes)."""
    import base64
    import pickle

    try:
        expected = pickle.loads(base64.b64decode(payload))
    except Exception as error:  # e.g. a class this revision does not have
        return f"cannot unpickle the first revision's output here ({type(error).__name__}: {error})"
    outcome = resolve_comparator(EXACT).check(expected, call())
    return EQUAL if outcome.equivalent else DIFFERS + " ".join(str(outcome.difference).split())


REFUSED = (
    f"{OPTION} compares benchmark(fn, *args) calls across revisions; {{what}} is not compared across "
    "revisions: run the test without --perflab-rev"
)


class ServingFixture(BenchmarkFixture):
    """The ``benchmark`` fixture in a revision's process: its calls timed as the session asks."""

    def __init__(self, channel: Channel, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._channel = channel

    def __call__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._claim("benchmark(...)")
        import functools
        import inspect

        if inspect.iscoroutinefunction(function):
            raise TypeError(REFUSED.format(what="await benchmark(coroutine_function)"))
        call = functools.partial(function, *args, **kwargs) if args or kwargs else function
        self._channel.serve(call, self._settings.timer, self._settings.disable_gc)
        return call()

    def pedantic(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(REFUSED.format(what="benchmark.pedantic(...)"))

    def compare(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(REFUSED.format(what="benchmark.compare(...)"))
