"""End to end on a real git repository: runs are stored per commit, history shows them, the CI
gate fails on a real regression, and results travel in and out as perflab and pyperf files."""

from __future__ import annotations

import json
import os
import re
import textwrap

import pyperf
import pytest
from support.cli import QUICK, VERDICT, run_perflab
from support.history_shared import BENCH, commit, git, repo  # noqa: F401 - fixtures are found by name
from support.summary_tables import html_rows, markdown_rows, page_text

from perflab.results.fingerprints import machine_fingerprint
from perflab.results.model import RunResult


def test_runs_are_stored_in_the_repository_and_shown_by_commit(repo):
    repo, commits, env = repo
    assert (repo / ".perflab" / "perflab.db").is_file()
    process = run_perflab("history", "bench.py", cwd=repo, env={**env, "COLUMNS": "200"})
    assert process.returncode == 0, process.stderr
    for sha in commits.values():
        assert sha[:8] in process.stdout
    assert "summing / SMALL / builtin_sum — 4 run(s)" in process.stdout
    # The 10x step, 2 runs old, as every output writes a time ratio: new/old as a factor and a direction.
    assert re.search(r"change point: [\d.,]+x slower \[95% CI \d", process.stdout) and "tentative" in process.stdout


def test_check_against_a_branch_fails_on_the_regression_with_a_markdown_summary(repo, tmp_path):
    repo, commits, env = repo
    summary, page = tmp_path / "summary.md", tmp_path / "summary.html"
    process = run_perflab(
        "check", "bench.py", "--against", "main", *VERDICT, "--markdown", summary, "--html", page, cwd=repo, env=env
    )
    assert process.returncode == 1, process.stderr
    assert process.stdout.startswith("### :x: perflab: 1 regression(s), more than 1.05x slower, in `summing`")
    assert f"`main` at {commits['docs'][:8]}, measured now in a worktree, interleaved" in process.stdout
    assert f"working tree at {commits['more'][:8]} (measured now)" in process.stdout
    assert "| SMALL | builtin_sum |" in process.stdout and "**REGRESSION**" in process.stdout
    assert "Paired comparison" in process.stdout
    assert summary.read_text() == process.stdout
    # --html: the same summary as a page
    assert html_rows(page.read_text()) == markdown_rows(summary.read_text()) != []
    assert f"Baseline: main at {commits['docs'][:8]}, measured now" in page_text(page.read_text())


def test_check_against_the_same_code_passes_and_stores_one_run_per_revision(repo):
    repo, commits, env = repo
    process = run_perflab("check", "bench.py", "--against", "HEAD", *QUICK, cwd=repo, env=env)
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stdout.startswith("### :white_check_mark: perflab: no regression (more than 1.05x slower)")
    assert "stored as runs" in process.stderr
    history = run_perflab("history", "bench.py", cwd=repo, env={**env, "COLUMNS": "200"})
    # Both sides are runs of builtin_sum at commit "more": no column is named after a revision.
    assert "summing / SMALL / builtin_sum" in history.stdout and "WORKTREE" not in history.stdout


def test_check_against_a_results_file(repo, tmp_path):
    repo, commits, env = repo
    exported = run_perflab("export", str(tmp_path / "out"), "--run", "1", cwd=repo, env=env)
    assert exported.returncode == 0, exported.stderr
    [baseline] = (tmp_path / "out").glob("summing-1.json")
    assert RunResult.load(baseline).metadata["git"]["commit"] == commits["first"]
    process = run_perflab("check", "bench.py", "--against", str(baseline), *VERDICT, cwd=repo, env=env)
    assert process.returncode == 1 and "**REGRESSION**" in process.stdout
    uncounted = run_perflab(
        "check", "bench.py", "--against", str(baseline), "--metric", "instructions", cwd=repo, env=env
    )
    assert uncounted.returncode == 2 and "has no instruction counts to compare with" in uncounted.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["history", "nothing"], "no stored runs of benchmark 'nothing' (stored: summing)"),
        (["history", "summing", "--case", "HUGE"], "no measurements of summing case 'HUGE'"),
        (["check", "bench.py", "--against", "no-such-branch"], "no such results file, and not a git revision"),
        (["history", "summing", "--db", "absent.db"], "no perflab database"),
    ],
)
def test_bad_requests_are_one_line_errors(repo, args, message):
    repo, commits, env = repo
    process = run_perflab(*args, cwd=repo, env=env)
    assert process.returncode == 2
    assert process.stdout == "" and message in process.stderr and len(process.stderr.strip().splitlines()) == 1


def test_other_machines_are_left_out_unless_asked(repo, tmp_path):
    repo, commits, env = repo
    db = tmp_path / "mixed.db"
    exported = run_perflab("export", str(tmp_path / "out"), "--run", "1", cwd=repo, env=env)
    assert exported.returncode == 0
    data = json.loads((tmp_path / "out" / "summing-1.json").read_text())
    data["metadata"]["machine"]["cpu_model"] = "Some Other CPU"
    (tmp_path / "other.json").write_text(json.dumps(data))
    for path in (tmp_path / "out" / "summing-1.json", tmp_path / "other.json"):
        assert run_perflab("import", str(path), "--db", str(db)).returncode == 0
    same = run_perflab("history", "summing", "--db", str(db))
    assert "— 1 run(s)" in same.stdout and "1 run(s) on other machines" in same.stdout
    every = run_perflab("history", "summing", "--db", str(db), "--any-machine")
    assert "— 2 run(s)" in every.stdout
    other = machine_fingerprint(data["metadata"]["machine"])
    chosen = run_perflab("history", "summing", "--db", str(db), "--machine", other[:6])
    assert chosen.returncode == 0 and f"Some Other CPU (machine {other[:8]})" in chosen.stdout
    assert "— 1 run(s)" in chosen.stdout and "other machines" not in chosen.stdout
    by_host = run_perflab("history", "summing", "--db", str(db), "--machine", data["metadata"]["machine"]["hostname"])
    assert by_host.returncode == 2 and "names several machines" in by_host.stderr and other in by_host.stderr


def test_pyperf_files_round_trip_through_the_store(repo, tmp_path):
    repo, commits, env = repo
    run = run_perflab("run", "bench.py", *QUICK, "--pyperf", str(tmp_path / "pyperf"), "--no-store", cwd=repo, env=env)
    assert run.returncode == 0 and "stored as run" not in run.stderr
    original = pyperf.BenchmarkSuite.load(str(tmp_path / "pyperf" / "builtin_sum.json"))
    db = tmp_path / "pyperf.db"
    imported = run_perflab(
        "import", str(tmp_path / "pyperf" / "builtin_sum.json"), "--benchmark", "summing", "--db", str(db)
    )
    assert imported.returncode == 0, imported.stderr
    exported = run_perflab("export", str(tmp_path / "back"), "--pyperf", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    back = pyperf.BenchmarkSuite.load(str(tmp_path / "back" / "summing-1" / "builtin_sum.json"))
    assert [b.get_name() for b in back] == [b.get_name() for b in original] == ["SMALL"]
    assert back.get_benchmarks()[0].get_values() == original.get_benchmarks()[0].get_values()


def test_import_refuses_a_file_that_is_not_results(tmp_path):
    (tmp_path / "notes.json").write_text('{"hello": 1}')
    process = run_perflab("import", str(tmp_path / "notes.json"), "--db", str(tmp_path / "x.db"))
    assert process.returncode == 2 and "neither a perflab results file" in process.stderr
    assert not (tmp_path / "x.db").exists()


def test_check_against_a_revision_reports_what_is_new_and_refuses_a_missing_benchmark(tmp_path):
    from support.git_repos import git_repository

    project = tmp_path / "project"
    git = git_repository(project)
    (project / "README").write_text("no benchmark yet\n")
    git("add", "README")
    git("commit", "-q", "-m", "before the benchmark")
    (project / "bench.py").write_text(textwrap.dedent(BENCH.format(work=200, message="first")))
    git("add", "bench.py")
    git("commit", "-q", "-m", "benchmark")
    # Uncommitted: a new case and a new contender that the committed revision does not declare.
    (project / "bench.py").write_text(
        textwrap.dedent(BENCH.format(work=200, message="first"))
        + textwrap.dedent("""
        @bench.case
        def LARGE():
            return 20 * WORK


        @bench.contender
        def loop_sum(n):
            total = 0
            for i in range(n):
                total += i
            return total
        """)
    )
    env = {**os.environ, "PERFLAB_DB": str(tmp_path / "perflab.db")}
    process = run_perflab("check", "bench.py", "--against", "HEAD", *QUICK, cwd=project, env=env)
    assert process.returncode == 0, process.stdout + process.stderr
    assert "| SMALL | builtin_sum |" in process.stdout
    assert "LARGE/*" in process.stdout and "*/loop_sum" in process.stdout
    assert "not declared at HEAD" in process.stdout
    absent = run_perflab("check", "bench.py", "--against", "HEAD~1", *QUICK, cwd=project, env=env)
    assert absent.returncode == 2 and absent.stdout == ""
    assert "--against HEAD~1: bench.py does not exist at HEAD~1, where check reads the baseline's benchmark; " in (
        absent.stderr
    )
    assert "give --benchmark-from-worktree to run this file on HEAD~1's code" in absent.stderr
    assert len(absent.stderr.strip().splitlines()) == 1
