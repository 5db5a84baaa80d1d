"""compare --html and demo: the report's options and bad input, through the real command line."""

from support.cli import QUICK, run_perflab
from support.report_cli_shared import BENCH


def saved_profile(path, sampler="py-spy", pad=10):
    from collections import Counter

    from perflab.profile.model import Profile

    python = {"implementation": "CPython", "version": "3.11.7", "executable": "/usr/bin/python3"}
    runs = [
        Counter(
            {("encode (<project>/lib.py:3)",): 90, ("encode (<project>/lib.py:3)", "pad (<project>/lib.py:9)"): pad}
        )
        for _ in range(4)
    ]
    Profile(
        runs,
        {
            "sampler": sampler,
            "mode": "cpu",
            "native": False,
            "python": python,
            "run_info": [{"time_per_call": (90 + pad) * 1e-7, "round": i} for i in range(4)],
        },
    ).save(path)
    return path


def test_diff_verb_names_the_path_and_writes_html(tmp_path):
    a, b = saved_profile(tmp_path / "a.json"), saved_profile(tmp_path / "b.json", pad=40)
    result = run_perflab("diff", a, b, "--html", tmp_path / "d.html")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("b vs a: 10 us -> 13 us per call (+3 us")
    assert "100% of the 3 us added is in encode -> pad" in result.stdout.splitlines()[0]
    assert "class='diffflame'" in (tmp_path / "d.html").read_text()


def test_diff_verb_refuses_profiles_from_different_samplers(tmp_path):
    a, b = saved_profile(tmp_path / "a.json"), saved_profile(tmp_path / "b.json", sampler="inprocess")
    result = run_perflab("diff", a, b)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "differ in sampler" in result.stderr
    assert "--allow-mismatch" in result.stderr
    assert run_perflab("diff", a, b, "--allow-mismatch").returncode == 0


def test_python_sides_are_profiled_but_not_diffed_unless_allowed(bench_file, tmp_path):
    import subprocess
    import sys

    venv = tmp_path / "venv"  # another interpreter path (same build): enough for the profiles to differ in it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", venv], check=True)
    out = tmp_path / "report.html"
    result = run_perflab(
        "compare",
        bench_file(BENCH),
        "--python",
        sys.executable,
        "--python",
        venv / "bin" / "python",
        *QUICK,
        "--samples",
        "100",
        "--html",
        out,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert "differential profile is skipped unless --allow-mismatch" in page
    assert "differential profile skipped: the profiles were taken under different interpreters" in page
    assert page.count("<iframe") == 2 and "class='diffflame'" not in page
