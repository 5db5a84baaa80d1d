"""Every verb of ``perflab --help``, as users type it: only its required arguments, every option at
its default, in a real subprocess, on small inputs built here. Each must exit with its documented
code, say one meaningful line, and print no traceback (an option whose default is None once
crashed ``perflab profile --native-command CMD`` while every test passed explicit options).

The timing verbs keep their default budgets (a minute for run, compare and check): on a quiet
machine the contenders below converge in a few rounds, on a loaded one they stop at the budget. So the verbs are started together, in threads, before the module's first test, and each test
waits for its own (the verbs that read the store `run` makes start once it has).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from support.cli import run_perflab
from support.git_repos import git_repository
from support.mcp_client import with_server
from support.postgres_server import BIN_DIRS
from support.served_web import free_port

# Contenders whose calls last a fixed time on the clock whatever the CPU's speed, so that their
# ratio converges in the default minimum of rounds on a quiet machine. The timing verbs' contenders
# sleep (a minute of timing each, taking no CPU from a shared machine); the profiled ones spin (a
# CPU profile samples running code only). The fuzzer's lists change the result, not the duration.
BENCH = """
import time

import perflab

bench = perflab.Benchmark("hold", compare="exact")
SECONDS = {seconds}

{hold}

@bench.case
def TEN():
    return list(range(10))


@bench.contender
def reference(xs):
    return hold(xs)


@bench.contender
def again(xs):
    return hold(xs)
"""
SLEEP = """
def hold(xs):
    time.sleep(SECONDS)
    return sum(xs)
"""
SPIN = """
def hold(xs):
    end = time.perf_counter() + SECONDS
    while time.perf_counter() < end:
        pass
    return sum(xs)
"""
FAST, SLOW = 0.0002, 0.001
SAVED_PROFILES = ("first.profile.json", "second.profile.json")
# A program whose calls ``perflab isolate`` records.
PROGRAM = """
import json

for n in range(5):
    json.dumps({"n": n})
"""


def bench_source(seconds: float = FAST, hold: str = SLEEP) -> str:
    return BENCH.replace("{seconds}", repr(seconds)).replace("{hold}", hold)


def verbs_listed() -> list[str]:
    """The verbs ``perflab --help`` lists, in its order."""
    done = run_perflab("--help")
    commands = done.stdout.partition("COMMAND\n")[2]
    return re.findall(r"^    (\w+) ", commands, flags=re.MULTILINE)


def clean(done: subprocess.CompletedProcess, code: int, line: str) -> None:
    """Exit code ``code``, ``line`` in the output, and no traceback."""
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    assert done.returncode == code, output
    assert line in output, output


def one_line_error(done: subprocess.CompletedProcess, message: str) -> None:
    """Bad input or an unreachable service: exit 2, one line on standard error."""
    clean(done, 2, message)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


# ---- the inputs, and the slow verbs started together -------------------------------------------


class Lab:
    """A scratch directory with the inputs, and the slow verbs started in the background."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = root / "store" / "perflab.db"  # the store made by `run` (PERFLAB_DB)
        self.store.parent.mkdir()
        (root / "bench.py").write_text(bench_source())
        (root / "profiled.py").write_text(bench_source(hold=SPIN))
        self.repo = self.git_repository()
        self.pool = ThreadPoolExecutor(max_workers=16)
        self.started: dict[str, Future] = {}

    def git_repository(self) -> Path:
        """Two commits of the benchmark, the second five times slower (for bisect), and a
        working tree equal to the last (for check)."""
        repo = self.root / "repo"
        git = git_repository(repo)
        (repo / "bench.py").write_text(bench_source(FAST))
        git("add", "bench.py")
        git("commit", "-qm", "fast")
        (repo / "bench.py").write_text(bench_source(SLOW))
        git("commit", "-qam", "slow")
        return repo

    def start(
        self, name: str, *args: str | Path, cwd: Path | None = None, db: str | Path | None = None, after: str = ""
    ) -> None:
        """Start ``perflab *args`` on the store ``db`` (default: a new one), once ``after`` has ended."""
        env = {"PERFLAB_DB": str(db or self.root / f"{name}.db")}
        before = self.started.get(after)

        def verb() -> subprocess.CompletedProcess:
            if before is not None:
                before.result()
            return run_perflab(*args, timeout=300, env=env, cwd=cwd or self.root)

        self.started[name] = self.pool.submit(verb)

    def result(self, name: str) -> subprocess.CompletedProcess:
        return self.started[name].result()


def perf_works() -> bool:
    if shutil.which("perf") is None:
        return False
    done = subprocess.run(["perf", "stat", "-e", "cpu-clock", "true"], capture_output=True)
    return done.returncode == 0


@pytest.fixture(scope="module", autouse=True)
def lab(tmp_path_factory) -> Iterator[Lab]:
    lab = Lab(tmp_path_factory.mktemp("verbs"))
    lab.start("run", "run", "bench.py", db=lab.store)
    lab.start("compare", "compare", "bench.py")
    lab.start("check", "check", "bench.py", "--against", "HEAD", cwd=lab.repo)
    lab.start("qualify", "qualify", "bench.py")
    # The benchmark file is the code that gets slower here: each commit's own copy of it.
    bisecting = ["bench.py", "--good", "HEAD~1", "--bad", "HEAD", "--benchmark-from-revision"]
    lab.start("bisect", "bisect", *bisecting, cwd=lab.repo)
    # demo's default trio takes minutes on a loaded machine; one named built-in, every option at its default.
    lab.start("demo", "demo", "http_parse")
    lab.start("profile", "profile", "profiled.py")
    # Two saved profiles of one contender, for merge and diff (their making is not under test: small budgets).
    for saved in SAVED_PROFILES:
        lab.start(saved, "profile", "profiled.py", "--samples", "100", "--runs", "2", "--json", saved)
    if perf_works():
        (lab.root / "nums.txt").write_text("\n".join(str((n * 7919) % 10007) for n in range(10007)))
        lab.start("native", "profile", "--native-command", "sort -n nums.txt")
    # The quick verbs, meanwhile.
    lab.start("list", "list")
    (lab.root / "program.py").write_text(PROGRAM)
    lab.start("isolate", "isolate", "--function", "json:dumps", "--", sys.executable, "program.py")
    unreachable = f"postgresql://perflab@127.0.0.1:{free_port()}/perflab"  # no PostgreSQL listens there
    lab.start("submit", "submit", "bench.py", cwd=lab.repo, db=unreachable)
    lab.start("worker", "worker", db=unreachable)
    lab.start("jobs", "jobs", db=unreachable)
    # The verbs that read the store `run` made, once it has.
    lab.start("history", "history", "bench.py", db=lab.store, after="run")
    lab.start("export", "export", "exported", db=lab.store, after="run")
    lab.start("import", "import", lab.store, after="run")  # into a new store
    lab.start("publish", "publish", "--out", "site", db=lab.store, after="run")
    yield lab
    lab.pool.shutdown(wait=True)


def test_every_verb_of_the_help_has_a_test_here():
    tested = {name.removeprefix("test_").partition("_")[0] for name in globals() if name.startswith("test_")}
    listed = verbs_listed()
    assert len(listed) >= 18, listed  # the parsing of the help itself
    assert set(listed) <= tested, f"verbs without a test at their defaults: {sorted(set(listed) - tested)}"


# ---- other verbs -------------------------------------------------------------------------------


def test_cache(lab):
    clean(run_perflab("cache", env={"PERFLAB_CACHE": str(lab.root / "cache")}), 0, "0 builds")


def test_list(lab):
    clean(lab.result("list"), 0, "json_dumps")


def test_isolate(lab):
    clean(lab.result("isolate"), 0, "benchmark file written to bench_json_dumps.py")
    assert (lab.root / "bench_json_dumps.py").is_file()


def test_mcp(lab):
    """The server a host starts as ``perflab mcp``, through the MCP SDK's client over stdio."""

    async def talk(client):
        return [tool.name for tool in (await client.list_tools()).tools]

    assert with_server(lab.root, talk) == ["run", "compare", "profile", "check", "isolate", "verify_candidate"]


# ---- the team queue: PostgreSQL ----------------------------------------------------------------


def test_submit_without_postgresql_is_one_line(lab):
    one_line_error(lab.result("submit"), "cannot connect to PostgreSQL")


def test_worker_without_postgresql_is_one_line(lab):
    one_line_error(lab.result("worker"), "cannot connect to PostgreSQL")


def test_jobs_without_postgresql_is_one_line(lab):
    one_line_error(lab.result("jobs"), "cannot connect to PostgreSQL")


needs_postgresql = pytest.mark.skipif(not BIN_DIRS, reason="PostgreSQL is not installed (apt-get install postgresql)")


@needs_postgresql
def test_submit_then_jobs_with_postgresql(lab, postgres_url):
    env = {"PERFLAB_DB": postgres_url}
    clean(run_perflab("submit", "bench.py", env=env, cwd=lab.repo), 0, "queued for workers labelled")
    clean(run_perflab("jobs", env=env), 0, "bench.py")


# ---- timing ----------------------------------------------------------------------------------


def test_run(lab):
    done = lab.result("run")
    clean(done, 0, "stored as run 1")
    assert "TEN" in done.stdout and "again" in done.stdout


def test_compare(lab):
    done = lab.result("compare")
    clean(done, 0, "generated inputs")  # the fuzzing note: fuzzing is on by default
    assert "again" in done.stdout


def test_check(lab):
    clean(lab.result("check"), 0, "HEAD")


def test_qualify(lab):
    clean(lab.result("qualify"), 0, "what this runner can detect: hold")


def test_bisect(lab):
    done = lab.result("bisect")
    clean(done, 0, "first bad commit")
    assert "slow" in done.stdout


def test_demo(lab):
    done = lab.result("demo")
    clean(done, 0, "report written to")
    assert (lab.root / "perflab-demo.html").is_file()


# ---- the results store -------------------------------------------------------------------------


def test_history(lab):
    clean(lab.result("history"), 0, "hold / TEN / reference")


def test_export(lab):
    clean(lab.result("export"), 0, "run 1 written to")
    assert list((lab.root / "exported").glob("hold-*.json"))


def test_import(lab):
    clean(lab.result("import"), 0, "1 run")


def test_publish(lab):
    clean(lab.result("publish"), 0, "site written to")
    assert (lab.root / "site" / "index.html").is_file()


def test_serve(lab):
    clean(lab.result("run"), 0, "stored as run 1")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "perflab", "serve", "--port", str(port)],
        env={**os.environ, "PERFLAB_DB": str(lab.store)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        page = fetch(f"http://127.0.0.1:{port}/", until=time.monotonic() + 60)
        assert "hold" in page
    finally:
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=30)
    assert "Traceback" not in out + err, err
    assert f"at http://127.0.0.1:{port}/" in err


def fetch(url: str, until: float) -> str:
    """The page at ``url``, once the server listens."""
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.read().decode()
        except OSError:
            if time.monotonic() > until:
                raise
            time.sleep(0.2)


# ---- profiles ----------------------------------------------------------------------------------


def test_profile(lab):
    clean(lab.result("profile"), 0, "hold")


@pytest.mark.skipif(not perf_works(), reason="Linux perf is missing or not permitted here")
def test_profile_of_a_native_command(lab):
    clean(lab.result("native"), 0, "sort")


def saved_profiles(lab: Lab) -> list[str]:
    for saved in SAVED_PROFILES:
        clean(lab.result(saved), 0, "written to")
    return list(SAVED_PROFILES)


def test_merge(lab):
    clean(run_perflab("merge", *saved_profiles(lab), cwd=lab.root), 0, "hold")


def test_diff(lab):
    clean(run_perflab("diff", *saved_profiles(lab), cwd=lab.root), 0, "hold")
