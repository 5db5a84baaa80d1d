"""Native profiles (perflab.profile.native_perf): a real C++ program with a known split of work,
sampled by Linux perf, into perflab's profile model and its views."""

import shutil

import pytest
from support.cli import QUICK, run_perflab
from support.hostile_shared import profile_stopped
from support.native_programs import compile_cpp

from perflab.profile.model import Profile
from perflab.profile.native_perf import NativeProfilerUnavailable, NativeSettings, parse_script, profile_command
from perflab.profile.shares import frame_shares

pytestmark = pytest.mark.skipif(
    shutil.which("perf") is None, reason="Linux perf is not installed (.ci/run installs linux-perf)"
)

HEAVY, LIGHT = "split::heavy (split)", "split::light (split)"


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    return compile_cpp("split", tmp_path_factory.mktemp("native"), "-g", "-fno-omit-frame-pointer")


def _total_shares(profile: Profile) -> dict[str, float]:
    return {share.frame: share.total.value for share in frame_shares(profile.runs)}


def test_a_known_split_of_work_shows_in_the_shares_with_demangled_names(split, tmp_path):
    call_graph = "dwarf"  # the default; frame pointers are used by the tests below
    out = tmp_path / "split.profile.json"
    done = run_perflab(
        "profile", "--native-command", f"{split} 2000000", "--call-graph", call_graph,
        "--samples", "400", "--runs", "3", "--json", out, "--what-if", "split::heavy=2x",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    profile = Profile.load(out)
    assert len(profile.runs) >= 3 and profile.metadata["sampler"] == "perf"
    assert profile.metadata["call_graph"] == call_graph
    shares = _total_shares(profile)
    heavy, light = shares[HEAVY], shares[LIGHT]  # C++ names demangled by perf, library names short
    assert 2 < heavy / light < 4.5  # three times the iterations of the same loop
    assert not any(label.startswith("_Z") for stack in profile.merged() for label in stack)
    assert "what if split::heavy" in done.stdout


def test_native_profiles_merge_like_python_ones(split, tmp_path):
    first, second = tmp_path / "0.profile.json", tmp_path / "1.profile.json"
    args = ["--native-command", f"{split} 1000000", "--samples", "100", "--runs", "1", "--call-graph", "fp"]
    assert run_perflab("profile", *args, "--json", first).returncode == 0
    second.write_bytes(first.read_bytes())  # a second session's profile: same program, same settings
    merged = tmp_path / "merged.profile.json"
    done = run_perflab("merge", first, second, "--json", merged)
    assert done.returncode == 0, done.stderr
    assert len(Profile.load(merged).runs) == 2 * len(Profile.load(first).runs)


SPLIT_BENCH = """
import perflab

bench = perflab.Benchmark("split")

@bench.case
def SMALL():
    return "1000000"

bench.command("split", [{program!r}, "{{input}}"], input="arg")
"""


def test_a_command_contender_of_a_benchmark_is_profiled_with_perf(split, tmp_path, bench_file):
    path = bench_file(SPLIT_BENCH.format(program=str(split)))
    out = tmp_path / "p.json"
    done = run_perflab("profile", path, "--samples", "100", "--runs", "2", "--call-graph", "fp", "--json", out)
    assert done.returncode == 0, done.stderr
    profile = Profile.load(out)
    assert (profile.metadata["sampler"], profile.metadata["case"], profile.metadata["contender"]) == (
        "perf",
        "SMALL",
        "split",
    )
    assert HEAVY in _total_shares(profile)


def test_run_profile_samples_command_contenders_with_perf(split, tmp_path, bench_file):
    path = bench_file(SPLIT_BENCH.format(program=str(split)))
    profiles = tmp_path / "profiles"
    done = run_perflab("run", path, *QUICK, "--profile-dir", profiles, "--samples", "50")
    assert done.returncode == 0, done.stderr
    assert Profile.load(profiles / "SMALL-split.profile.json").metadata["sampler"] == "perf"


def test_compare_profiles_short_command_contenders_with_perf_and_diffs_them(split, tmp_path):
    # ~1 ms programs: each perf record (~1 s of its own) holds many executions of one, and the
    # repeating shell's own samples are left out.
    report = tmp_path / "r.html"
    done = run_perflab(
        "compare", "--command", f"{split} 100000", "--command", f"{split} 300000", *QUICK,
        "--html", report, "--samples", "300",
    )  # fmt: skip
    assert done.returncode == 1 and "NOT EQUIVALENT" in done.stdout, done.stderr  # they print other sums
    assert "sampled by perf" in report.read_text()
    explained = [line for line in done.stderr.splitlines() if " vs " in line and "per call" in line]
    assert explained, done.stderr  # a differential profile of the two programs
    html = report.read_text()
    assert "split::heavy" in html and "(dash)" not in html and "__libc_vfork" not in html


def test_missing_perf_is_said_with_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no perf on the PATH
    done = run_perflab("profile", "--native-command", "true")
    assert done.returncode == 2
    assert "native profiles need Linux perf, which is not installed" in done.stderr


# Busy ~0.3 s (samples for a whole first run); from its second execution on, hangs.
HANGS_AFTER_ONE_EXECUTION = """
if [ -e "$1" ]; then sleep 600; fi
touch "$1"
i=0; while [ "$i" -lt 200000 ]; do i=$((i + 1)); done
"""


def test_a_program_that_hangs_under_perf_is_stopped_by_max_time_and_the_runs_before_are_kept(tmp_path):
    """--max-time bounded no perf record: a hung program waited --timeout (here 120 s). Now it is
    stopped with perf when the budget is spent, named, and the first run is written, marked partial;
    neither perf nor the program is left running. About 6 s (the budget)."""
    (tmp_path / "prog.sh").write_text(HANGS_AFTER_ONE_EXECUTION)
    profile_stopped(
        tmp_path, "--native-command", "/bin/sh prog.sh ran-once", "--samples", "100", "--runs", "2",
        "--max-time", "6", "--timeout", "120", "--json", "out.json",
        said="perflab: error: /bin/sh prog.sh ran-once: '/bin/sh' was stopped under perf: it outlasted the time "
        "budget (--max-time 6 s); raise --max-time if it runs this long, else it hangs (the 1 run sampled until "
        "then kept, marked partial)",
    )  # fmt: skip
    profile = Profile.load(tmp_path / "out.json")
    assert len(profile.runs) == 1 and profile.samples > 0
    assert "was stopped under perf" in profile.metadata["partial"]


def test_a_program_stopped_before_its_first_run_writes_nothing_and_says_so(tmp_path):
    profile_stopped(
        tmp_path, "--native-command", "sleep 600", "--max-time", "1", "--timeout", "120", "--json", "out.json",
        said="perflab: error: sleep 600: 'sleep' was stopped under perf: it outlasted the time budget "
        "(--max-time 1 s); raise --max-time if it runs this long, else it hangs (no run was finished: nothing "
        "is written)",
    )  # fmt: skip
    assert not (tmp_path / "out.json").exists()


# Its first execution ends at once, later ones work 40-60 ms: a first record without a sample.
IDLE_ONCE = """
if [ ! -e ran-once ]; then : > ran-once; exit 0; fi
i=0; while [ "$i" -lt 50000 ]; do i=$((i + 1)); done
"""


def test_a_first_record_without_a_sample_is_followed_by_one_of_ten_executions(tmp_path):
    """A program of a few ms can end before perf's first sample (seen under load with a 10,000-line
    sort, which then failed as "too short"): the next record holds ten executions."""
    (tmp_path / "prog.sh").write_text(IDLE_ONCE)
    shell = shutil.copy(
        "/bin/sh", tmp_path / "idle-once"
    )  # a shell's samples count unless named sh (the repeat loop's)
    # 100 Hz: the first execution (~1 ms) is almost never sampled, ten later ones are. Each execution
    # is a new process whose sampling clock starts afresh, so one shorter than the period (10 ms) is
    # never sampled however often it runs: 20,000 iterations (16 ms) on a faster CPU were not, at 50 Hz.
    settings = NativeSettings(samples=5, runs=1, rate=100, call_graph="fp")
    profile = profile_command([shell, "prog.sh"], settings, cwd=str(tmp_path))
    assert profile.samples >= 5 and profile.metadata["run_info"][0]["executions"] >= 10


def test_a_program_too_short_to_be_sampled_is_said_after_two_records(tmp_path):
    with pytest.raises(NativeProfilerUnavailable, match="perf took no sample of 'true': it ends before the first"):
        profile_command(["true"], NativeSettings(samples=20, runs=1, call_graph="fp"), cwd=str(tmp_path))


def test_perf_script_output_is_read_root_first_with_inlined_frames_in_their_library():
    text = (
        "prog 12 \n"
        "\t    1160 inner (inlined)\n"
        "\t    1160 outer+0x20 (/usr/bin/prog)\n"
        "\t    1200 main+0x1 (/usr/bin/prog)\n"
        "\t    9999 [unknown] ([unknown])\n"
        "\nprog 12 \n"
        "\t    1200 main+0x1 (/usr/bin/prog)\n"
    )
    assert parse_script(text) == {
        ("main (prog)", "outer (prog)", "inner (prog)"): 1,
        ("main (prog)",): 1,
    }
    shell_too = text + "\nsh 11 \n\t    1200 __libc_vfork+0x1 (/usr/lib/libc.so.6)\n"
    assert parse_script(shell_too, skip_command="sh") == parse_script(text)
