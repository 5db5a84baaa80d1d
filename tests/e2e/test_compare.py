"""perflab compare end to end: contenders with fuzzing, git revisions, interpreters, bad input."""

import subprocess

import pytest
from support.cli import QUICK, VERDICT, load_json, run_perflab
from support.compare_shared import REPO_BENCH, SLOW_LIB, repository  # noqa: F401 - fixtures are found by name

ID_CACHE = """
import json
import perflab

bench = perflab.Benchmark("dumps", compare="json")

@bench.case
def SMALL():
    return {"a": [1, 2, 3], "b": "text"}

@bench.contender
def stdlib(obj):
    return json.dumps(obj)

_cache = {}

@bench.contender
def cached(obj):
    # "optimized": remembers the output per object identity; stale after a mutation
    key = id(obj)
    if key not in _cache:
        _cache[key] = json.dumps(obj)
    return _cache[key]
"""


def test_fuzzing_catches_a_cache_keyed_by_identity(bench_file, tmp_path):
    out, summary = tmp_path / "r.json", tmp_path / "s.md"
    result = run_perflab("compare", bench_file(ID_CACHE), *QUICK, "--json", out, "--markdown", summary)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NOT EQUIVALENT (fuzzing)" in result.stdout
    fuzzed = [e for e in load_json(out)["equivalence"] if e["case"] == "fuzzing"]
    assert fuzzed[0]["contender"] == "cached" and fuzzed[0]["status"] == "not equivalent"
    assert "counterexample" in fuzzed[0]["difference"]
    assert not load_json(out)["comparisons"][0]["valid"]  # passes the declared case, still invalid
    assert "| **invalid** (not equivalent) |" in summary.read_text()


def test_contenders_compare_with_verdicts_and_markdown(tmp_path):
    summary = tmp_path / "s.md"
    result = run_perflab(
        "compare",
        "json_dumps",
        "--contender",
        "orjson",
        "--case",
        "NESTED",
        *VERDICT,
        "--markdown",
        summary,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "faster" in result.stdout
    text = summary.read_text()
    assert "| NESTED | orjson |" in text and "faster" in text


def test_revisions_each_in_their_own_worktree(repository, tmp_path):
    out = tmp_path / "r.json"
    result = run_perflab(
        "compare",
        repository / "bench.py",
        "--rev",
        "HEAD~2",
        "--rev",
        "HEAD~1",
        "--rev",
        "HEAD",
        *VERDICT,
        "--json",
        out,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = {c["contender"]: c["verdict"] for c in load_json(out)["comparisons"]}
    assert verdicts["HEAD"] == "slower"
    assert load_json(out)["sides"]["HEAD"]["file"] == str((repository / "bench.py").resolve())  # the user's
    listing = subprocess.run(["git", "-C", repository, "worktree", "list"], capture_output=True, text=True)
    assert listing.stdout.count("\n") == 1  # every worktree was removed


def test_uncommitted_changes_are_the_worktree_revision(repository, tmp_path):
    (repository / "mylib.py").write_text(SLOW_LIB.format(extra="0"))  # undo the slowdown, uncommitted
    out = tmp_path / "r.json"
    result = run_perflab(
        "compare",
        repository / "bench.py",
        "--rev",
        "HEAD",
        "--rev",
        "WORKTREE",
        *VERDICT,
        "--json",
        out,
    )
    assert result.returncode == 0, result.stderr
    assert load_json(out)["comparisons"][0]["verdict"] == "faster"


def test_a_revision_without_the_benchmark_file_read_from_each_revision(repository):
    (repository / "other.py").write_text(REPO_BENCH)
    subprocess.run(["git", "-C", repository, "add", "other.py"], check=True)
    subprocess.run(["git", "-C", repository, "commit", "-qm", "other"], check=True)
    result = run_perflab(
        "compare", repository / "other.py", "--rev", "HEAD~1", "--rev", "HEAD", "--benchmark-from-revision"
    )
    assert result.returncode == 2 and "other.py does not exist at revision 'HEAD~1'" in result.stderr


def test_contenders_without_a_common_case(bench_file, repository):
    (repository / "bench.py").write_text(REPO_BENCH.replace("def K", "def RENAMED"))
    revisions = ["--rev", "HEAD", "--rev", "WORKTREE", "--benchmark-from-revision"]  # each side's own file
    result = run_perflab("compare", repository / "bench.py", *revisions)
    assert result.returncode == 2 and "no case in common" in result.stderr


@pytest.mark.parametrize(
    "options, message",
    [
        (["--build"], "--build, --build-command and --build-spread build git revisions: use them with --rev"),
        (["--rev", "HEAD", "--rev", "HEAD~1", "--no-build", "--build-command", "make"], "with --no-build"),
    ],
)
def test_build_options_that_cannot_apply_are_one_line(repository, options, message):
    result = run_perflab("compare", repository / "bench.py", *options)
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1
