"""asv suites as perflab benchmarks (perflab.bench.asv_suite), in process: discovery and names as
asv gives them, parameters, setup and its skips, setup_cache, ``number``, the ``-b`` filter and
asv.conf.json."""

from __future__ import annotations

import gc
import re
import shutil
import sys
import textwrap

import pytest
from asv_runner.discovery import disc_benchmarks  # here, not in a test: forget_suites would unload numpy with it
from support.paths import TESTS

from perflab import asv_config
from perflab.bench.asv_suite import CONTENDER, discover, samples, timed_call
from perflab.bench.loading import load_benchmark
from perflab.bench.optional import Skipped
from perflab.bench.spec import BenchmarkFileError
from perflab.bench.worker.region import calibrate
from perflab.option_types import matching

SUITE = TESTS / "data" / "asv_suite"

TIMED = [
    "suite.time_sum",
    "suite.time_sorted(10)",
    "suite.time_sorted(100)",
    "suite.TimeSuite.time_upper(1, 'a')",
    "suite.TimeSuite.time_upper(1, 'b')",
    "suite.TimeSuite.time_upper(2, 'a')",
    "suite.TimeSuite.time_upper(2, 'b')",
    "suite.Popping.time_pop",
    "suite.Cached.time_len",
    "suite.timeraw_import_json",
    "suite.timeraw_upper",
    "sub.nested.TimeNested.time_join(1, 'x' (0))",
    "sub.nested.TimeNested.time_join(1, 'x' (1))",
    "sub.nested.TimeNested.time_join(2, 'x' (0))",
    "sub.nested.TimeNested.time_join(2, 'x' (1))",
]


@pytest.fixture(autouse=True)
def forget_suites():
    """Each test imports its suites afresh; none stays in this process's modules."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def suite(tmp_path, source: str, name: str = "benchmarks"):
    directory = tmp_path / name
    directory.mkdir(parents=True)
    (directory / "__init__.py").write_text("")
    (directory / "bench_mod.py").write_text(textwrap.dedent(source))
    return directory


def build(benchmark, case: str):
    return benchmark.cases[case].build()


def test_every_timed_benchmark_and_combination_is_a_case_named_as_asv_names_it():
    benchmark = load_benchmark(SUITE / "benchmarks")
    assert sorted(benchmark.cases) == sorted(TIMED)
    assert list(benchmark.contenders) == [CONTENDER]
    # asv's other kinds record sizes and numbers: named, not timed.
    assert benchmark.notes == [
        "not timed (asv's mem_, peakmem_ and track_ record sizes and numbers): "
        "suite.mem_list, suite.peakmem_list, suite.track_answer"
    ]


def test_discovery_finds_every_kind_and_leaves_out_private_and_abstract_classes():
    kinds = {found.name: found.kind for found in discover(SUITE / "benchmarks")}
    assert kinds["suite.mem_list"] == "mem"
    assert kinds["suite.peakmem_list"] == "peakmem"
    assert kinds["suite.track_answer"] == "track"
    assert kinds["suite.timeraw_upper"] == "timeraw"
    assert not [name for name in kinds if "hidden" in name or "abstract" in name]


def test_attributes_come_from_the_function_then_the_class_then_the_module(tmp_path):
    directory = suite(
        tmp_path,
        """
        params = [1, 2]          # the module's params apply to its functions

        def time_module_params(n):
            pass

        def time_own_params(x):
            pass
        time_own_params.params = ["a"]
        time_own_params.benchmark_name = "renamed.time_it"

        class Suite:
            params = [[object()], [None]]

            def time_objects(self, thing, nothing):
                pass
        """,
    )
    cases = list(load_benchmark(directory).cases)
    assert cases == [
        "bench_mod.time_module_params(1)",
        "bench_mod.time_module_params(2)",
        "renamed.time_it('a')",
        "bench_mod.Suite.time_objects(<object object>, None)",  # the memory address left out, as asv does
    ]


def test_setup_runs_with_the_parameters_and_not_implemented_error_skips_that_combination():
    benchmark = load_benchmark(SUITE / "benchmarks")
    prepared = build(benchmark, "suite.TimeSuite.time_upper(2, 'a')")
    assert benchmark.contenders[CONTENDER].build()(prepared) == "AA"
    with pytest.raises(Skipped, match=r"NotImplementedError\('n=2 with b'\)"):
        build(benchmark, "suite.TimeSuite.time_upper(2, 'b')")


def test_skip_params_skip_their_combination(tmp_path):
    directory = suite(
        tmp_path,
        """
        def time_x(n):
            pass
        time_x.params = [1, 2]
        time_x.skip_params = [(2,)]
        """,
    )
    benchmark = load_benchmark(directory)
    build(benchmark, "bench_mod.time_x(1)")
    with pytest.raises(Skipped, match="skip_params"):
        build(benchmark, "bench_mod.time_x(2)")


def test_setup_cache_runs_once_per_process_and_its_value_comes_first(tmp_path):
    directory = suite(
        tmp_path,
        """
        CALLS = []

        class Cached:
            params = [1, 2]

            def setup_cache(self):
                CALLS.append(1)
                return {"calls": CALLS}

            def setup(self, cache, n):
                self.n = n

            def time_it(self, cache, n):
                return len(cache["calls"]), self.n
        """,
    )
    benchmark = load_benchmark(directory)
    run = benchmark.contenders[CONTENDER].build()
    assert run(build(benchmark, "bench_mod.Cached.time_it(1)")) == (1, 1)
    assert run(build(benchmark, "bench_mod.Cached.time_it(2)")) == (1, 2)


def test_a_class_setup_waits_for_setup_cache_and_a_module_setup_runs_before_it_as_in_asv_runner(tmp_path):
    # asv_runner#52: a class's setup(self) reading what setup_cache writes ran before setup_cache.
    directory = suite(
        tmp_path,
        """
        ORDER = []

        def setup():
            ORDER.append("module setup")

        class Cached:
            def setup_cache(self):
                ORDER.append("setup_cache")

            def setup(self):
                ORDER.append("class setup")

            def time_it(self):
                pass
        """,
    )
    build(load_benchmark(directory), "bench_mod.Cached.time_it")
    order = sys.modules["benchmarks.bench_mod"].ORDER
    assert order == ["module setup", "setup_cache", "module setup", "class setup"]


def test_with_a_setup_every_timed_call_gets_a_fresh_setup_and_a_value_holds_many_calls(tmp_path):
    # asv_runner 0.3 (asv#966): with a setup hook, setup runs again before every timed call, even
    # with number = 1; a value still holds many calls (one call timed right after the worker wakes
    # is a cold call), as many as their setups fit in a few milliseconds.
    directory = suite(
        tmp_path,
        """
        import time
        SEEN = []

        class Growing:
            def setup(self):
                self.items = []

            def time_append(self):
                self.items.append(1)
                SEEN.append(len(self.items))

        class Slow:
            def setup(self):
                time.sleep(0.006)

            def time_nothing(self):
                pass

        class SlowOnce:  # its first setup is cold (or lost the CPU), the next ones are not
            setups = 0

            def setup(self):
                SlowOnce.setups += 1
                if SlowOnce.setups == 1:  # (no sleep(0) after: it yields the CPU, for ms under load)
                    time.sleep(0.006)

            def time_nothing(self):
                pass
        """,
    )
    benchmark = load_benchmark(directory)
    run = benchmark.contenders[CONTENDER].build()
    run.times_itself(build(benchmark, "bench_mod.Growing.time_append"), 50)
    assert sys.modules["benchmarks.bench_mod"].SEEN == [1] * 50
    feature_suite = load_benchmark(SUITE / "benchmarks")  # its Popping pops its one item: number = 1
    popping = build(feature_suite, "suite.Popping.time_pop")
    assert calibrate(run, popping, 0.005) > 1  # an IndexError if two calls shared one setup
    assert run.max_loops(build(benchmark, "bench_mod.Slow.time_nothing")) == 1  # its setup fills a value
    assert run.max_loops(build(benchmark, "bench_mod.SlowOnce.time_nothing")) > 1  # one slow setup decides nothing


def test_a_value_is_the_middle_of_its_asv_samples_not_their_mean(tmp_path):
    # asv keeps the median of its samples, and with a setup hook each sample is one call: a value is
    # the middle of its calls, as asv's is. Their mean took in the rare slow call (an interrupt in
    # the timed window) and read the setup benchmarks 1.1-1.9x asv under load (asv_timing_causes.py,
    # experiment 5). Here 2 calls of 8 sleep 50 ms: their mean is over 12 ms, the middle a no-op call.
    directory = suite(
        tmp_path,
        """
        import time
        CALLS = []

        class Spiky:
            def setup(self):
                pass

            def time_it(self):
                CALLS.append(None)
                if len(CALLS) % 4 == 0:
                    time.sleep(0.05)
        """,
    )
    benchmark = load_benchmark(directory)
    run = benchmark.contenders[CONTENDER].build()
    assert run.times_itself(build(benchmark, "bench_mod.Spiky.time_it"), 8) / 8 < 0.01


def test_asv_samples_are_single_calls_after_a_setup_or_number_calls(tmp_path):
    # asv_runner 0.3: with a setup hook a sample is one call, or ``number`` calls each timed alone
    # after its own setup (_SetupInterleavedTimer); without one, a batch of ``number`` calls.
    directory = suite(
        tmp_path,
        """
        SEEN = []

        def setup_counts():
            SEEN.append("setup")

        class One:
            setup = staticmethod(setup_counts)

            def time_it(self):
                SEEN.append("call")

        class Pairs(One):
            number = 2

        class Batched:
            number = 3

            def time_it(self):
                SEEN.append("call")
        """,
    )
    benchmark = load_benchmark(directory)
    seen = sys.modules["benchmarks.bench_mod"].SEEN
    shapes = {}
    for name in ("One", "Pairs", "Batched"):
        prepared = build(benchmark, f"bench_mod.{name}.time_it")
        seen.clear()
        shapes[name] = (len(samples(prepared, 6)), seen.count("setup"), seen.count("call"))
    assert shapes == {"One": (6, 5, 6), "Pairs": (3, 5, 6), "Batched": (2, 0, 6)}


def test_the_garbage_collector_is_off_while_timing_as_under_asv(tmp_path):
    directory = suite(
        tmp_path,
        """
        import gc
        SEEN = []

        def time_plain():
            SEEN.append(gc.isenabled())

        class WithSetup:
            def setup(self):
                pass

            def time_it(self):
                SEEN.append(gc.isenabled())
        """,
    )
    benchmark = load_benchmark(directory)
    run = benchmark.contenders[CONTENDER].build()
    run.times_itself(build(benchmark, "bench_mod.time_plain"), 3)
    run.times_itself(build(benchmark, "bench_mod.WithSetup.time_it"), 3)
    assert sys.modules["benchmarks.bench_mod"].SEEN == [False] * 6
    assert gc.isenabled()


def test_the_zero_argument_function_reads_the_benchmark_as_asv_runners_does():
    # asv_runner times a parameterized benchmark through ``self.func(*param)``, reading ``func`` from
    # its benchmark object, whose __dict__ it has materialized (vars(self)); on CPython 3.11 and 3.12
    # that read does not stay specialized: TimeNested.time_join read 1.2x perflab's time while perflab
    # read it from a fresh object (benchmarks/asv_timing_causes.py, experiment 4).
    name = "sub.nested.TimeNested.time_join"
    ours = timed_call(build(load_benchmark(SUITE / "benchmarks"), f"{name}(2, 'x' (0))"))
    (asv,) = [found for found in disc_benchmarks(str(SUITE / "benchmarks")) if found.name == name]
    theirs = asv._param_bound_func(2, "x")
    assert ours.__code__.co_code == theirs.__code__.co_code

    def holder_has_a_dict(call) -> bool:  # the collector sees an object's dict once it is materialized
        (holder,) = [cell.cell_contents for cell in call.__closure__ if not isinstance(cell.cell_contents, tuple)]
        return any(type(referent) is dict and "func" in referent for referent in gc.get_referents(holder))

    assert holder_has_a_dict(ours) == holder_has_a_dict(theirs)
    assert holder_has_a_dict(ours) or sys.version_info >= (3, 13)  # 3.13 keeps a materialized dict's values inline


def test_a_value_starts_from_a_fresh_setup_when_number_is_not_declared(tmp_path):
    directory = suite(
        tmp_path,
        """
        class Growing:
            def setup(self):
                self.items = []

            def time_append(self):
                self.items.append(1)
                return len(self.items)
        """,
    )
    benchmark = load_benchmark(directory)
    run = benchmark.contenders[CONTENDER].build()
    prepared = build(benchmark, "bench_mod.Growing.time_append")
    run.times_itself(prepared, 3)
    run.times_itself(prepared, 3)
    assert run(prepared) == 1  # the output call got a fresh setup too, as asv's samples do


def test_timeraw_runs_its_code_in_a_fresh_interpreter():
    benchmark = load_benchmark(SUITE / "benchmarks")
    run = benchmark.contenders[CONTENDER].build()
    prepared = build(benchmark, "suite.timeraw_upper")
    assert run.max_loops(prepared) == 1  # timeraw's number defaults to 1: one interpreter per value
    assert run.times_itself(prepared, 2) > 0


def test_a_suite_without_init_or_without_timed_benchmarks_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BenchmarkFileError, match=r"no __init__\.py"):
        load_benchmark(tmp_path / "empty")
    directory = suite(tmp_path, "def track_x():\n    return 1\n")
    with pytest.raises(BenchmarkFileError, match=r"no asv time_ or timeraw_ benchmark.*bench_mod\.track_x"):
        load_benchmark(directory)


def test_an_error_importing_the_suite_names_the_module_and_line(tmp_path):
    directory = suite(tmp_path, "import json\nfrom json import dumpz\n")
    with pytest.raises(BenchmarkFileError, match=r"bench_mod\.py:2: ImportError while importing the asv suite"):
        load_benchmark(directory)


def test_two_suites_of_one_name_in_one_process_each_see_their_own_modules(tmp_path):
    first = suite(tmp_path / "one", "def time_a():\n    pass\n")
    second = suite(tmp_path / "two", "def time_b():\n    pass\n")
    assert list(load_benchmark(first).cases) == ["bench_mod.time_a"]
    assert list(load_benchmark(second).cases) == ["bench_mod.time_b"]


def test_the_bench_filter_searches_case_names_as_asv_does():
    names = list(load_benchmark(SUITE / "benchmarks").cases)
    assert matching(names, [re.compile(r"time_upper\(1")]) == [
        "suite.TimeSuite.time_upper(1, 'a')",
        "suite.TimeSuite.time_upper(1, 'b')",
    ]
    assert matching(names, [re.compile("Popping"), re.compile("Cached")]) == [
        "suite.Popping.time_pop",
        "suite.Cached.time_len",
    ]
    with pytest.raises(ValueError, match=r"no case matches -b 'nothing'"):
        matching(names, [re.compile("nothing")])


def test_asv_conf_json_names_the_benchmark_directory_comments_and_all(tmp_path):
    pytest.importorskip("json5")
    assert asv_config.benchmark_dir(SUITE / "asv.conf.json") == (SUITE / "benchmarks").resolve()
    shutil.copytree(SUITE / "benchmarks", tmp_path / "bench")
    (tmp_path / "asv.conf.json").write_text('{"benchmark_dir": "bench"}')
    assert asv_config.benchmark_dir(tmp_path / "asv.conf.json") == (tmp_path / "bench").resolve()
    (tmp_path / "asv.conf.json").write_text('{"benchmark_dir": "missing"}')
    with pytest.raises(asv_config.AsvConfigError, match="missing is not a directory"):
        asv_config.benchmark_dir(tmp_path / "asv.conf.json")


def test_only_a_missing_dependency_is_a_skip_that_fails_the_run_and_its_cases_are_named_unless_all():
    # An asv setup's NotImplementedError says the case does not apply: listed with the results, no failure.
    from perflab.results.model import Cell, RunResult

    result = RunResult(benchmark="b", file="b", reference="asv", settings={}, metadata={}, work={})
    contenders = ("asv", "other", "third")
    result.cells = [Cell(case, contender) for case in ("x(1)", "x(2)", "y") for contender in contenders]
    for cell in result.cells:
        if cell.contender == "other":
            cell.skipped = "skipped: not installed (other)"
        elif cell.case.startswith("x"):
            cell.skipped = f"skipped: {'setup raised NotImplementedError()' if cell.contender == 'asv' else 'not installed (third)'}"
    assert result.skips == [
        "other: skipped: not installed (other)",
        "third on x(1), x(2): skipped: not installed (third)",
    ]


def test_case_options_keep_the_commas_of_an_asv_name_together():
    from perflab.cli.support.options import names

    assert names(["suite.TimeSuite.time_upper(1, 'a'),suite.time_sum", "x([1, 2], 3)"]) == [
        "suite.TimeSuite.time_upper(1, 'a')",
        "suite.time_sum",
        "x([1, 2], 3)",
    ]


def test_timeraw_code_runs_where_no_module_is_loaded_that_a_fresh_python_would_not_have(tmp_path):
    directory = suite(
        tmp_path,
        """
        def timeraw_fresh():
            return "pass", "import sys\\nassert 'json' not in sys.modules, 'json was imported before the code'"
        """,
    )
    benchmark = load_benchmark(directory)
    run = benchmark.contenders[CONTENDER].build()
    assert run.times_itself(build(benchmark, "bench_mod.timeraw_fresh"), 1) > 0
