"""compare --html and demo: the report's options and bad input, through the real command line."""

from support.cli import QUICK, run_perflab
from support.report_cli_shared import BENCH


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
        f"perflab: error: --html {tmp_path / 'missing' / 'r.html'}: directory {tmp_path / 'missing'} does not exist"
    ]


def test_demo_refuses_an_unwritable_report_path(tmp_path):
    result = run_perflab("demo", "--html", tmp_path / "missing" / "demo.html")
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_demo_names_are_checked_before_anything_runs(tmp_path):
    unknown = run_perflab("demo", "json_dumps", "[red]nope", "--html", tmp_path / "d.html")
    assert unknown.returncode == 2 and not (tmp_path / "d.html").exists()
    assert "demo NAME '[red]nope': no such built-in; choose from" in unknown.stderr  # shown, not styled
    both = run_perflab("demo", "--all", "json_dumps")
    assert both.returncode == 2 and "give built-in names or --all, not both" in both.stderr
