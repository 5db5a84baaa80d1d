"""perflab compare end to end: contenders with fuzzing, git revisions, interpreters, bad input."""

import glob
import shutil
import subprocess
import sys

import pytest
from support.cli import VERDICT, load_json, run_perflab
from support.compare_shared import REPO_BENCH, SLOW_LIB, repository  # noqa: F401 - fixtures are found by name


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


@pytest.mark.skipif(len(_interpreters()) < 2, reason="needs a second CPython interpreter")
def test_the_same_benchmark_under_two_interpreters(repository, tmp_path):
    out = tmp_path / "r.json"
    first, second = _interpreters()
    result = run_perflab(
        "compare",
        repository / "bench.py",
        "--python",
        first,
        "--python",
        second,
        *VERDICT,
        "--json",
        out,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data = load_json(out)
    versions = {name: info["python"]["version"] for name, info in data["metadata"]["sides"].items()}
    assert len(set(versions.values())) == 2
    assert all(e["status"] in ("reference", "equivalent") for e in data["equivalence"])
    assert data["comparisons"][0]["comparison"]["pairs"] >= 2
