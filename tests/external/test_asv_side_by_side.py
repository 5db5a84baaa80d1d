"""asv suites side by side with asv itself (pip install asv; PyPI): the benchmark names and
parameter combinations perflab makes cases of are the ones asv_runner discovers and asv's ``-b``
selects from, on perflab's feature suite (tests/data/asv_suite) and on a real third-party suite,
asv's own (its sdist ships benchmarks/ and a commented asv.conf.json); that suite runs unchanged;
and asv's own results of the feature suite import under the same names."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest
from support.cli import QUICK, load_json, run_perflab
from support.git_repos import git_repository
from support.paths import TESTS

from perflab.results.files import load_file

SUITE = TESTS / "data" / "asv_suite"


def asv_names(directory) -> list[str]:
    """The timed benchmarks asv_runner discovers in ``directory`` (a fresh process, as asv runs
    it), one name per parameter combination as asv.benchmarks.Benchmarks builds them for ``-b``."""
    pytest.importorskip("asv_runner")
    program = (
        "import json, sys\n"
        "from asv_runner.discovery import disc_benchmarks\n"
        "from asv_runner._aux import update_sys_path\n"
        "update_sys_path(sys.argv[1])\n"
        "print(json.dumps([[b.name, b.type, b.params] for b in disc_benchmarks(sys.argv[1])]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program, str(directory)], capture_output=True, text=True, check=True)
    names = []
    for name, kind, params in json.loads(done.stdout):
        if kind != "time":  # timeraw_ benchmarks are of type "time" too; mem_, peakmem_, track_ are not timed
            continue
        if params:
            names += [f"{name}({', '.join(combination)})" for combination in itertools.product(*params)]
        else:
            names.append(name)
    return names


def perflab_names(directory) -> list[str]:
    from perflab.bench.loading import load_benchmark

    return list(load_benchmark(directory).cases)


def test_the_feature_suite_has_asvs_names_and_combinations():
    assert sorted(perflab_names(SUITE / "benchmarks")) == sorted(asv_names(SUITE / "benchmarks"))


@pytest.fixture(scope="module")
def asv_sdist(tmp_path_factory):
    """asv's own source distribution, unpacked: its benchmarks/ and asv.conf.json."""
    pytest.importorskip("asv")
    from importlib.metadata import version

    where = tmp_path_factory.mktemp("asv_sdist")
    download = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            f"asv=={version('asv')}",
            "-d",
            where,
        ],
        capture_output=True,
        text=True,
    )
    if download.returncode != 0:
        pytest.skip(f"cannot download asv's sdist from PyPI: {download.stderr.strip()[-200:]}")
    archive = next(where.glob("asv-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(where, filter="data")
    return next(path for path in where.iterdir() if path.is_dir())


def test_asvs_own_suite_runs_unchanged_with_asvs_names(asv_sdist, tmp_path):
    names = asv_names(asv_sdist / "benchmarks")
    assert names and sorted(perflab_names(asv_sdist / "benchmarks")) == sorted(names)
    out = tmp_path / "r.json"
    result = run_perflab("run", asv_sdist / "asv.conf.json", *QUICK, "--json", out, "--no-store")
    assert result.returncode == 0, result.stdout + result.stderr
    cells = load_json(out)["cells"]
    assert sorted(cell["case"] for cell in cells) == sorted(names)
    assert all(cell["runs"] for cell in cells)


def test_asvs_own_results_of_the_suite_import_with_the_names_perflab_runs(tmp_path):
    """asv itself runs the feature suite (``asv run --python=same --quick``, offline), and its
    results file imports as cases with the names ``perflab run`` gives, skips as skips."""
    pytest.importorskip("asv")
    project = tmp_path / "project"
    shutil.copytree(SUITE, project)
    git = git_repository(project)
    git("add", "-A")
    git("commit", "-qm", "suite")
    commit = subprocess.run(["git", "-C", project, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    environment = {**os.environ, "HOME": str(tmp_path)}  # asv keeps its machine file in ~/.asv-machine.json
    asv = [sys.executable, "-m", "asv"]
    subprocess.run([*asv, "machine", "--yes", "--machine", "testbox"], cwd=project, env=environment, check=True)
    ran = subprocess.run(
        [*asv, "run", "--python=same", "--quick", "--set-commit-hash", commit, "--machine", "testbox"],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (results,) = (project / ".asv" / "results" / "testbox").glob(f"{commit[:8]}-*.json")
    imported = load_file(results)
    assert sorted(cell.case for cell in imported.cells) == sorted(perflab_names(SUITE / "benchmarks"))
    skipped = [cell.case for cell in imported.cells if cell.skipped]
    assert skipped == ["suite.TimeSuite.time_upper(2, 'b')"]
    assert all(cell.estimates for cell in imported.cells if not cell.skipped)
