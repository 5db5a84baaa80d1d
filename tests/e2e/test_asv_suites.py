"""asv suites, unchanged, through the real command line: ``perflab run`` on a suite using every
feature (tests/data/asv_suite), ``compare --rev``, ``check`` and ``bisect`` on a git repository
whose newest revision is slower, and the one-line errors. (``submit``: tests/external/test_jobs.py.)"""

import shutil
import subprocess

import pytest
from support.cli import QUICK, VERDICT, load_json, run_perflab
from support.git_repos import asv_project
from support.paths import TESTS

SUITE = TESTS / "data" / "asv_suite"
SKIPPED = "suite.TimeSuite.time_upper(2, 'b')"


def test_run_times_every_case_named_as_asv_names_them_and_says_what_it_skipped(tmp_path):
    shutil.copytree(SUITE, tmp_path / "project")
    out = tmp_path / "r.json"
    result = run_perflab("run", tmp_path / "project" / "asv.conf.json", *QUICK, "--json", out, "--db", tmp_path / "db")
    # asv's skip (NotImplementedError in setup) is listed with its reason and does not fail the run
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{SKIPPED}/asv: skipped: setup raised NotImplementedError('n=2 with b')" in " ".join(result.stdout.split())
    data = load_json(out)
    cells = {cell["case"]: cell for cell in data["cells"]}
    assert len(cells) == 15 and "sub.nested.TimeNested.time_join(2, 'x' (1))" in cells
    assert cells[SKIPPED]["skipped"]
    measured = [case for case, cell in cells.items() if cell["estimates"]]
    assert sorted(measured) == sorted(set(cells) - {SKIPPED})  # timeraw_ and number=1 included
    assert "not timed (asv's mem_, peakmem_ and track_ record sizes and numbers): suite.mem_list" in result.stderr
    assert "suite.track_answer" in data["metadata"]["benchmark"]["notes"][0]


def test_the_bench_filter_selects_cases_as_asv_b_does(tmp_path):
    out = tmp_path / "r.json"
    result = run_perflab(
        "run", SUITE / "benchmarks", "-b", r"time_upper\(1", "-b", "Popping", *QUICK, "--json", out, "--no-store"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(cell["case"] for cell in load_json(out)["cells"]) == [
        "suite.Popping.time_pop",
        "suite.TimeSuite.time_upper(1, 'a')",
        "suite.TimeSuite.time_upper(1, 'b')",
    ]
    nothing = run_perflab("run", SUITE / "benchmarks", "-b", "nothing", *QUICK, "--no-store")
    assert nothing.returncode == 2
    assert nothing.stderr.splitlines()[-1].startswith(
        f"perflab: error: {SUITE / 'benchmarks'}: no case matches -b 'nothing'"
    )


@pytest.fixture
def asv_repository(tmp_path):
    return asv_project(tmp_path / "repo")


def test_compare_revisions_gives_a_verdict_on_an_asv_benchmark(asv_repository, tmp_path):
    out = tmp_path / "r.json"
    revisions = ["--rev", "HEAD~1", "--rev", "HEAD", "-b", "time_work"]
    timing = [*VERDICT, "--json", out, "--no-store"]
    # cwd: the project importable, as asv's suites expect it installed
    result = run_perflab("compare", asv_repository / "asv.conf.json", *revisions, *timing, cwd=asv_repository)
    assert result.returncode == 0, result.stdout + result.stderr
    comparisons = load_json(out)["comparisons"]
    assert [(c["case"], c["contender"], c["verdict"]) for c in comparisons] == [
        ("bench_work.TimeWork.time_work(100)", "HEAD", "slower")
    ]
    listing = subprocess.run(["git", "-C", asv_repository, "worktree", "list"], capture_output=True, text=True)
    assert listing.stdout.count("\n") == 1  # every worktree was removed


def test_check_fails_on_the_slower_revision_of_an_asv_suite(asv_repository):
    result = run_perflab(
        "check",
        asv_repository,
        "--against",
        "HEAD~1",
        "-b",
        "time_work",
        *VERDICT,
        "--confirm",  # the 3x slowdown is found at once: measuring it again only costs
        "0",
        "--no-store",
        cwd=asv_repository,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "bench_work.TimeWork.time_work(100)" in result.stdout + result.stderr


def test_bisect_finds_the_commit_that_slowed_an_asv_suite_given_as_its_project(asv_repository, tmp_path):
    out = tmp_path / "bisect.json"
    timing = [*VERDICT, "--json", out]
    result = run_perflab("bisect", "--good", "HEAD~2", "--bad", "HEAD", asv_repository, *timing, cwd=asv_repository)
    assert result.returncode == 0, result.stdout + result.stderr
    outcome = load_json(out)
    assert (outcome["case"], outcome["subject"]) == ("bench_work.TimeWork.time_work(100)", "slower")


def test_an_asv_conf_json_with_a_missing_benchmark_dir_is_one_line(tmp_path):
    (tmp_path / "asv.conf.json").write_text('{"benchmark_dir": "nowhere"}')
    result = run_perflab("run", tmp_path / "asv.conf.json", "--no-store")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("is not a directory") and result.stderr.count("\n") == 1


def test_asv_results_import_into_the_history_of_the_suite(tmp_path):
    results = TESTS / "data" / "asv_results" / "laptop" / "0123abcd-existing-py_usr_bin_python3.json"
    imported = run_perflab("import", results, "--db", tmp_path / "db")
    assert imported.returncode == 0 and "stored as run 1 (benchmarks)" in imported.stderr, imported.stderr
    history = run_perflab("history", "benchmarks", "--db", tmp_path / "db")
    assert history.returncode == 0, history.stderr
    assert "benchmarks / suite.TimeSuite.time_upper(1, 'a') / asv" in history.stdout
    assert "0123abcd" in history.stdout and "150 ns" in history.stdout
