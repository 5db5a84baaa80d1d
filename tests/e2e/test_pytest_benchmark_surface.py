"""pytest-benchmark's API as real suites use it, under perflab's plugin in a real pytest: the
``benchmark.stats`` Metadata (attribute and item access), the fixture's attributes, and the
options and fixture perflab refuses with one line naming them."""

import json
import textwrap

import pytest
from support.pytest_runs import FAST, run_pytest

STATS_TEST = """
import pytest

@pytest.mark.benchmark(group="sorting")
def test_stats(benchmark):
    benchmark.extra_info["size"] = 3
    assert benchmark.stats is None  # nothing measured yet, as in pytest-benchmark
    assert benchmark(sorted, [3, 1, 2]) == [1, 2, 3]
    stats = benchmark.stats
    assert stats  # truthy once measured
    assert stats["mean"] == stats.stats.mean == stats.get("mean") == stats["stats"].mean
    assert stats["min"] <= stats["median"] <= stats["max"] and stats["rounds"] == len(stats.stats.data)
    assert stats.stats["min"] == stats.stats.min and stats.stats.as_dict()["ops"] == stats.stats.ops
    assert stats["name"] == benchmark.name == "test_stats" and stats["group"] == benchmark.group == "sorting"
    assert stats["extra_info"] == {"size": 3} and stats.iterations >= 1
    assert stats.get("no_such_statistic", "default") == "default"
    with pytest.raises(AttributeError):
        stats["no_such_statistic"]
    assert not benchmark.disabled and benchmark.enabled
"""


def write(directory, source, name="test_bench.py"):
    (directory / name).write_text(textwrap.dedent(source))


@pytest.mark.parametrize("takeover", [["-p", "no:benchmark"], ["--perflab"]], ids=["alone", "takeover"])
def test_benchmark_stats_is_pytest_benchmarks_metadata(tmp_path, takeover):
    write(tmp_path, STATS_TEST)
    run_pytest(tmp_path, *takeover, *FAST, "--benchmark-json", tmp_path / "out.json", check=True)
    (saved,) = json.loads((tmp_path / "out.json").read_text())["benchmarks"]
    assert saved["extra_info"] == {"size": 3} and saved["group"] == "sorting"


def test_the_same_test_passes_under_pytest_benchmark_itself(tmp_path):
    """The reference: what the test asserts is pytest-benchmark's behaviour, except stats.stats[...]
    (pytest-benchmark's Stats has attributes only), which the plugin adds."""
    write(tmp_path, STATS_TEST.replace('    assert stats.stats["min"] == stats.stats.min and ', "    assert "))
    run_pytest(tmp_path, "--benchmark-max-time", "0.05", check=True)


REFUSED = [
    ("--benchmark-autosave", "perflab saves every session to its results store"),
    ("--benchmark-compare", "use --perflab-against REF|FILE"),
    ("--benchmark-compare-fail=mean:5%", "--perflab-threshold PCT"),
    ("--benchmark-columns=min,max", "every statistic of pytest-benchmark's table is in --benchmark-json"),
    ("--benchmark-sort=mean", "perflab's summary has one layout"),
    ("--benchmark-group-by=name", "perflab's summary has one layout"),
]


@pytest.mark.parametrize("takeover", [["-p", "no:benchmark"], ["--perflab"]], ids=["alone", "takeover"])
def test_options_perflab_does_not_honour_are_refused_with_one_line(tmp_path, takeover):
    write(tmp_path, "def test_one(benchmark):\n    benchmark(sorted, [2, 1])\n")
    for option, instead in REFUSED:
        done = run_pytest(tmp_path, *takeover, option)
        flag = option.partition("=")[0]
        assert done.returncode == 4, (option, done.stdout, done.stderr)
        assert f"ERROR: {flag} is not supported by perflab's plugin: " in done.stderr, done.stderr
        assert instead in done.stderr


def test_benchmark_weave_fails_the_test_naming_it(tmp_path):
    write(
        tmp_path,
        """
        def test_weave(benchmark_weave):
            pass

        def test_attribute(benchmark):
            benchmark.weave(object, lazy=True)
        """,
    )
    done = run_pytest(tmp_path, "--perflab", *FAST)
    assert done.returncode == 1
    assert "1 failed, 1 error" in done.stdout  # the fixture errs at set-up; the attribute fails the test
    assert done.stdout.count("benchmark.weave / benchmark_weave (pytest-benchmark's aspectlib patching)") >= 2


def test_min_rounds_disable_skip_and_only_under_takeover(tmp_path):
    write(
        tmp_path,
        """
        def test_bench(benchmark):
            benchmark(sorted, [2, 1])
            assert benchmark.disabled or benchmark.stats["rounds"] >= 40

        def test_plain():
            pass
        """,
    )
    timed = run_pytest(tmp_path, "--perflab", *FAST, "--benchmark-min-rounds", "40", check=True)
    assert "2 passed" in timed.stdout
    assert "2 passed" in run_pytest(tmp_path, "--perflab", "--benchmark-disable", check=True).stdout
    assert "1 passed, 1 skipped" in run_pytest(tmp_path, "--perflab", "--benchmark-skip", check=True).stdout
    only = run_pytest(tmp_path, "--perflab", *FAST, "--benchmark-only", "--benchmark-min-rounds", "40", check=True)
    assert "1 passed, 1 skipped" in only.stdout
