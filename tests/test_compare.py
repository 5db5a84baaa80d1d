"""perflab compare end to end: contenders with fuzzing, git revisions, interpreters, bad input."""

import glob
import shutil
import subprocess
import sys

import pytest
from conftest import QUICK, git_repository, load_json, run_perflab

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
        "compare", "json_dumps", "--contenders", "orjson", "--case", "NESTED", *QUICK, "--markdown", summary
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "faster" in result.stdout
    text = summary.read_text()
    assert "| NESTED | orjson |" in text and "faster" in text


SLOW_LIB = "def work(xs):\n    return sum(x * x for x in xs) + {extra}\n"
REPO_BENCH = """
import perflab
import mylib

bench = perflab.Benchmark("squares")

@bench.case(items=500)
def K():
    return list(range(500))

@bench.contender
def lib(xs):
    return mylib.work(xs)
"""


@pytest.fixture
def repository(tmp_path):
    """A real git repository with three commits: v1, the same code again, and a 3x slower version."""
    repo = tmp_path / "repo"
    git = git_repository(repo)
    (repo / "bench.py").write_text(REPO_BENCH)
    (repo / "mylib.py").write_text(SLOW_LIB.format(extra="0"))
    git("add", "-A")
    git("commit", "-qm", "v1")
    (repo / "README").write_text("docs only\n")
    git("add", "-A")
    git("commit", "-qm", "docs")
    (repo / "mylib.py").write_text(SLOW_LIB.format(extra="sum(x * x for x in xs) * 0 + sum(x * x for x in xs) * 0"))
    git("commit", "-qam", "slower")
    return repo


def test_revisions_each_in_their_own_worktree(repository, tmp_path):
    out = tmp_path / "r.json"
    result = run_perflab(
        "compare", repository / "bench.py", "--rev", "HEAD~2", "--rev", "HEAD~1", "--rev", "HEAD", *QUICK, "--json", out
    )
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = {c["contender"]: c["verdict"] for c in load_json(out)["comparisons"]}
    assert verdicts["HEAD"] == "slower"
    assert load_json(out)["sides"]["HEAD"]["file"] != str(repository / "bench.py")
    listing = subprocess.run(["git", "-C", repository, "worktree", "list"], capture_output=True, text=True)
    assert listing.stdout.count("\n") == 1  # every worktree was removed


def test_uncommitted_changes_are_the_worktree_revision(repository, tmp_path):
    (repository / "mylib.py").write_text(SLOW_LIB.format(extra="0"))  # undo the slowdown, uncommitted
    out = tmp_path / "r.json"
    result = run_perflab(
        "compare", repository / "bench.py", "--rev", "HEAD", "--rev", "WORKTREE", *QUICK, "--json", out
    )
    assert result.returncode == 0, result.stderr
    assert load_json(out)["comparisons"][0]["verdict"] == "faster"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rev", "HEAD", "--rev", "no-such-branch"], "revision 'no-such-branch' does not exist"),
        (["--rev", "HEAD"], "--rev needs two or more revisions"),
        (["--python", "python3.11", "--python", "python9.99"], "--python python9.99: interpreter not found"),
    ],
)
def test_bad_sides_are_one_line_errors(repository, args, message):
    result = run_perflab("compare", repository / "bench.py", *args)
    assert result.returncode == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_revision_without_the_benchmark_file(repository):
    (repository / "other.py").write_text(REPO_BENCH)
    subprocess.run(["git", "-C", repository, "add", "other.py"], check=True)
    subprocess.run(["git", "-C", repository, "commit", "-qm", "other"], check=True)
    result = run_perflab("compare", repository / "other.py", "--rev", "HEAD~1", "--rev", "HEAD")
    assert result.returncode == 2 and "other.py does not exist at revision 'HEAD~1'" in result.stderr


def test_contenders_without_a_common_case(bench_file, repository):
    (repository / "bench.py").write_text(REPO_BENCH.replace("def K", "def RENAMED"))
    result = run_perflab("compare", repository / "bench.py", "--rev", "HEAD", "--rev", "WORKTREE")
    assert result.returncode == 2 and "no case in common" in result.stderr


def _interpreters():
    """Two different CPython versions on this machine (pyenv's real binaries, or on PATH)."""
    found = {}
    candidates = [shutil.which(f"python3.{minor}") for minor in range(8, 15)]
    candidates += sorted(glob.glob("/root/.pyenv/versions/3.*/bin/python3.[0-9]"))
    candidates += sorted(glob.glob("/root/.pyenv/versions/3.*/bin/python3.[0-9][0-9]"))
    for path in filter(None, candidates):
        probe = subprocess.run(
            [path, "-c", "import sys; print(sys.version_info[:2] >= (3, 8))"], capture_output=True, text=True
        )
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            version = subprocess.run(
                [path, "-c", "import sys; print(sys.version[:4])"], capture_output=True, text=True
            ).stdout.strip()
            found.setdefault(version, path)
    others = [path for version, path in sorted(found.items()) if path != sys.executable]
    return [sys.executable] + others[:1]


@pytest.mark.skipif(len(_interpreters()) < 2, reason="needs a second CPython interpreter")
def test_the_same_benchmark_under_two_interpreters(repository, tmp_path):
    out = tmp_path / "r.json"
    first, second = _interpreters()
    result = run_perflab(
        "compare", repository / "bench.py", "--python", first, "--python", second, *QUICK, "--json", out
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data = load_json(out)
    versions = {name: info["python"]["version"] for name, info in data["metadata"]["sides"].items()}
    assert len(set(versions.values())) == 2
    assert all(e["status"] in ("reference", "equivalent") for e in data["equivalence"])
    assert data["comparisons"][0]["comparison"]["pairs"] >= 2
