import pytest

from perflab.bench.loading import load_benchmark
from perflab.bench.spec import BenchmarkFileError

MINIMAL = """
import perflab
bench = perflab.Benchmark("b")

@bench.case(items=3)
def THREE():
    return [1, 2, 3]

@bench.contender
def total(xs):
    return sum(xs)

@bench.contender(reference=True)
def loop(xs):
    s = 0
    for x in xs:
        s += x
    return s
"""


def test_loads_cases_contenders_and_reference(bench_file):
    benchmark = load_benchmark(bench_file(MINIMAL))
    assert list(benchmark.cases) == ["THREE"]
    assert list(benchmark.contenders) == ["total", "loop"]
    assert benchmark.reference.name == "loop"
    assert benchmark.cases["THREE"].work([1, 2, 3]) == ("items", 3.0)


def test_a_benchmark_can_import_its_neighbours(bench_file):
    bench_file("HELPER = 42\n", name="helper.py")
    path = bench_file(MINIMAL.replace("import perflab", "import perflab, helper"))
    assert load_benchmark(path).name == "b"


@pytest.mark.parametrize(
    "source, message",
    [
        ("def broken(:\n", r"bench.py:1: syntax error"),
        ("import perflab\nimport no_such_module_xyz\n", r"bench.py:2: ModuleNotFoundError while importing"),
        ("x = 1\n", "expected exactly one perflab.Benchmark, found 0"),
        ("import perflab\nb = perflab.Benchmark('x')\n", "declares no case"),
        (MINIMAL + "\n@bench.contender\ndef total(xs):\n    return 0\n", "contender 'total' is declared twice"),
    ],
)
def test_bad_files_give_one_line_errors_naming_the_file(bench_file, source, message):
    with pytest.raises(BenchmarkFileError, match=message) as error:
        load_benchmark(bench_file(source))
    assert "\n" not in str(error.value)


def test_a_compiled_packages_source_beside_the_benchmark_is_said_to_hide_its_build(bench_file, tmp_path):
    """bench.py beside mypkg/ (whose _speed extension is built, not in the source): the error said
    only "No module named 'mypkg._speed'"."""
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("from mypkg._speed import total\n")
    with pytest.raises(BenchmarkFileError) as error:
        load_benchmark(bench_file("import perflab\nimport mypkg\n"))
    assert str(error.value).endswith(
        f"bench.py:2: ModuleNotFoundError while importing: No module named 'mypkg._speed' (mypkg was imported from "
        f"{tmp_path / 'mypkg'}, its source beside the benchmark: that hides an installed build of it; keep the "
        "benchmark outside the package's import root, e.g. in benchmarks/)"
    )


def test_missing_file(tmp_path):
    with pytest.raises(BenchmarkFileError, match="no such benchmark file"):
        load_benchmark(tmp_path / "nope.py")
