"""compare --html and demo: the report's options and bad input, through the real command line."""

from conftest import QUICK, run_perflab

BENCH = '''
import perflab

bench = perflab.Benchmark("tiny", description="report options", compare="exact")


@bench.case
def ONE():
    return list(range(50))


@bench.contender(reference=True)
def builtin_sum(xs):
    return sum(xs)


@bench.contender
def loop_sum(xs):
    total = 0
    for x in xs:
        total += x
    return total
'''


def test_html_without_profiles(bench_file, tmp_path):
    out = tmp_path / "report.html"
    result = run_perflab("compare", bench_file(BENCH), *QUICK, "--no-fuzz", "--no-profile", "--html", out)
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert "class='verdicts'" in page and "not profiled (--no-profile)" in page
    assert "<iframe" not in page and "http://" not in page and "https://" not in page  # offline


def test_an_unwritable_report_path_is_refused_before_measuring(bench_file, tmp_path):
    result = run_perflab("compare", bench_file(BENCH), *QUICK, "--html", tmp_path / "missing" / "r.html")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"perflab: error: --html {tmp_path / 'missing' / 'r.html'}: directory {tmp_path / 'missing'} does not exist"]


def test_demo_refuses_an_unwritable_report_path(tmp_path):
    result = run_perflab("demo", "--html", tmp_path / "missing" / "demo.html")
    assert result.returncode == 2 and "does not exist" in result.stderr
