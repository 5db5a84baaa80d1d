"""The results store: round trips, where it lives, and refusing files it must not touch."""

from __future__ import annotations

from support.cli import run_perflab
from support.store_shared import digest, foreign_sqlite


def test_the_command_line_refuses_a_bad_database_in_one_line_before_measuring(tmp_path, bench_file):
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
    [line] = process.stderr.strip().splitlines()
    assert line.startswith(f"perflab: error: --db {path}: not a perflab database"), line
    assert "rounds" not in process.stdout and not list(tmp_path.glob("perflab-unsaved-*.json"))  # nothing measured
    assert digest(path) == before
    history = run_perflab("history", "tiny", "--db", str(path))
    assert history.returncode == 2 and len(history.stderr.strip().splitlines()) == 1
