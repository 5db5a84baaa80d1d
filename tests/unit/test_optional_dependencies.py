"""Which import failures of a contender are a skip ("not installed") and which are errors
(perflab.bench.optional), and pyperf scripts' ``from __main__ import``, in process."""

import textwrap

import pytest

from perflab.bench.loading import load_benchmark
from perflab.bench.native_build import NotInstalled
from perflab.bench.optional import missing_dependency
from perflab.bench.spec import Contender


def failure(function, setup=True) -> BaseException:
    """The exception the contender raises while being built and called once."""
    with pytest.raises(BaseException) as raised:
        Contender("c", function, setup=setup).build()(None)
    return raised.value


def test_a_module_missing_in_a_set_up_is_a_skip_naming_its_top_level_package():
    def setup():
        import perflab_no_such_package.sub  # noqa: F401

    assert missing_dependency(failure(setup)) == "perflab_no_such_package"


def test_a_missing_compiler_in_a_set_up_is_a_skip():
    def setup():
        raise NotInstalled("g++ is not installed")

    assert missing_dependency(failure(setup)) == "g++ is not installed"


@pytest.mark.parametrize(
    "statement",
    [
        "from json import dumpz",  # the module is there: a typo in the name
        "import json.no_such_submodule",  # the top-level package is installed
        "from __main__ import NO_SUCH_NAME",
    ],
)
def test_other_import_errors_in_a_set_up_are_errors(statement):
    def setup():
        exec(statement)

    assert missing_dependency(failure(setup)) is None


def test_a_module_missing_in_the_timed_function_is_an_error():
    def timed(argument):
        import perflab_no_such_package  # noqa: F401

    assert missing_dependency(failure(timed, setup=False)) is None


def test_pyperf_scripts_find_their_own_names_in___main__(tmp_path):
    script = tmp_path / "bm_main.py"
    script.write_text(
        textwrap.dedent(
            """
            import pyperf
            DATA = list(range(10))
            def total():
                import __main__
                return sum(__main__.DATA)
            runner = pyperf.Runner()
            runner.timeit("timeit", stmt="sum(DATA)", setup="from __main__ import DATA")
            runner.bench_func("func", total)
            """
        )
    )
    benchmark = load_benchmark(script)
    (contender,) = benchmark.contenders.values()
    timed = contender.build()
    # Under the old loading, both raised ImportError: __main__ was perflab's, not the script.
    outputs = {name: timed(case.build()) for name, case in benchmark.cases.items()}
    assert outputs["func"] == 45
