"""The results store: round trips, where it lives, and refusing files it must not touch."""

from __future__ import annotations

from support.cli import run_perflab
from support.store_shared import digest, foreign_sqlite

from perflab.results.model import RunResult


def test_the_command_line_refuses_a_bad_database_in_one_line_and_keeps_the_run(tmp_path, bench_file):
    path = tmp_path / "perflab.db"
    foreign_sqlite(path)
    before = digest(path)
    bench = bench_file("""
        import perflab
        bench = perflab.Benchmark("tiny")
        @bench.case
        def ONE():
            return 3
        @bench.contender
        def square(x):
            return x * x
    """)
    process = run_perflab("run", str(bench), *["--max-time", "1", "--precision", "50"], "--db", str(path), cwd=tmp_path)
    assert process.returncode == 2
    [line] = [said for said in process.stderr.splitlines() if "error" in said]
    assert "not a perflab database" in line and "kept in" in line
    kept = next(tmp_path.glob("perflab-unsaved-*.json"))
    assert RunResult.load(kept).benchmark == "tiny"
    assert digest(path) == before
    history = run_perflab("history", "tiny", "--db", str(path))
    assert history.returncode == 2 and len(history.stderr.strip().splitlines()) == 1
