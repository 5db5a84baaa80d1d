"""`perflab profile`, `perflab merge` and `run --profile` end to end: real workers, real py-spy."""

import json
import shutil
import sys
import textwrap

import pytest
from support.cli import run_perflab
from support.hostile_files import HANGS, HANGS_IN_THE_SECOND_WORKER
from support.hostile_shared import profile_stopped
from support.profile_cli_shared import BENCH, PROFILE_QUICK, bench, check_line_profile  # noqa: F401 - fixtures are found by name

from perflab.profile.model import Profile

EVIL_BENCH = """
    import perflab

    bench = perflab.Benchmark("evil")

    def work(n):
        return sum(i * i for i in range(n))

    # A function may be given any name: markup, a folded-stack separator, a line break.
    EVIL_NAME = "[bold]</script><script>window.pwned=1</script>;x\\ny"
    work = type(work)(work.__code__.replace(co_name=EVIL_NAME, co_qualname=EVIL_NAME), globals())

    @bench.case
    def ONE():
        return 3000

    @bench.contender
    def run(n):
        return work(n)
"""


@pytest.mark.parametrize(
    "args, message",
    [
        (["--case", "NOPE"], "unknown case 'NOPE'"),
        ([], "2 cases (SMALL, LARGE): choose one with --case"),
        (["--case", "SMALL", "--contender", "nope"], "unknown contender 'nope'"),
        (["--case", "SMALL", "--html", "/no/such/dir/x.html"], "--html /no/such/dir/x.html: directory"),
        pytest.param(
            ["--case", "SMALL", "--sampler", "perf"],
            "--sampler perf needs CPython 3.13+" if shutil.which("perf") else "--sampler perf: native profiles need",
            marks=pytest.mark.skipif(
                sys.version_info >= (3, 12), reason="perflab's own interpreter may have a trampoline"
            ),
            id="perf-sampler-without-3.12",
        ),
        (["--case", "SMALL", "--sampler", "perf", "--mode", "wall"], "--sampler perf samples CPU time only"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(bench, args, message):
    result = run_perflab("profile", bench, *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


def test_malformed_what_if_is_refused_before_profiling(bench):
    result = run_perflab("profile", bench, "--case", "SMALL", "--what-if", "heavy")
    assert result.returncode == 2 and "expected FRAME=Kx" in result.stderr


def test_what_if_predicts_and_an_unknown_frame_is_an_error_after_writing(bench, tmp_path):
    result = run_perflab(
        "profile",
        bench,
        "--case",
        "SMALL",
        *PROFILE_QUICK,
        "--sampler",
        "inprocess",
        "--what-if",
        "heavy=2x",
        "--json",
        tmp_path / "p.json",
    )
    assert result.returncode == 0, result.stderr
    assert "what if heavy" in result.stdout and "faster [95% CI" in result.stdout
    merged = run_perflab("merge", tmp_path / "p.json", "--what-if", "hevy=2x")
    assert merged.returncode == 2
    assert "no frame of the profile matches (did you mean heavy" in merged.stderr.strip().splitlines()[-1]


def test_merge_adds_runs_and_refuses_broken_files(bench, tmp_path):
    for name in ("a", "b"):
        result = run_perflab(
            "profile",
            bench,
            "--case",
            "SMALL",
            *PROFILE_QUICK,
            "--sampler",
            "inprocess",
            "--json",
            tmp_path / f"{name}.json",
            "--folded",
            tmp_path / f"{name}.folded",
        )
        assert result.returncode == 0, result.stderr
    merged = run_perflab(
        "merge", tmp_path / "a.json", tmp_path / "b.json", tmp_path / "a.folded", "--json", tmp_path / "m.json"
    )
    assert merged.returncode == 0, merged.stderr
    runs = lambda name: len(json.loads((tmp_path / name).read_text())["runs"])
    assert runs("m.json") == runs("a.json") + runs("b.json") + 1
    broken = tmp_path / "broken.folded"
    broken.write_text((tmp_path / "a.folded").read_text()[:-3])
    result = run_perflab("merge", tmp_path / "a.json", broken)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "broken.folded:" in result.stderr


def test_run_with_profile_profiles_after_timing_in_separate_workers(bench, tmp_path):
    result = run_perflab(
        "run",
        bench,
        "--case",
        "SMALL",
        "--contender",
        "work",
        "--max-time",
        "10",  # also what a profiling worker's set-up may take: generous under load (--precision ends the timing)
        "--precision",
        "50",
        "--profile-dir",
        tmp_path / "profiles",
        "--samples",
        "200",
        "--no-store",
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "hottest path" in result.stdout
    assert (tmp_path / "profiles" / "SMALL-work.profile.json").exists()
    assert "<canvas" in (tmp_path / "profiles" / "SMALL-work.html").read_text()


def test_names_from_user_code_are_escaped_in_every_output(tmp_path):
    path = tmp_path / "evil.py"
    path.write_text(textwrap.dedent(EVIL_BENCH))
    result = run_perflab(
        "profile",
        path,
        *PROFILE_QUICK,
        "--sampler",
        "inprocess",
        "--html",
        tmp_path / "p.html",
        "--folded",
        tmp_path / "p.folded",
        "--speedscope",
        tmp_path / "p.json",
    )
    assert result.returncode == 0, result.stderr
    assert "[bold]</script><script>window.pwned=1</script>" in result.stdout  # shown literally, not as markup
    page = (tmp_path / "p.html").read_text()
    assert "<script>window.pwned" not in page and page.count("</script>") == 2
    folded = (tmp_path / "p.folded").read_text().splitlines()
    assert all(line.rpartition(" ")[2].isdigit() for line in folded)
    assert any("</script>:x y (<project>/evil.py:" in line for line in folded)
    names = [frame["name"] for frame in json.loads((tmp_path / "p.json").read_text())["shared"]["frames"]]
    assert "[bold]</script><script>window.pwned=1</script>;x\ny" in names


def test_python_is_refused_where_it_cannot_apply():
    program = run_perflab("profile", "--python", "python3", "--", "python", "-c", "pass")
    assert program.returncode == 2 and "--python profiles a benchmark's operation" in program.stderr
    unknown = run_perflab("profile", "json_dumps", "--case", "SIMPLE", "--python", "no-such-python3")
    assert unknown.returncode == 2 and "--python no-such-python3: interpreter not found" in unknown.stderr


def test_lines_profiles_shares_per_source_line(bench):
    check_line_profile(bench, "--sampler", "inprocess")  # py-spy: tests/external


def test_a_set_up_that_hangs_is_stopped_by_max_time_not_timeout(tmp_path):
    """The profiling worker calibrates (calls the contender) before it is sampled: a hang there
    waited --timeout (here 120 s); --max-time stops it, in one line naming the contender and the phase.
    About 4 s on a quiet machine (the 3 s budget and one start), 10-20 s under heavy load."""
    path = tmp_path / "hangs.py"
    path.write_text(HANGS.format(after=0))
    result = run_perflab("profile", path, "--contender", "hangs", "--max-time", "3", "--timeout", "120", timeout=100)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip().endswith(
        "perflab: error: SMALL/hangs: stopped while setting it up for profiling: it outlasted the time budget "
        "(--max-time 3 s); raise --max-time if its calls take this long, else a call hangs "
        "(no run was finished: nothing is written)"
    ), result.stderr


def test_a_call_that_hangs_inside_a_profiling_run_is_stopped_and_the_runs_before_are_kept_as_partial(tmp_path):
    """A run once set up lasted until --timeout (here 120 s) when a call hung in it; now the budget
    stops it (the run may take twice its 0.5 s first), names the contender, and the finished first
    run is written, marked partial; no process is left. About 6 s quiet (run 1, then the 4 s budget
    of the second worker), 10-20 s under heavy load."""
    (tmp_path / "hangs.py").write_text(HANGS_IN_THE_SECOND_WORKER.format(after=100))
    result = profile_stopped(
        tmp_path, "hangs.py", "--sampler", "inprocess", "--samples", "200", "--runs", "2", "--rate", "200",
        "--max-time", "4", "--timeout", "120", "--json", "out.json", "--html", "out.html",
        said="perflab: error: SMALL/hangs: stopped while profiling it: it outlasted the time budget (--max-time 4 s); "
        "raise --max-time if its calls take this long, else a call hangs (the 1 run sampled until then kept, "
        "marked partial)",
    )  # fmt: skip
    assert len((tmp_path / "workers.txt").read_text().split()) == 2  # the second run's worker hung
    profile = Profile.load(tmp_path / "out.json")
    assert len(profile.runs) == 1 and profile.samples > 0
    assert profile.metadata["partial"].startswith("SMALL/hangs: stopped while profiling it")
    assert "partial: the session was cut short: SMALL/hangs" in (tmp_path / "out.html").read_text()
    assert "partial" in result.stdout  # the terminal's header says so too
