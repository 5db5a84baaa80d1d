"""Import failures through the real command line: only a declared optional dependency that is
not installed is a skip, and a skip fails the run unless --allow-skipped; every other
ImportError is an error with its file:line; pyperf scripts import from their own ``__main__``."""

import json

from support.cli import QUICK, load_json, run_perflab

HEAD = """
import perflab
bench = perflab.Benchmark("sums")

@bench.case
def SMALL():
    return list(range(100))

@bench.contender
def builtin(xs):
    return sum(xs)
"""

TYPOS = """
@bench.contender(setup=True)
def typo_in_setup():
    from json import dumpz
    return dumpz

@bench.contender
def typo_in_body(xs):
    from json import dumpz
    return sum(xs)
"""

MISSING = """
@bench.contender(setup=True)
def fancy():
    import fancy_sum_lib_xyz
    return fancy_sum_lib_xyz.sum
"""


def line_of(source: str, text: str) -> int:
    return source.splitlines().index(text) + 1


def statuses(path) -> dict:
    return {(e["case"], e["contender"]): e for e in load_json(path)["equivalence"]}


def test_an_import_typo_is_an_error_at_its_line_not_a_skip(bench_file, tmp_path):
    source = HEAD + TYPOS
    path = bench_file(source)
    done = run_perflab("run", path, *QUICK, "--json", tmp_path / "r.json")
    assert done.returncode == 1, done.stdout
    found = statuses(tmp_path / "r.json")
    for contender in ("typo_in_setup", "typo_in_body"):
        assert found[("SMALL", contender)]["status"] == "error", found
        assert "cannot import name 'dumpz' from 'json'" in found[("SMALL", contender)]["difference"]
    # the first "from json import dumpz" is in the set-up, the second in the timed body
    setup_line = line_of(source, "    from json import dumpz")
    assert f"{path}:{setup_line})" in found[("SMALL", "typo_in_setup")]["difference"]
    assert f"{path}:{setup_line + 5})" in found[("SMALL", "typo_in_body")]["difference"]
    assert "not installed" not in done.stdout


def test_a_missing_optional_package_is_a_skip_that_fails_the_run_unless_allowed(bench_file):
    path = bench_file(HEAD + MISSING)
    done = run_perflab("run", path, *QUICK)
    assert done.returncode == 1, done.stdout
    assert "skipped: not installed (No module named 'fancy_sum_lib_xyz')" in done.stdout
    assert "fancy: skipped: not installed" in done.stderr and "--allow-skipped" in done.stderr
    allowed = run_perflab("run", path, *QUICK, "--allow-skipped")
    assert allowed.returncode == 0, allowed.stderr
    assert "skipped: not installed (No module named 'fancy_sum_lib_xyz')" in allowed.stdout


PYPERF_SCRIPT = """
import pyperf

DATA = list(range(1000))

runner = pyperf.Runner()
runner.timeit("sum_data", stmt="sum(DATA)", setup="from __main__ import {name}")
"""


def test_a_pyperf_script_imports_from_its_own___main__(tmp_path):
    script = tmp_path / "bm_main.py"
    script.write_text(PYPERF_SCRIPT.format(name="DATA"))
    done = run_perflab("run", script, *QUICK, "--json", tmp_path / "r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    (cell,) = load_json(tmp_path / "r.json")["cells"]
    assert cell["estimates"], json.dumps(cell)[:500]


def test_a_pyperf_script_importing_a_name_it_lacks_is_an_error(tmp_path):
    script = tmp_path / "bm_main.py"
    script.write_text(PYPERF_SCRIPT.format(name="NOT_DEFINED"))
    done = run_perflab("run", script, *QUICK)
    assert done.returncode == 1
    assert "cannot import name 'NOT_DEFINED' from '__main__'" in done.stdout
    assert "not installed" not in done.stdout


def test_check_fails_on_a_skip_unless_allowed(bench_file, tmp_path):
    path = bench_file(HEAD + MISSING)
    baseline = tmp_path / "base.json"
    assert run_perflab("run", path, *QUICK, "--allow-skipped", "--json", baseline).returncode == 0
    checked = run_perflab("check", path, "--against", baseline, *QUICK)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "perflab check: fancy: skipped: not installed" in checked.stderr
    allowed = run_perflab("check", path, "--against", baseline, *QUICK, "--allow-skipped")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
