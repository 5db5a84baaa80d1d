"""--max-time bounds a contender that hangs in every phase: fuzzing, the equivalence checks, set-up
and timing, and a profiling worker's set-up, each stop it within the budget, not after the per-wait
--timeout; the message names the contender and the phase, and what the other contenders measured is kept."""

from support.hostile_files import HANGS

from perflab.bench.loading import load_benchmark
from perflab.measure.difference_search import fuzz_contender
from perflab.measure.launcher import run_job
from perflab.measure.runner import run_benchmark, run_sides
from perflab.measure.settings import Settings
from perflab.measure.sides import contender_sides
from perflab.profile.pairing import profile_group
from perflab.profile.settings import INPROCESS, ProfileSettings
from perflab.results.model import EQUIVALENT, FUZZING_CASE

TIMEOUT = 120.0  # the per-wait limit, far beyond every budget here: only the budget can stop a hang


def settings(budget: float = 3.0, values: int = 20) -> Settings:
    return Settings(max_time=budget, timeout=TIMEOUT, values=values)


def test_a_contender_hanging_while_fuzzed_is_stopped_by_the_budget(bench_file):
    path = bench_file(HANGS.format(after=0))
    # 8 s: the hang takes fuzzing's 40% and the checks' 80%; the reference's calibration and
    # measured rounds must fit the timing's 40% floor (3.2 s) on a loaded CI machine too.
    result = run_benchmark(
        str(path), load_benchmark(path), ["SMALL"], ["reference", "hangs"], settings(8.0), fuzz_examples=0
    )
    fuzzed = next(v for v in result.equivalence if v.case == FUZZING_CASE and v.contender == "hangs")
    assert (
        fuzzed.difference == "stopped while fuzzing it against the reference: it outlasted the time budget "
        "(--max-time 8 s, of which fuzzing may take 40%)"
    )
    assert result.elapsed < TIMEOUT
    assert f"{FUZZING_CASE}/hangs: {fuzzed.difference}" in result.failures
    # Stopped in its check too (it hangs there as well); the reference is still timed: nothing lost.
    assert result.cell("SMALL", "hangs").error.startswith("stopped while checking its output")
    assert result.cell("SMALL", "reference").measured_runs()


def test_a_contender_hanging_in_its_equivalence_check_is_stopped_by_the_budget(bench_file):
    path = bench_file(HANGS.format(after=0))
    sides = contender_sides(str(path), ["reference", "hangs"])
    result = run_sides("hangs", sides, ["SMALL"], settings())
    checked = next(v for v in result.equivalence if v.case == "SMALL" and v.contender == "hangs")
    assert checked.difference == (
        "stopped while checking its output against the reference's: it outlasted the time budget "
        "(--max-time 3 s, of which the checks may take 80%)"
    )
    assert result.cell("SMALL", "hangs").error == checked.difference
    assert result.elapsed < TIMEOUT


def test_a_contender_hanging_only_when_timed_is_stopped_and_the_others_keep_their_values(bench_file):
    path = bench_file(HANGS.format(after=1_000))
    # 200 values of 5 ms per worker (1 s): the contender hangs in its first worker's values.
    chosen = settings(budget=6.0, values=200)
    result = run_benchmark(str(path), load_benchmark(path), ["SMALL"], ["reference", "hangs"], chosen, fuzz_examples=0)
    stopped = "stopped while timing it: it outlasted the time budget (--max-time 6 s)"
    hung = result.cell("SMALL", "hangs")
    assert not hung.measured_runs() and hung.runs[-1].error == stopped, hung
    assert f"SMALL/hangs: {stopped}" in result.failures, result.failures
    reference = result.cell("SMALL", "reference")
    assert reference.error is None and any(run.values for run in reference.runs), reference  # kept
    assert result.elapsed < TIMEOUT


def test_a_contender_hanging_in_its_profiling_set_up_is_stopped_and_the_other_side_keeps_its_profile(bench_file):
    """``perflab profile``, ``run --profile`` and ``compare --html`` profile through sessions like
    these: the worker calibrates (calls the contender) before it reports ready, so a hang there
    waited --timeout; now the budget stops it. One round of the reference and the contender, the
    in-process sampler (no py-spy needed), 50 samples."""
    path = bench_file(HANGS.format(after=0))
    sides = contender_sides(str(path), ["reference", "hangs"])
    chosen = ProfileSettings(
        samples=50, sampler=INPROCESS, min_runs=1, adaptive_rounds=False, timeout=TIMEOUT, budget=3
    )
    outcomes = profile_group(sides, "SMALL", chosen)
    assert outcomes["hangs"].error == (
        "SMALL/hangs: stopped while setting it up for profiling: it outlasted the time budget (--max-time 3 s); "
        "raise --max-time if its calls take this long, else a call hangs"
    )
    assert outcomes["reference"].error is None and outcomes["reference"].profile.runs  # kept


def test_fuzzing_past_its_share_of_the_budget_stops_drawing_and_keeps_what_it_checked(bench_file):
    """Generated inputs that would outlast their share stop being drawn: the verdict rests on those
    checked and says so, rather than the whole fuzzing job being stopped as a failure."""
    path = bench_file(
        """
        import time
        import perflab

        bench = perflab.Benchmark("slow")

        @bench.case
        def SMALL():
            return [3, 1, 2]

        @bench.contender
        def ref(xs):
            time.sleep(0.02)
            return sorted(xs)

        @bench.contender
        def same(xs):
            return sorted(xs)
        """
    )
    found = fuzz_contender(path, "same", "ref", lambda job: run_job(job, TIMEOUT), examples=200, generate_seconds=1.0)
    assert found.status == EQUIVALENT, found
    said = [note for note in found.notes if note.startswith("generated inputs stopped after ")]
    assert said and said[0].endswith(" of 200: fuzzing's share of the time budget ran out (raise --max-time for more)")
    checked = int(said[0].split()[4])  # the generated inputs checked before the deadline
    assert 0 < checked < 200 and found.examples_run >= checked  # the aimed inputs after them count too
